// JSON column encodings for the parts of a record that are not flat:
// a Signal (events.signal_json), a WaitingDetail (states.detail_json,
// candidates.detail_json), RuntimeInfo and ExitInfo. These are the store's
// own column formats, not the wire envelope (see libagtcore/event_codec.h).
#pragma once

#include <string>
#include <string_view>

#include "libagtcore/event.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::state {

/// {"approval_type","details","choices":[...],"multi_select","cursor_position"};
/// "" for an empty detail.
std::string EncodeDetail(const core::WaitingDetail& d);
core::Result<core::WaitingDetail> DecodeDetail(std::string_view json);

/// {"state","reason_code","confidence","rule_id","evidence","detail"}.
std::string EncodeSignal(const core::Signal& s);
core::Result<core::Signal> DecodeSignal(std::string_view json);

/// {"agent_type","cwd","argv_hash","tmux_socket","boot_id","started_at","pane_epoch"}.
std::string EncodeRuntimeInfo(const core::RuntimeInfo& r);
core::Result<core::RuntimeInfo> DecodeRuntimeInfo(std::string_view json);

/// {"code","signal"}.
std::string EncodeExitInfo(const core::ExitInfo& x);
core::Result<core::ExitInfo> DecodeExitInfo(std::string_view json);

}  // namespace agt::state
