// The action ref grammar of docs/spec.md §11 and the RFC 3986 percent-encoding of
// session names inside it. Refs name what an action acts on, so the parser
// is strict and its errors say which part is wrong: E_REF_INVALID for a
// malformed ref, E_REF_INVALID_ENCODING for a session name whose escapes
// are broken or that does not decode to valid UTF-8.
#include "libagtcore/ref.h"

#include <cstdio>
#include <vector>

#include "libagtcore/base/utf8.h"

namespace agt::core {
namespace {

constexpr std::string_view kRuntimePrefix = "runtime:";
constexpr std::string_view kPanePrefix = "pane:";
constexpr std::string_view kPaneForm = "pane:<target>/<session-enc>/@<window>/%<pane>";

bool IsAlnum(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsUnreserved(char c) {
  return IsAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
/// RFC 3986 pchar minus pct-encoded: what may appear raw in a path segment.
bool IsRawSegmentChar(char c) {
  if (IsUnreserved(c)) return true;
  switch (c) {
    case '!': case '$': case '&': case '\'': case '(': case ')':
    case '*': case '+': case ',': case ';': case '=': case ':': case '@':
      return true;
    default:
      return false;
  }
}
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

Error RefError(std::string_view ref, std::string_view why) {
  return MakeError(Err::kRefInvalid, "ref " + Quote(ref) + ": " + std::string(why));
}

/// Describes a byte for an error message: 'x' or 0xNN.
std::string DescribeChar(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  if (c == ' ') return "a space";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
  return buf;
}

Status CheckTarget(std::string_view ref, std::string_view target) {
  if (target.empty()) return RefError(ref, "target is empty");
  for (size_t i = 0; i < target.size(); ++i) {
    char c = target[i];
    if (!IsAlnum(c) && c != '.' && c != '_' && c != '-')
      return RefError(ref, "target " + Quote(target) + " has " + DescribeChar(c) +
                               " at offset " + std::to_string(i) +
                               "; allowed: A-Z a-z 0-9 . _ -");
  }
  return Ok();
}

/// "@12" / "%7": the sigil then one or more digits (at most 10).
Status CheckTmuxId(std::string_view ref, std::string_view part, char sigil,
                   std::string_view what) {
  std::string want = std::string(1, sigil) + "<digits>";
  if (part.empty() || part[0] != sigil)
    return RefError(ref, std::string(what) + " " + Quote(part) + " must be " + want);
  std::string_view digits = part.substr(1);
  if (digits.empty() || digits.size() > 10)
    return RefError(ref, std::string(what) + " " + Quote(part) + " must be " + want);
  for (char c : digits) {
    if (c < '0' || c > '9')
      return RefError(ref, std::string(what) + " " + Quote(part) + " must be " + want);
  }
  return Ok();
}

/// Decodes a session segment: raw chars must be RFC 3986 pchars, escapes
/// well-formed, the result valid UTF-8 without NUL bytes, and not empty.
Result<std::string> DecodeSession(std::string_view ref, std::string_view enc) {
  if (enc.empty()) return RefError(ref, "session is empty");
  for (size_t i = 0; i < enc.size(); ++i) {
    char c = enc[i];
    if (c != '%' && !IsRawSegmentChar(c))
      return MakeError(Err::kRefInvalidEncoding,
                       "ref " + Quote(ref) + ": session has " + DescribeChar(c) +
                           " at offset " + std::to_string(i) +
                           " that must be percent-encoded (RFC 3986)");
  }
  Result<std::string> dec = PercentDecode(enc);
  if (!dec.ok())
    return MakeError(Err::kRefInvalidEncoding,
                     "ref " + Quote(ref) + ": session " + dec.error().message);
  return dec;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

}  // namespace

Result<Ref> ParseRef(std::string_view text) {
  Ref ref;
  if (text.substr(0, kRuntimePrefix.size()) == kRuntimePrefix) {
    std::string_view id = text.substr(kRuntimePrefix.size());
    if (id.size() < 16 || id.size() > 128)
      return RefError(text, "runtime id must be 16 to 128 characters, got " +
                                std::to_string(id.size()));
    for (size_t i = 0; i < id.size(); ++i) {
      char c = id[i];
      if (!IsAlnum(c) && c != '.' && c != '_' && c != ':' && c != '-')
        return RefError(text, "runtime id has " + DescribeChar(c) + " at offset " +
                                  std::to_string(i) + "; allowed: A-Z a-z 0-9 . _ : -");
    }
    ref.kind = Ref::Kind::kRuntime;
    ref.runtime_id = std::string(id);
    return ref;
  }
  if (text.substr(0, kPanePrefix.size()) != kPanePrefix)
    return RefError(text, "must start with \"runtime:\" or \"pane:\"");
  std::vector<std::string_view> parts = Split(text.substr(kPanePrefix.size()), '/');
  if (parts.size() != 4) {
    std::string why = "expected " + std::string(kPaneForm) + ", got " +
                      std::to_string(parts.size()) + " '/'-separated parts";
    if (parts.size() > 4) why += " (a '/' in a session name must be written %2F)";
    return RefError(text, why);
  }
  if (Status st = CheckTarget(text, parts[0]); !st.ok()) return st.error();
  Result<std::string> session = DecodeSession(text, parts[1]);
  if (!session.ok()) return session.error();
  if (Status st = CheckTmuxId(text, parts[2], '@', "window"); !st.ok()) return st.error();
  if (Status st = CheckTmuxId(text, parts[3], '%', "pane"); !st.ok()) return st.error();
  ref.kind = Ref::Kind::kPane;
  ref.target = std::string(parts[0]);
  ref.session = std::move(session).value();
  ref.window_id = std::string(parts[2]);
  ref.pane_id = std::string(parts[3]);
  return ref;
}

std::string FormatRef(const Ref& ref) {
  if (ref.kind == Ref::Kind::kRuntime) return std::string(kRuntimePrefix) + ref.runtime_id;
  return std::string(kPanePrefix) + ref.target + "/" + PercentEncode(ref.session) + "/" +
         ref.window_id + "/" + ref.pane_id;
}

std::string PercentEncode(std::string_view raw) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    if (IsUnreserved(c)) {
      out.push_back(c);
    } else {
      auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xf]);
    }
  }
  return out;
}

Result<std::string> PercentDecode(std::string_view enc) {
  std::string out;
  out.reserve(enc.size());
  for (size_t i = 0; i < enc.size(); ++i) {
    if (enc[i] == '\0')
      return MakeError(Err::kRefInvalidEncoding,
                       Quote(enc) + ": a NUL byte at offset " + std::to_string(i));
    if (enc[i] != '%') {
      out.push_back(enc[i]);
      continue;
    }
    int hi = i + 1 < enc.size() ? HexValue(enc[i + 1]) : -1;
    int lo = i + 2 < enc.size() ? HexValue(enc[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      return MakeError(Err::kRefInvalidEncoding,
                       Quote(enc) + ": '%' at offset " + std::to_string(i) +
                           " is not followed by two hex digits");
    char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0')
      return MakeError(Err::kRefInvalidEncoding,
                       Quote(enc) + ": %00 at offset " + std::to_string(i) +
                           " decodes to a NUL byte");
    out.push_back(c);
    i += 2;
  }
  size_t bad = 0;
  if (!IsValidUtf8(out, &bad))
    return MakeError(Err::kRefInvalidEncoding,
                     Quote(enc) + ": decodes to invalid UTF-8 (byte " +
                         std::to_string(bad) + " of the decoded text)");
  return out;
}

Result<TargetSession> ParseTargetSession(std::string_view text) {
  std::vector<std::string_view> parts = Split(text, '/');
  if (parts.size() != 2)
    return RefError(text, "expected <target>/<session-enc> (a '/' in a session name "
                          "must be written %2F)");
  if (Status st = CheckTarget(text, parts[0]); !st.ok()) return st.error();
  Result<std::string> session = DecodeSession(text, parts[1]);
  if (!session.ok()) return session.error();
  return TargetSession{std::string(parts[0]), std::move(session).value()};
}

}  // namespace agt::core
