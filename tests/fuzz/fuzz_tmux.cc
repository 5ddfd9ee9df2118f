// Fuzzes what agtmuxd reads from tmux: control-mode output (fed in two
// pieces split anywhere, %output data unescaped), list-panes records, and
// the server's messages on the client protocol socket (tmux_imsg.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aggregator/observe/tmux_control.h"
#include "aggregator/observe/tmux_format.h"
#include "aggregator/observe/tmux_imsg.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  agt::agg::ControlParser p;
  const size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  p.Feed(bytes.substr(0, cut));
  p.Feed(bytes.substr(cut));
  for (const auto& n : p.TakeNotifications())
    if (n.name == "output") (void)agt::agg::UnescapeOutput(n.args);
  (void)p.TakeReplies();
  (void)agt::agg::ParseListPanes(bytes);
  agt::agg::imsg::Reader r;
  r.Feed(bytes.substr(0, cut));
  for (int pass = 0; pass < 2; ++pass) {
    for (;;) {
      auto m = r.Next();
      if (!m.ok() || !m->has_value()) break;
    }
    if (pass == 0) r.Feed(bytes.substr(cut));
  }
  return 0;
}
