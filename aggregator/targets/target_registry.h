// The targets agtmuxd observes (docs/spec.md §9): `host` (the local tmux server the
// user's own `tmux` reaches) always, plus what `agtmux target add`
// registered, persisted as JSON in <state_dir>/targets.json. Each target
// also carries its live health, reported by its collector.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/os/paths.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::agg {

struct TargetSpec {
  std::string name;         // [A-Za-z0-9._-]+
  std::string kind;         // "local" | "ssh"
  std::string tmux_socket;  // local: the server's socket path ("" = ResolveHostSocket)
  std::string ssh_target;   // ssh: host alias
  std::string via = "";     // ssh: "" (probe for agtmuxd, else CAP) | "agtmuxd" | "cap"
  bool operator==(const TargetSpec&) const = default;
};

struct TargetStatus {
  TargetSpec spec;
  core::TargetHealth health = core::TargetHealth::kOk;
  std::string error;          // last error message when not ok
  bool connected = false;     // a collector runs for it
  core::TimeNs updated_at = 0;
};

/// E_TARGET_INVALID naming the rule a spec breaks.
core::Status ValidateTarget(const TargetSpec& spec);

class TargetRegistry {
 public:
  /// Loads `file` (missing = only `host`); `host_socket` is host's socket.
  static core::Result<TargetRegistry> Load(const std::string& file, std::string host_socket);
  TargetRegistry() = default;

  const std::vector<TargetStatus>& all() const { return targets_; }
  TargetStatus* Find(std::string_view name);
  const TargetStatus* Find(std::string_view name) const;
  /// E_TARGET_INVALID (bad spec, or the name exists).
  core::Status Add(const TargetSpec& spec);
  /// E_NOT_FOUND; E_TARGET_INVALID for `host`.
  core::Status Remove(std::string_view name);
  core::Status Save() const;

 private:
  std::string file_;
  std::vector<TargetStatus> targets_;
};

}  // namespace agt::agg
