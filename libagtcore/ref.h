// The action ref grammar (docs/spec.md §11):
//   <ref>         ::= "runtime:" <runtime-id> | "pane:" <target> "/" <session-enc> "/@" <digits> "/%" <digits>
//   <runtime-id>  ::= [A-Za-z0-9._:-]{16,128}
//   <target>      ::= [A-Za-z0-9._-]+
//   <session-enc> ::= an RFC 3986 percent-encoded session name
// Parse failures give E_REF_INVALID, decode failures E_REF_INVALID_ENCODING.
#pragma once

#include <string>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::core {

struct Ref {
  enum class Kind { kRuntime, kPane } kind = Kind::kPane;
  std::string runtime_id;  // kRuntime
  std::string target;      // kPane
  std::string session;     // kPane, decoded
  std::string window_id;   // "@3"
  std::string pane_id;     // "%7"
  bool operator==(const Ref&) const = default;
};

Result<Ref> ParseRef(std::string_view text);
/// The canonical text of a ref (session percent-encoded).
std::string FormatRef(const Ref& ref);

/// RFC 3986: keeps unreserved chars (ALPHA DIGIT - . _ ~), encodes the rest
/// as %XX upper-case.
std::string PercentEncode(std::string_view raw);
/// Strict: a '%' not followed by two hex digits, or a result that is not
/// valid UTF-8, is E_REF_INVALID_ENCODING. So is a NUL byte, raw or %00:
/// no name agtmux handles contains one, and C APIs would cut it there.
Result<std::string> PercentDecode(std::string_view enc);

/// `--target-session <target>/<session-enc>`.
struct TargetSession {
  std::string target;
  std::string session;
};
Result<TargetSession> ParseTargetSession(std::string_view text);

}  // namespace agt::core
