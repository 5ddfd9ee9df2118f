// The terminal of `agtmux ui` (ncurses): set up and restored (endwin on
// every exit path, by the destructor), keys read without waiting and
// translated to ui::Key, frames painted line by line where they differ
// from the last one painted; ncurses' own diff (wnoutrefresh + doupdate)
// then sends only the changed cells. No screen is cleared per frame.
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "cli/ui/frame.h"

namespace agt::cli::ui {

class Terminal {
 public:
  /// Takes over the terminal (stdin/stdout must be one).
  Terminal();
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  int cols() const;
  int rows() const;
  /// The next key, or -1 when none is waiting. A terminal resize comes
  /// back as resized() turning true (and the next Paint repaints all).
  int ReadKey();
  bool resized() {
    bool r = resized_;
    resized_ = false;
    return r;
  }
  /// Paints `frame`; returns how many lines differed from the last frame.
  size_t Paint(const std::vector<FrameLine>& frame);
  /// Gives the terminal back (endwin); the destructor does it too.
  void End();

 private:
  /// The colour pair for a previewed pane's (fg, bg), made on first use;
  /// 0 (the default colours) when the terminal has no pair left.
  short PairFor(int16_t fg, int16_t bg);

  std::vector<FrameLine> last_;
  std::map<std::pair<int16_t, int16_t>, short> pairs_;
  short next_pair_ = 0;
  bool color_ = false, ended_ = false, resized_ = false;
};

}  // namespace agt::cli::ui
