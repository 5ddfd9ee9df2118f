// PlanFollow: which local target watches a tmux socket, or the target to
// add for it (see tmux_follow.h).
#include "aggregator/api/tmux_follow.h"

#include <sys/stat.h>
#include <unistd.h>

namespace agt::agg {
namespace {

bool SameSocket(const std::string& a, const std::string& b) {
  if (a == b) return true;
  struct stat sa{}, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/// The socket's file name with anything a target name may not hold as '-'.
std::string NameFor(const std::string& socket) {
  std::string base = socket.substr(socket.rfind('/') + 1);
  for (char& c : base) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) c = '-';
  }
  return base.empty() ? "tmux" : base;
}

}  // namespace

core::Result<FollowPlan> PlanFollow(const TargetRegistry& targets, const std::string& socket) {
  if (socket.empty() || socket[0] != '/')
    return core::MakeError(core::Err::kTargetInvalid, "tmux_socket '" + socket + "' must be an absolute path");
  struct stat st{};
  if (::stat(socket.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
    return core::MakeError(core::Err::kTargetInvalid, "no tmux server socket at " + socket);
  if (st.st_uid != ::getuid())
    return core::MakeError(core::Err::kTargetInvalid,
                           "the tmux socket " + socket + " belongs to another user (uid " +
                               std::to_string(st.st_uid) + ")");
  FollowPlan plan;
  for (const TargetStatus& t : targets.all()) {
    if (t.spec.kind == "local" && SameSocket(t.spec.tmux_socket, socket)) {
      plan.watched_by = t.spec.name;
      return plan;
    }
  }
  const std::string base = NameFor(socket);
  std::string name = base;
  for (int n = 2; targets.Find(name); ++n) name = base + "-" + std::to_string(n);
  plan.add = TargetSpec{name, "local", socket, ""};
  return plan;
}

}  // namespace agt::agg
