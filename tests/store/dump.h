// Test helper: the content of a store as sorted text rows per table, with
// surrogate keys (inbox_id) and commit-time stamps (targets.updated_at)
// left out, so two stores holding the same facts dump equal.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "state/store/sqlite.h"

namespace agt::state::storetest {

using Dump = std::map<std::string, std::vector<std::string>>;

inline std::vector<std::string> DumpQuery(sql::Db& db, const std::string& query) {
  std::vector<std::string> rows;
  auto st = db.Prepare(query);
  if (!st.ok()) return {"ERROR " + st.error().ToString()};
  const int cols = sqlite3_column_count(st->raw());
  for (;;) {
    auto r = st->Step();
    if (!r.ok()) return {"ERROR " + r.error().ToString()};
    if (!*r) break;
    std::string row;
    for (int c = 0; c < cols; ++c) {
      row += st->IsNull(c) ? std::string("NULL") : "'" + st->Text(c) + "'";
      row += '|';
    }
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// Every table's rows; inbox rows of `skip_inbox` event ids are left out.
inline Dump DumpStore(sql::Db& db, const std::set<std::string>& skip_inbox = {}) {
  Dump d;
  d["events"] = DumpQuery(db, "SELECT * FROM events");
  d["runtimes"] = DumpQuery(db, "SELECT * FROM runtimes");
  d["runtime_source_cursors"] = DumpQuery(db, "SELECT * FROM runtime_source_cursors");
  d["states"] = DumpQuery(db, "SELECT * FROM states");
  d["candidates"] = DumpQuery(db, "SELECT * FROM candidates");
  d["targets"] = DumpQuery(db, "SELECT target_id, target_name, kind, connection_ref, is_default, "
                               "last_seen_at, health FROM targets");
  std::vector<std::string> inbox;
  for (const std::string& row : DumpQuery(
           db, "SELECT event_id, target_id, pane_id, runtime_id, event_type, source, dedupe_key, "
               "event_time, ingested_at, status, reason_code, raw_payload, signal_json FROM "
               "event_inbox")) {
    std::string id = row.substr(1, row.find('\'', 1) - 1);
    if (!skip_inbox.contains(id)) inbox.push_back(row);
  }
  d["event_inbox"] = inbox;
  return d;
}

}  // namespace agt::state::storetest
