// JSON from outside the process (HTTP bodies, hook payloads, Codex notify,
// spool lines, cast files, the daemon's answers, the agents' settings): the
// one way agtmux parses it. RapidJSON's default parser recurses once per
// nesting level, so a few hundred kilobytes of `[` overflow the stack; every
// parse here first measures the nesting (one linear pass that never
// recurses) and refuses text nested deeper than a cap, then parses with
// kParseIterativeFlag. With the depth bounded, code that walks the document
// recursively afterwards (decoders, writers) is bounded too.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::core {

/// Deeper than any event, hook payload or settings file agtmux has met
/// (they stay below 20).
inline constexpr int kMaxJsonDepth = 64;

struct JsonOptions {
  int max_depth = kMaxJsonDepth;
  bool comments = false;       // accept // and /* */ comments (settings files)
  bool validate_utf8 = false;  // refuse strings that are not UTF-8
};

/// The byte offset at which `text` opens its (max_depth+1)-th nested array
/// or object, or npos when it stays within `max_depth`. Strings (escapes
/// included) are skipped; the text need not be valid JSON.
size_t JsonDepthExceeded(std::string_view text, int max_depth);

/// Parses `text` into `*doc`. E_PAYLOAD_INVALID "JSON nested deeper than N
/// levels (at offset B)" or "invalid JSON at offset B: <why>"; `*doc` is then
/// unspecified. Callers that report another code re-wrap the message.
Status ParseJson(std::string_view text, rapidjson::Document* doc, const JsonOptions& options = {});

}  // namespace agt::core
