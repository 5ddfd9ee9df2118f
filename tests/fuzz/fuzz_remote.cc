// Fuzzes what the ssh collector reads back from a remote host: the /proc
// snapshot (base64 files between markers) and the pane captures (between
// nonce lines), and the tmux identity read from a /proc stat.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "aggregator/observe/collector_ssh.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/net/tmux_identity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view out(reinterpret_cast<const char*>(data), size);
  auto files = agt::agg::ParseProcSnapshot(out);
  if (files.ok()) {
    agt::core::MemoryFileReader reader;
    reader.files = *files;
    for (const auto& [path, bytes] : *files) {
      (void)agt::net::ParseProcStatStartTime(bytes);
      (void)agt::net::TmuxServerBootId(1, reader);
    }
  }
  (void)agt::agg::ParseCaptures(out, "01JA0000000000000000000000");
  (void)agt::net::ParseTmuxEnv(out);
  return 0;
}
