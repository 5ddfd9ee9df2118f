// Agent identification from process names and command lines (see
// identify_agent.h). Order: a wrapper is never an observed runtime; editors
// and pagers are excluded even when their arguments name an agent (a file
// called codex.rs open in vim is not Codex); then the process name, Claude
// Code's version-number name, and for node/bun/deno the script path.
#include "aggregator/identify_agent.h"

#include <unistd.h>

#include <charconv>

#include "libagtcore/net/tmux_identity.h"

namespace agt::agg {
namespace {

std::string_view Basename(std::string_view p) {
  size_t s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

bool IsVersionNumber(std::string_view s) {
  int dots = 0;
  bool digit = false;
  for (char c : s) {
    if (c == '.') {
      if (!digit) return false;
      ++dots;
      digit = false;
    } else if (c >= '0' && c <= '9') {
      digit = true;
    } else {
      return false;
    }
  }
  return dots == 2 && digit;
}

constexpr std::string_view kExcluded[] = {
    "vi", "vim", "nvim", "view", "gvim", "emacs", "nano", "micro", "helix", "hx",
    "kak", "less", "more", "most", "man", "bat", "ranger", "nnn", "lf", "mc",
    "yazi", "code", "tail", "cat", "grep", "rg", "git", "tig", "lazygit"};

/// Agent type from one program name, or empty.
std::string_view FromName(std::string_view name) {
  name = Basename(name);
  if (name == "claude") return "claude";
  if (name == "codex") return "codex";
  if (name == "gemini") return "gemini";
  if (name == "copilot") return "copilot";
  if (name == "cursor-agent") return "cursor";
  if (name == "opencode") return "opencode";
  if (IsVersionNumber(name)) return "claude";  // Claude Code sets its title to its version
  return {};
}

/// Agent type from a node/bun script path.
std::string_view FromScript(std::string_view arg) {
  if (arg.find("@anthropic-ai/claude-code") != std::string_view::npos) return "claude";
  if (arg.find("@openai/codex") != std::string_view::npos) return "codex";
  if (arg.find("@google/gemini-cli") != std::string_view::npos) return "gemini";
  if (arg.find("@github/copilot") != std::string_view::npos) return "copilot";
  if (arg.find("opencode-ai") != std::string_view::npos) return "opencode";
  return FromName(arg);
}

bool IsExcluded(std::string_view name) {
  name = Basename(name);
  for (auto e : kExcluded)
    if (name == e) return true;
  return false;
}

bool IsRuntimeHost(std::string_view name) {
  name = Basename(name);
  return name == "node" || name == "bun" || name == "deno" || name.starts_with("node");
}

}  // namespace

core::Result<int64_t> ForegroundPgid(int64_t pane_pid, const net::FileReader& files) {
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

core::Result<ProcessView> ForegroundProcess(int64_t pane_pid, const net::FileReader& files) {
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

core::TimeNs ProcessStartTime(int64_t pid, const net::FileReader& files) {
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

AgentIdentity IdentifyAgent(std::string_view current_command, const ProcessView* fg) {
  AgentIdentity id;
  std::string_view name = fg ? std::string_view(fg->comm) : current_command;
  std::string_view argv0 = fg && !fg->argv.empty() ? std::string_view(fg->argv[0]) : name;
  if (fg && (Basename(argv0) == "agtmux" || name == "agtmux") && fg->argv.size() >= 2 &&
      fg->argv[1] == "wrap") {
    id.wrapped = true;
    for (size_t i = 2; i < fg->argv.size(); ++i) {
      if (fg->argv[i] == "--") continue;
      if (fg->argv[i].starts_with("-")) continue;
      id.agent_type = std::string(FromName(fg->argv[i]));
      break;
    }
    return id;
  }
  if (IsExcluded(name) || IsExcluded(argv0)) return id;
  if (auto t = FromName(name); !t.empty()) {
    id.agent_type = std::string(t);
    return id;
  }
  if (auto t = FromName(argv0); !t.empty() && !IsRuntimeHost(argv0)) {
    id.agent_type = std::string(t);  // exec -a claude ..., a renamed launcher
    return id;
  }
  if (fg && (IsRuntimeHost(name) || IsRuntimeHost(argv0))) {
    for (size_t i = 1; i < fg->argv.size(); ++i) {
      const std::string& a = fg->argv[i];
      if (a.starts_with("-")) continue;
      id.agent_type = std::string(FromScript(a));
      break;  // only the script argument names the program
    }
  }
  return id;
}

}  // namespace agt::agg
