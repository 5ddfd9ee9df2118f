// Text that came from an agent, made safe to leave agtmux (issue 25): an
// agent's screen, its terminal title and its hook input are
// attacker-controlled (a repository can make an agent print anything), and
// file names, commands and questions travel from there into what agtmux
// prints on a terminal and hands to programs. VisibleText is the one output
// discipline for that text, applied where it leaves: the CLI's tables and
// explain, `patterns test`/`doctor`, the notifier's environment, message and
// webhook body.
//
// What it does: every control character becomes visible caret notation
// (ESC `^[`, BEL `^G`, CR `^M`, BS `^H`, DEL `^?`; a C1 control U+0080..U+009F
// as `<U+009B>`), so no escape sequence, OSC 52 clipboard write, title
// change or carriage-return overdraw reaches a terminal; the bidirectional
// overrides and isolates (U+202A..U+202E, U+2066..U+2069) become `<U+202E>`
// so text cannot be reordered on screen; ill-formed UTF-8 becomes U+FFFD.
// Newlines become `^J` unless the caller keeps them (multi-line text such as
// a question); a tab becomes a space. Everything else, any script and emoji
// included, passes unchanged. Applying it twice changes nothing more.
#pragma once

#include <string>
#include <string_view>

namespace agt::core {

struct VisibleOptions {
  bool keep_newlines = false;  // LF stays a line break (CR, and CR LF, still show as ^M)
};

/// `s` safe to print on a terminal or pass to a program (see above).
std::string VisibleText(std::string_view s, VisibleOptions options = {});

/// True when VisibleText would change `s` (a test's and a caller's quick check).
bool NeedsVisible(std::string_view s, VisibleOptions options = {});

}  // namespace agt::core
