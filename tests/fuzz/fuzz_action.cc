// Fuzzes the action requests' parser: any body, for each action type (the
// first byte picks it), gives a request or an error naming the problem.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aggregator/actions/action_service.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* kTypes[] = {"send", "respond", "attach", "view-output", "kill", "snapshot", "bogus"};
  if (size == 0) return 0;
  const char* type = kTypes[data[0] % (sizeof kTypes / sizeof kTypes[0])];
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto r = agt::agg::ParseActionRequest(type, body);
  if (!r.ok() && r.error().message.empty()) std::abort();
  return 0;
}
