// Parsing `$TMUX` and /proc/<pid>/stat into the tmux server's identity (see
// tmux_identity.h for why the boot id has this form).
#include "libagtcore/net/tmux_identity.h"

#include <charconv>

namespace agt::net {
namespace {

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

core::Result<TmuxEnv> ParseTmuxEnv(std::string_view value) {
  const size_t last = value.rfind(',');
  if (value.empty() || last == std::string_view::npos || last == 0)
    return core::MakeError(core::Err::kPayloadInvalid,
                           "$TMUX: expected \"socket,pid,session\", got \"" +
                               std::string(value) + "\"");
  const size_t mid = value.rfind(',', last - 1);
  if (mid == std::string_view::npos || mid == 0)
    return core::MakeError(core::Err::kPayloadInvalid,
                           "$TMUX: expected \"socket,pid,session\", got \"" +
                               std::string(value) + "\"");
  TmuxEnv env;
  env.socket_path = std::string(value.substr(0, mid));
  env.session = std::string(value.substr(last + 1));
  if (!ParseInt64(value.substr(mid + 1, last - mid - 1), &env.server_pid) ||
      env.server_pid <= 0)
    return core::MakeError(core::Err::kPayloadInvalid,
                           "$TMUX: field pid: \"" +
                               std::string(value.substr(mid + 1, last - mid - 1)) +
                               "\" is not a positive integer");
  return env;
}

core::Result<uint64_t> ParseProcStatStartTime(std::string_view stat) {
  const size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos)
    return core::MakeError(core::Err::kPayloadInvalid,
                           "/proc stat: no ')' closing the command name");
  // After ") " come fields 3, 4, ...; starttime is field 22, the 20th here.
  std::string_view rest = stat.substr(paren + 1);
  int field = 2;
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    if (i >= rest.size()) break;
    size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\n') ++j;
    ++field;
    if (field == 22) {
      uint64_t v = 0;
      auto [p, ec] = std::from_chars(rest.data() + i, rest.data() + j, v);
      if (ec != std::errc() || p != rest.data() + j)
        return core::MakeError(core::Err::kPayloadInvalid,
                               "/proc stat: field 22 (starttime) is not a number");
      return v;
    }
    i = j;
    if (i < rest.size() && rest[i] == '\n') break;
  }
  return core::MakeError(core::Err::kPayloadInvalid,
                         "/proc stat: fewer than 22 fields");
}

core::Result<std::string> TmuxServerBootId(int64_t server_pid, const core::FileReader& reader) {
  const std::string path = "/proc/" + std::to_string(server_pid) + "/stat";
  auto text = reader.Read(path);
  if (!text) return text.error();
  auto start = ParseProcStatStartTime(*text);
  if (!start) return core::MakeError(start.error().code, path + ": " + start.error().message);
  return std::to_string(server_pid) + "-" + std::to_string(*start);
}

}  // namespace agt::net
