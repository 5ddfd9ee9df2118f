// ParseToml: the one catch of toml::parse_error (see toml_parse.h).
#include "libagtcore/base/toml_parse.h"

#include <exception>
#include <string>

namespace agt::core {

Result<toml::table> ParseToml(std::string_view text, std::string_view path, Err code) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const toml::source_position& b = e.source().begin;
    return MakeError(code, std::string(path) + ":" + std::to_string(b.line) + ":" +
                               std::to_string(b.column) +
                               ": TOML syntax error: " + std::string(e.description()));
  } catch (const std::exception& e) {
    return MakeError(code, std::string(path) + ": cannot parse: " + e.what());
  }
}

}  // namespace agt::core
