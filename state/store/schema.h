// The store's schema and its versioned migrations (PRAGMA user_version).
#pragma once

#include <span>
#include <string_view>

#include "libagtcore/base/result.h"
#include "state/store/sqlite.h"

namespace agt::state {

/// One schema step: the SQL that takes user_version from `version - 1` to
/// `version`.
struct Migration {
  int version;
  std::string_view sql;
};

/// Every migration, oldest first. The last one's version is the schema
/// version this build writes.
std::span<const Migration> Migrations();
int LatestSchemaVersion();

/// Brings `db` up to LatestSchemaVersion(), one transaction per migration
/// (so a crash mid-upgrade leaves the last complete version). A no-op on an
/// up-to-date database. A database newer than this build is an E_STORE
/// error saying so: an older agtmuxd must not write a newer schema.
core::Status ApplyMigrations(sql::Db& db);
/// The same, with an explicit migration list (for tests of the mechanism).
core::Status ApplyMigrations(sql::Db& db, std::span<const Migration> migrations);

}  // namespace agt::state
