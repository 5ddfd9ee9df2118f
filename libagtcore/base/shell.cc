// Shell quoting (see shell.h).
#include "libagtcore/base/shell.h"

namespace agt::core {

std::string ShellQuote(std::string_view arg) {
  static constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_-+:,./";
  if (!arg.empty() && arg.find_first_not_of(kPlain) == std::string_view::npos) return std::string(arg);
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  return out + "'";
}

std::string ShellJoin(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + ShellQuote(a);
  return out;
}

}  // namespace agt::core
