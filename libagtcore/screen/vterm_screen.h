// VtermScreen: the wrapper's virtual terminal. libvterm interprets the
// child's output exactly as a terminal would (UTF-8 on, same size as the
// pane, alternate screen enabled), and Snapshot() renders it as the
// detect::Screen the analyzer reads. libvterm keeps its UTF-8 decoder state
// between writes, and this class also holds back an incomplete trailing
// sequence, so a glyph split across reads is never lost.
#pragma once

#include <memory>
#include <string_view>

#include "libagtcore/detect/analyzer.h"

struct VTerm;
struct VTermScreen;

namespace agt::screen {

class VtermScreen {
 public:
  VtermScreen(int rows, int cols);
  ~VtermScreen();
  VtermScreen(const VtermScreen&) = delete;
  VtermScreen& operator=(const VtermScreen&) = delete;

  /// Interprets output bytes. Anything libvterm would answer (DA, DSR
  /// replies) is discarded: the real terminal outside answers the child.
  /// APC, PM and SOS strings (ESC _ / ESC ^ / ESC X ... ST or BEL) are
  /// dropped first: a terminal shows nothing of them, and libvterm 0.1
  /// (Debian 12) would print their bodies (Claude Code 2.1.330 sends a Kitty
  /// graphics query as an APC).
  void Feed(std::string_view bytes);
  /// New size; content reflows as libvterm does it.
  void Resize(int rows, int cols);
  /// The visible screen as UTF-8 lines, trailing blanks trimmed.
  detect::Screen Snapshot() const;
  /// True when anything was drawn since the last Snapshot().
  bool dirty() const { return dirty_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  bool alt_screen() const { return alt_screen_; }

 private:
  friend struct VtermCallbacks;  // libvterm's C callbacks, in vterm_screen.cc

  struct VTermDeleter {
    void operator()(VTerm* vt) const;
  };
  std::unique_ptr<VTerm, VTermDeleter> vt_;
  VTermScreen* screen_ = nullptr;  // owned by vt_
  int rows_;
  int cols_;
  bool alt_screen_ = false;
  mutable bool dirty_ = true;
  char pending_[4] = {};  // an incomplete UTF-8 sequence from the last Feed
  size_t pending_len_ = 0;
  // Dropping APC/PM/SOS strings across reads: outside one, an ESC that
  // ended the last read (held back); inside one, and after an ESC in it.
  enum class StringState { kOutside, kOutsideEsc, kInside, kInsideEsc };
  StringState string_state_ = StringState::kOutside;
  void FeedUnfiltered(std::string_view bytes);
};

}  // namespace agt::screen
