// A pane's state as tmux shows it, read in one command line and turned into
// terminal bytes (see pane_seed.h).
#include "aggregator/observe/pane_seed.h"

#include <charconv>
#include <vector>

namespace agt::agg {

std::string SeedCommand(const std::string& pane_id) {
  // Two commands on one line run back to back in tmux's command queue: no
  // pane output is read between them, so the cursor belongs to the capture.
  return "display-message -p -t " + pane_id +
         " '#{cursor_x} #{cursor_y} #{pane_width} #{pane_height} #{alternate_on} "
         "#{scroll_region_upper} #{scroll_region_lower}' ; capture-pane -e -p -t " + pane_id;
}

core::Result<PaneSeed> ParseSeed(std::string_view header, std::string_view capture) {
  std::vector<int> v;
  std::string_view rest = header;
  while (!rest.empty()) {
    const size_t sp = rest.find(' ');
    std::string_view word = rest.substr(0, sp);
    int n = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), n);
    if (ec != std::errc() || end != word.data() + word.size() || n < 0) break;
    v.push_back(n);
    if (sp == std::string_view::npos) {
      rest = {};
      break;
    }
    rest.remove_prefix(sp + 1);
  }
  if (v.size() != 7 || !rest.empty() || v[2] == 0 || v[3] == 0)
    return core::MakeError(core::Err::kPayloadInvalid,
                           "pane seed: expected 7 numbers (cursor, size, alternate screen, scroll "
                           "region), got '" + std::string(header.substr(0, 80)) + "'");
  PaneSeed s;
  s.cursor_x = v[0];
  s.cursor_y = v[1];
  s.width = v[2];
  s.height = v[3];
  s.alt_screen = v[4] != 0;
  s.scroll_top = v[5];
  s.scroll_bottom = v[6];
  s.text = std::string(capture);
  return s;
}

std::string SeedBytes(const PaneSeed& seed) {
  std::string out;
  out.reserve(seed.text.size() + 16 * size_t(seed.height) + 32);
  if (seed.alt_screen) out += "\x1b[?1049h";
  out += "\x1b[0m\x1b[H\x1b[2J";
  std::string_view t = seed.text;
  for (int row = 0; row < seed.height && !t.empty(); ++row) {
    const size_t nl = t.find('\n');
    std::string_view line = t.substr(0, nl);
    // Each row is placed by its own cursor move, so a full-width row never
    // wraps into the next and no row scrolls the screen.
    out += "\x1b[" + std::to_string(row + 1) + ";1H";
    out += line;
    out += "\x1b[0m";
    if (nl == std::string_view::npos) break;
    t.remove_prefix(nl + 1);
  }
  if (seed.scroll_top != 0 || seed.scroll_bottom + 1 != seed.height)
    out += "\x1b[" + std::to_string(seed.scroll_top + 1) + ";" +
           std::to_string(seed.scroll_bottom + 1) + "r";
  out += "\x1b[" + std::to_string(seed.cursor_y + 1) + ";" + std::to_string(seed.cursor_x + 1) + "H";
  return out;
}

}  // namespace agt::agg
