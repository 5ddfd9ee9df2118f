// The count of events agtmux lost on the way to the store, by reason, so
// that no loss is silent: /v1/health and `agtmux daemon status` show it.
// Kept in <state_dir>/dropped.json (replaced whole on each change, which
// is rare), so the count survives restarts; what the drain found in the
// spool and what producers reported would otherwise vanish with the files
// that told it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace agt::agg {

enum class DropReason {
  kSpoolUndecodable,  // a spool line that was not an event (torn, broken, hostile)
  kSpoolQuarantined,  // a line of a spool file a drain died in, set aside unread
  kProducer,          // a producer (wrapper, hook) could neither deliver nor spool it
};
inline constexpr size_t kDropReasons = 3;
std::string_view DropReasonName(DropReason r);

class DropCounter {
 public:
  /// Loads `path` ("" keeps the count in memory only). A missing or
  /// unreadable file starts from zero.
  explicit DropCounter(std::string path);
  /// Adds `n` (> 0) and writes the file. Returns false when it could not be
  /// written (the count in memory is still right).
  bool Add(DropReason r, int64_t n);
  int64_t count(DropReason r) const { return counts_[static_cast<size_t>(r)]; }
  int64_t total() const;

 private:
  std::string path_;
  std::array<int64_t, kDropReasons> counts_{};
};

}  // namespace agt::agg
