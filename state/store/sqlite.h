// Owning wrappers around the SQLite C API: a connection, prepared
// statements (cached per connection), and a transaction guard. Everything
// the store does goes through these, so no sqlite3* or sqlite3_stmt* is ever
// leaked or finalised twice, and every SQLite failure becomes an E_STORE
// Result naming the statement that failed.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "libagtcore/base/result.h"

namespace agt::state::sql {

using core::Result;
using core::Status;

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

/// An E_STORE error: "<what>: <sqlite message> (code N)".
core::Error StoreError(sqlite3* db, std::string_view what);

/// A prepared statement borrowed from a connection's cache. Binding is
/// 1-based like SQLite's. The statement is reset and its bindings cleared
/// when the Stmt goes out of scope, so it is ready for its next use.
class Stmt {
 public:
  Stmt(sqlite3* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt(Stmt&& o) noexcept : db_(o.db_), s_(o.s_) { o.s_ = nullptr; }

  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, std::string_view v);
  Stmt& BindText(int i, const std::string& v) { return Bind(i, std::string_view(v)); }
  /// Binds without copying: `v` must stay valid until this Stmt goes out
  /// of scope (which resets the statement and clears its bindings).
  Stmt& BindStatic(int i, std::string_view v);
  /// BindStatic, or NULL when empty.
  Stmt& BindOptStatic(int i, std::string_view v) { return v.empty() ? BindNull(i) : BindStatic(i, v); }
  Stmt& BindNull(int i);
  /// NULL when empty.
  Stmt& BindOptText(int i, std::string_view v);
  Stmt& BindOpt(int i, const std::optional<int64_t>& v);
  Stmt& BindOpt(int i, const std::optional<std::string>& v);

  /// Steps once: true when a row is available, false when done.
  Result<bool> Step();
  /// Steps to completion, for statements that return no rows.
  Status Run();

  int64_t Int(int col) const { return sqlite3_column_int64(s_, col); }
  std::string Text(int col) const;
  bool IsNull(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  std::optional<int64_t> OptInt(int col) const;
  std::optional<std::string> OptText(int col) const;

  sqlite3_stmt* raw() const { return s_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_;
};

/// One SQLite connection with its statement cache.
class Db {
 public:
  struct Options {
    bool read_only = false;
    bool create = true;
  };
  /// Opens (and with `create`, creates) the database file.
  static Result<std::unique_ptr<Db>> Open(const std::string& path, Options options);

  /// Runs one or more statements that return no rows.
  Status Exec(std::string_view sql);
  /// A cached prepared statement for `sql` (prepared on first use).
  Result<Stmt> Prepare(std::string_view sql);
  /// The first column of the first row of `sql` as an integer.
  Result<int64_t> QueryInt(std::string_view sql);
  /// The first column of the first row of `sql` as text.
  Result<std::string> QueryText(std::string_view sql);

  int64_t TotalChanges() const { return sqlite3_total_changes64(db_.get()); }
  int64_t Changes() const { return sqlite3_changes64(db_.get()); }
  sqlite3* raw() const { return db_.get(); }

 private:
  explicit Db(DbPtr db) : db_(std::move(db)) {}
  // Statements must be finalised before the connection closes: members are
  // destroyed in reverse order, so `cache_` (declared last) goes first.
  DbPtr db_;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, StmtPtr, Hash, std::equal_to<>> cache_;
};

/// BEGIN IMMEDIATE on construction via Begin(); ROLLBACK on destruction
/// unless Commit() succeeded.
class Transaction {
 public:
  static Result<Transaction> Begin(Db& db);
  ~Transaction();
  Transaction(Transaction&& o) noexcept : db_(o.db_) { o.db_ = nullptr; }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Status Commit();

 private:
  explicit Transaction(Db* db) : db_(db) {}
  Db* db_;
};

}  // namespace agt::state::sql
