// The control-mode line protocol: framing of command replies and
// notifications (see tmux_control.h). A block ends only at a %end/%error
// line carrying the same time and number as its %begin, so a captured line
// that happens to start with "%end" does not close the block early.
#include "aggregator/observe/tmux_control.h"

namespace agt::agg {
namespace {

/// Splits "%begin 1795318505 306 1" into guard ("1795318505 306") and flags.
bool SplitGuard(std::string_view rest, std::string_view* guard, std::string_view* flags) {
  size_t a = rest.find(' ');
  if (a == std::string_view::npos) return false;
  size_t b = rest.find(' ', a + 1);
  if (b == std::string_view::npos) {
    *guard = rest;
    *flags = {};
  } else {
    *guard = rest.substr(0, b);
    *flags = rest.substr(b + 1);
  }
  return true;
}

}  // namespace

void ControlParser::Feed(std::string_view bytes) {
  size_t start = 0;
  while (start < bytes.size()) {
    size_t nl = bytes.find('\n', start);
    if (nl == std::string_view::npos) {
      partial_.append(bytes.substr(start));
      return;
    }
    if (partial_.empty()) {
      Line(bytes.substr(start, nl - start));
    } else {
      partial_.append(bytes.substr(start, nl - start));
      std::string line = std::move(partial_);
      partial_.clear();
      Line(line);
    }
    start = nl + 1;
  }
}

void ControlParser::Line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (in_block_) {
    bool is_end = line.starts_with("%end ");
    bool is_err = line.starts_with("%error ");
    if (is_end || is_err) {
      std::string_view guard, flags;
      if (SplitGuard(line.substr(is_end ? 5 : 7), &guard, &flags) && guard == block_guard_) {
        in_block_ = false;
        if (block_is_reply_) replies_.push_back(ControlReply{is_end, std::move(block_text_), notes_.size()});
        block_text_.clear();
        return;
      }
    }
    if (block_has_line_) block_text_ += '\n';
    block_text_.append(line);
    block_has_line_ = true;
    return;
  }
  if (line.starts_with("%begin ")) {
    std::string_view guard, flags;
    if (!SplitGuard(line.substr(7), &guard, &flags)) return;
    in_block_ = true;
    block_guard_ = std::string(guard);
    // Only bit 0 matters; unsigned, so that a flags field of any length
    // wraps instead of overflowing (the parity survives the wrap).
    unsigned f = 0;
    for (char c : flags) {
      if (c < '0' || c > '9') break;
      f = f * 10u + static_cast<unsigned>(c - '0');
    }
    block_is_reply_ = (f & 1) != 0;
    block_text_.clear();
    block_has_line_ = false;
    return;
  }
  if (line.size() < 2 || line[0] != '%') return;  // stray text: ignore
  ControlNotification n;
  std::string_view body = line.substr(1);
  size_t sp = body.find(' ');
  n.name = std::string(body.substr(0, sp));
  // A guard line that is not a well-formed block start is noise.
  if (n.name == "begin" || n.name == "end" || n.name == "error") return;
  if (sp != std::string_view::npos) n.args = std::string(body.substr(sp + 1));
  if (n.name == "output" || n.name == "extended-output" || n.name == "pause" || n.name == "continue") {
    std::string_view a = n.args;
    size_t e = a.find(' ');
    n.pane_id = std::string(a.substr(0, e));
  }
  notes_.push_back(std::move(n));
}

std::vector<ControlReply> ControlParser::TakeReplies() {
  std::vector<ControlReply> r;
  r.swap(replies_);
  return r;
}

std::vector<ControlNotification> ControlParser::TakeNotifications() {
  std::vector<ControlNotification> r;
  r.swap(notes_);
  return r;
}

std::string UnescapeOutput(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    auto oct = [&](size_t k) { return k < data.size() && data[k] >= '0' && data[k] <= '7'; };
    if (data[i] == '\\' && oct(i + 1) && oct(i + 2) && oct(i + 3)) {
      out += char((data[i + 1] - '0') * 64 + (data[i + 2] - '0') * 8 + (data[i + 3] - '0'));
      i += 3;
    } else {
      out += data[i];
    }
  }
  return out;
}

}  // namespace agt::agg
