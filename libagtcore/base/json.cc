// Depth-capped, iterative JSON parsing (see json.h). The depth scan is a
// byte loop with two bits of state (in a string, after a backslash), so it
// costs about as much as a memchr over the text and cannot itself be driven
// into recursion.
#include "libagtcore/base/json.h"

#include <rapidjson/error/en.h>

#include <string>

namespace agt::core {

size_t JsonDepthExceeded(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > max_depth) return i;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return std::string_view::npos;
}

Status ParseJson(std::string_view text, rapidjson::Document* doc, const JsonOptions& options) {
  if (size_t at = JsonDepthExceeded(text, options.max_depth); at != std::string_view::npos)
    return MakeError(Err::kPayloadInvalid, "JSON nested deeper than " + std::to_string(options.max_depth) +
                                               " levels (at offset " + std::to_string(at) + ")");
  constexpr unsigned kBase = rapidjson::kParseIterativeFlag;
  if (options.comments && options.validate_utf8) {
    doc->Parse<kBase | rapidjson::kParseCommentsFlag | rapidjson::kParseValidateEncodingFlag>(text.data(),
                                                                                             text.size());
  } else if (options.comments) {
    doc->Parse<kBase | rapidjson::kParseCommentsFlag>(text.data(), text.size());
  } else if (options.validate_utf8) {
    doc->Parse<kBase | rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
  } else {
    doc->Parse<kBase>(text.data(), text.size());
  }
  if (doc->HasParseError())
    return MakeError(Err::kPayloadInvalid, "invalid JSON at offset " + std::to_string(doc->GetErrorOffset()) +
                                               ": " + rapidjson::GetParseError_En(doc->GetParseError()));
  return Ok();
}

}  // namespace agt::core
