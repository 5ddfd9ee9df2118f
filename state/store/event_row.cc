// The Event <-> row mapping shared by `events` and `event_inbox`: the
// envelope's flat fields are columns, its nested parts (signal, runtime,
// exit) are JSON columns in the store's own format (row_codec.h).
#include "state/store/event_row.h"

#include "state/store/row_codec.h"

namespace agt::state::internal {

void BindEventColumns(sql::Stmt& st, const core::Event& e) {
  st.BindStatic(1, e.event_id)
      .BindOptStatic(2, e.runtime_id)
      .BindStatic(3, e.event_type)
      .BindStatic(4, core::SourceName(e.source))
      .BindOpt(6, e.source_seq)
      .Bind(7, e.event_time)
      .Bind(8, e.ingested_at)
      .BindStatic(9, e.dedupe_key)
      .BindOptStatic(10, e.action_id)
      .BindOptStatic(11, e.raw_payload)
      .BindOptStatic(12, e.target_id)
      .BindOptStatic(13, e.pane_id)
      .BindOpt(14, e.pid)
      .BindOpt(15, e.start_hint);
  if (e.source_event_id) st.BindStatic(5, *e.source_event_id); else st.BindNull(5);
  if (e.signal) st.Bind(16, EncodeSignal(*e.signal)); else st.BindNull(16);
  if (e.runtime) st.Bind(17, EncodeRuntimeInfo(*e.runtime)); else st.BindNull(17);
  if (e.exit) st.Bind(18, EncodeExitInfo(*e.exit)); else st.BindNull(18);
  st.BindOptStatic(19, e.health);
}

core::Result<core::Event> ReadEventColumns(const sql::Stmt& st, int first) {
  core::Event e;
  int c = first;
  e.event_id = st.Text(c++);
  e.runtime_id = st.Text(c++);
  e.event_type = st.Text(c++);
  std::string source = st.Text(c++);
  auto parsed = core::ParseSource(source);
  if (!parsed) {
    return core::MakeError(core::Err::kStore,
                           "event " + e.event_id + ": bad stored source `" + source + "`");
  }
  e.source = *parsed;
  e.source_event_id = st.OptText(c++);
  e.source_seq = st.OptInt(c++);
  e.event_time = st.Int(c++);
  e.ingested_at = st.Int(c++);
  e.dedupe_key = st.Text(c++);
  e.action_id = st.Text(c++);
  e.raw_payload = st.Text(c++);
  e.target_id = st.Text(c++);
  e.pane_id = st.Text(c++);
  e.pid = st.OptInt(c++);
  e.start_hint = st.OptInt(c++);
  if (!st.IsNull(c)) {
    auto s = DecodeSignal(st.Text(c));
    if (!s.ok()) return s.error();
    e.signal = std::move(*s);
  }
  ++c;
  if (!st.IsNull(c)) {
    auto r = DecodeRuntimeInfo(st.Text(c));
    if (!r.ok()) return r.error();
    e.runtime = std::move(*r);
  }
  ++c;
  if (!st.IsNull(c)) {
    auto x = DecodeExitInfo(st.Text(c));
    if (!x.ok()) return x.error();
    e.exit = *x;
  }
  ++c;
  e.health = st.Text(c);
  return e;
}

}  // namespace agt::state::internal
