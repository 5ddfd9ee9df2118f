// Whether agtmuxd still has the two places that make it a usable daemon:
// the socket it bound (clients find it only there) and its state directory
// (the store, the log, the spool). Removed under it (a runtime directory
// cleaned at logout, a deleted ~/.local/state/agtmux, a test's temp dir),
// the daemon is unreachable yet holds its lock on a file nobody can open
// any more, so the next `agtmux` would start a second daemon beside it.
// The daemon asks once a second and stops when either is lost
// (docs/architecture.md, "Daemon lifecycle").
#pragma once

#include <sys/types.h>

#include <string>

#include "libagtcore/base/result.h"

namespace agt::agg {

class HomeCheck {
 public:
  /// Records the identity (device and inode) of the socket just bound at
  /// `socket_path`. E_IO when there is nothing there to record.
  static core::Result<HomeCheck> Record(const std::string& socket_path, const std::string& state_dir);
  /// Empty while the socket at its path is still the one recorded and the
  /// state directory is there; otherwise why not, naming the path
  /// ("its socket P was removed", "its socket P was replaced by another
  /// file", "its state directory D was removed").
  std::string Lost() const;
  /// Whether the file at the socket's path is still the socket recorded
  /// (only then may the daemon remove it on its way out).
  bool SocketIsOurs() const;

 private:
  HomeCheck(std::string socket_path, std::string state_dir, dev_t dev, ino_t ino)
      : socket_path_(std::move(socket_path)), state_dir_(std::move(state_dir)), dev_(dev), ino_(ino) {}
  std::string socket_path_, state_dir_;
  dev_t dev_;
  ino_t ino_;
};

}  // namespace agt::agg
