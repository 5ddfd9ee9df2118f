// The local copy of one federated target's panes (docs/architecture.md,
// "Federation"): the remote agtmuxd's GET /v1/watch lines applied in order,
// kept as the view's own PaneRows under the local target's name, so the
// views merge them with the local panes as they are. Nothing here is
// re-derived: state, source, evidence, waiting detail, versions and times are
// the remote daemon's. A line already applied (same stream, sequence not
// newer) is skipped; a `reset` waits for the snapshot that follows it.
// While the link is down every pane shows `unknown` with reason
// `target_unreachable`, keeping the last known layout. Each row carries its
// item JSON rendered once when it is applied (PaneRow::json), and the rows
// are kept in the view's order, so a read of a thousand remote panes
// renders none of them again.
#pragma once

#include <rapidjson/document.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "aggregator/view/views.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

/// One remote pane item (docs/api.md, pane item) as a local row of `target`.
/// E_PAYLOAD_INVALID naming the field that is missing or of the wrong type.
core::Result<PaneRow> RemotePaneRow(const rapidjson::Value& item, const std::string& target);

class RemoteMirror {
 public:
  explicit RemoteMirror(std::string target) : target_(std::move(target)) {}

  /// What applying one watch line did.
  enum class Applied { kChanged, kUnchanged, kDuplicate };
  /// Applies one line of the remote's watch stream; E_PAYLOAD_INVALID when
  /// the line is not one (the caller drops the link and resumes).
  core::Result<Applied> Apply(std::string_view line);

  /// "<stream_id>:<sequence>" of the last line applied; "" before the first.
  std::string cursor() const;
  /// The link went down (rows turn unknown / target_unreachable, as of
  /// `now`) or came back (the next lines refresh them).
  void SetReachable(bool reachable, core::TimeNs now);
  bool reachable() const { return reachable_; }
  /// After a `reset`, until its snapshot: the rows are not the remote's.
  bool awaiting_snapshot() const { return awaiting_snapshot_; }
  const std::vector<PaneRow>& rows() const { return rows_; }
  /// Lines skipped as already applied (a resumed stream's overlap).
  int64_t duplicates() const { return duplicates_; }

  /// The mirror as JSON ({"cursor","items"}), so a restarted daemon resumes
  /// from its cursor with the panes it had; Load is its inverse.
  std::string Save() const;
  core::Status Load(std::string_view text);

 private:
  core::Status ApplyItems(const rapidjson::Value& items, bool replace);
  core::Status ApplyChanges(const rapidjson::Value& changes);
  void Render();

  std::string target_;
  std::string stream_id_;
  int64_t sequence_ = -1;
  bool awaiting_snapshot_ = false;  // after a reset
  bool reachable_ = false;
  core::TimeNs unreachable_since_ = 0;
  int64_t duplicates_ = 0;
  // identity key -> (row, the remote item's JSON for Save)
  std::map<std::string, std::pair<PaneRow, std::string>> panes_;
  std::vector<PaneRow> rows_;
};

}  // namespace agt::agg
