// Agent identification for a pane (see pane_agent.h). Order: a wrapper
// is never an observed runtime; then detect::Identify on the foreground
// process's own name, its cmdline and the title (exclusions, process names,
// Claude Code's version-number name, node/bun script paths, title glyphs);
// then, for a process started under another argv[0], the same on that name.
#include "aggregator/observe/pane_agent.h"

#include <unistd.h>

#include <charconv>

#include "libagtcore/detect/identify.h"
#include "libagtcore/net/tmux_identity.h"

namespace agt::agg {
namespace {

std::string_view Basename(std::string_view p) {
  size_t s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

}  // namespace

core::Result<int64_t> ForegroundPgid(int64_t pane_pid, const core::FileReader& files) {
  const std::string path = "/proc/" + std::to_string(pane_pid) + "/stat";
  auto stat = files.Read(path);
  if (!stat) return stat.error();
  // Field 8 (tpgid) counted after the last ')' (comm may contain spaces).
  std::string_view s = *stat;
  size_t paren = s.rfind(')');
  if (paren == std::string_view::npos)
    return core::MakeError(core::Err::kPayloadInvalid, path + ": no ')' after the command name");
  s = s.substr(paren + 1);
  int field = 2;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\n') ++j;
    if (j == i) break;
    if (++field == 8) {
      int64_t tpgid = 0;
      auto [p, ec] = std::from_chars(s.data() + i, s.data() + j, tpgid);
      if (ec != std::errc() || p != s.data() + j)
        return core::MakeError(core::Err::kPayloadInvalid, path + ": field 8 (tpgid) is not a number");
      return tpgid;
    }
    i = j;
  }
  return core::MakeError(core::Err::kPayloadInvalid, path + ": fewer than 8 fields");
}

core::Result<ProcessView> ForegroundProcess(int64_t pane_pid, const core::FileReader& files) {
  const std::string base = "/proc/" + std::to_string(pane_pid);
  auto pg = ForegroundPgid(pane_pid, files);
  if (!pg) return pg.error();
  const int64_t tpgid = *pg;
  ProcessView v;
  v.pid = tpgid > 0 ? tpgid : pane_pid;
  const std::string fg = "/proc/" + std::to_string(v.pid);
  auto comm = files.Read(fg + "/comm");
  if (!comm && v.pid != pane_pid) {  // the group leader exited: fall back
    v.pid = pane_pid;
    comm = files.Read(base + "/comm");
  }
  if (!comm) return comm.error();
  v.comm = *comm;
  while (!v.comm.empty() && v.comm.back() == '\n') v.comm.pop_back();
  auto cmdline = files.Read("/proc/" + std::to_string(v.pid) + "/cmdline");
  if (cmdline) {
    std::string_view c = *cmdline;
    size_t st = 0;
    while (st < c.size()) {
      size_t z = c.find('\0', st);
      if (z == std::string_view::npos) z = c.size();
      v.argv.emplace_back(c.substr(st, z - st));
      st = z + 1;
    }
  }
  v.started_at = ProcessStartTime(v.pid, files);
  return v;
}

core::TimeNs ProcessStartTime(int64_t pid, const core::FileReader& files) {
  auto stat = files.Read("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return 0;
  auto ticks = net::ParseProcStatStartTime(*stat);
  if (!ticks) return 0;
  auto sys = files.Read("/proc/stat");
  if (!sys) return 0;
  size_t at = sys->find("btime ");
  if (at == std::string::npos) return 0;
  int64_t btime = 0;
  const char* b = sys->data() + at + 6;
  std::from_chars(b, sys->data() + sys->size(), btime);
  static const long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0 || btime <= 0) return 0;
  return btime * core::kNsPerSec + core::TimeNs(*ticks) * (core::kNsPerSec / hz);
}

PaneAgent IdentifyAgent(std::string_view current_command, const ProcessView* fg,
                            std::string_view title) {
  PaneAgent id;
  std::string_view name = fg ? std::string_view(fg->comm) : current_command;
  std::string_view argv0 = fg && !fg->argv.empty() ? std::string_view(fg->argv[0]) : name;
  if (fg && (Basename(argv0) == "agtmux" || name == "agtmux") && fg->argv.size() >= 2 &&
      fg->argv[1] == "wrap") {
    id.wrapped = true;
    for (size_t i = 2; i < fg->argv.size(); ++i) {
      if (fg->argv[i] == "--" || fg->argv[i].starts_with("-")) continue;
      if (auto t = detect::Identify(Basename(fg->argv[i]), "", "")) id.agent_type = *t;
      break;
    }
    // The wrapper writes its agent's name over argv[0] and cuts the
    // arguments when that name is the longer (cli/process_title.h).
    if (id.agent_type.empty() && Basename(argv0) != "agtmux")
      if (auto t = detect::Identify(Basename(argv0), "", "")) id.agent_type = *t;
    return id;
  }
  std::string cmdline;
  if (fg)
    for (size_t i = 0; i < fg->argv.size(); ++i) {
      if (i) cmdline += '\0';
      cmdline += fg->argv[i];
    }
  if (auto t = detect::Identify(name, cmdline, title)) {
    id.agent_type = *t;
    return id;
  }
  if (fg && Basename(argv0) != name && !Basename(argv0).empty()) {
    if (auto t = detect::Identify(Basename(argv0), cmdline, "")) id.agent_type = *t;
  }
  return id;
}

}  // namespace agt::agg
