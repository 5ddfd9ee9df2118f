// `agtmux wrap`: run an agent (or any command) under the PTY proxy, or
// replay a recording through the same analysis path.
//   agtmux wrap [--record FILE.cast] [--agent TYPE] <agent> [args...]
//   agtmux wrap [--record FILE.cast] [--agent TYPE] -- <command> [args...]
//   agtmux wrap --replay FILE.cast [--agent TYPE]
// Everything after the agent name (or after "--") belongs to the child and
// is passed byte for byte: those words are cut off before CLI11 parses
// (CommandSpec::own_words), since CLI11 would read "[a,b]" as a list and
// drop brackets.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/process_title.h"
#include "libagtcore/config.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/os/paths.h"
#include "wrap/analyzer_factory.h"
#include "wrap/asciicast.h"
#include "wrap/proxy.h"
#include "wrap/pty_child.h"
#include "wrap/replay.h"

namespace agt::cli {
namespace {

struct WrapArgs {
  std::string record;
  std::string replay;
  std::string agent;
  bool no_events = false;
};

// wrap's options that take a value (the others are flags).
constexpr const char* kValueOptions[] = {"--record", "--replay", "--agent"};

// How many of the words after "wrap" are wrap's own options: up to "--" or
// the first word that is neither an option nor an option's value. An
// unknown option counts as wrap's own, so that CLI11 names it.
size_t WrapOwnWords(const std::vector<std::string>& words) {
  size_t i = 0;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (w == "--" || w.empty() || w[0] != '-') return i;
    bool takes_value = false;
    for (const char* o : kValueOptions) takes_value = takes_value || w == o;
    i += takes_value ? 2 : 1;
  }
  return std::min(i, words.size());
}

std::string Basename(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

int RunReplay(const WrapArgs& a) {
  auto text = core::RealFileReader().Read(a.replay);
  if (!text) {
    std::fprintf(stderr, "agtmux wrap --replay: %s\n", text.error().message.c_str());
    return 1;
  }
  auto cast = wrap::ParseCast(*text);
  if (!cast) {
    std::fprintf(stderr, "agtmux wrap --replay: %s: %s\n", a.replay.c_str(),
                 cast.error().message.c_str());
    return 1;
  }
  const std::string agent = a.agent.empty() ? "generic" : a.agent;
  wrap::ReplayResult r = wrap::Replay(*cast, agent);
  std::printf("# %s: %zu events, %dx%d, agent %s\n", a.replay.c_str(), cast->events.size(),
              cast->header.width, cast->header.height, agent.c_str());
  std::fputs(wrap::FormatTimeline(r.timeline).c_str(), stdout);
  if (!r.signals.title.empty()) std::printf("# title: %s\n", r.signals.title.c_str());
  return 0;
}

int RunWrap(const WrapArgs& a, std::vector<std::string> argv) {
  if (!argv.empty() && argv.front() == "--") argv.erase(argv.begin());
  if (argv.empty()) {
    std::fprintf(stderr,
                 "agtmux wrap: missing the agent or command to run\n"
                 "usage: agtmux wrap <agent> [args...] | agtmux wrap -- <command> [args...]\n");
    return 2;
  }
  const char* path_var = std::getenv("PATH");
  auto exe = wrap::ResolveExecutable(argv.front(), path_var ? path_var : "/usr/bin:/bin");
  if (!exe) {
    std::fprintf(stderr, "agtmux wrap: %s\n", exe.error().message.c_str());
    return 127;
  }
  wrap::ProxyOptions o;
  o.exe_path = *exe;
  o.argv = std::move(argv);
  o.agent_type = a.agent.empty() ? Basename(o.argv.front()) : a.agent;
  o.record_path = a.record;
  o.emit_events = !a.no_events;
  // [wrap] timing from config.toml; a config that does not load is refused
  // with its error (file:line: key), as agtmuxd refuses it, before the
  // agent starts.
  if (auto paths = core::ResolvePaths(core::RealEnv())) {
    auto cfg = core::LoadConfig(paths->config_file);
    if (!cfg) {
      std::fprintf(stderr, "agtmux wrap: %s\n", cfg.error().ToString().c_str());
      return 2;
    }
    o.timing = wrap::AnalyzerTimingFor(cfg->wrap);
  }
  if (o.emit_events) {
    auto paths = core::ResolvePaths(core::RealEnv());
    if (paths) {
      o.socket_path = paths->socket_path;
      o.spool_dir = paths->spool_dir;
      o.screens_dir = paths->screens_dir;
    } else {
      o.emit_events = false;  // no HOME: the passthrough still works
    }
  }
  // tmux's automatic-rename then names the window after the agent, as it
  // would without the wrapper (cli/process_title.h).
  ShowAsCommand(Basename(o.argv.front()));
  return wrap::RunProxy(o);
}

}  // namespace

CommandSpec WrapCommand() {
  auto tail = std::make_shared<std::vector<std::string>>();
  return {"wrap", "Run an agent under agtmux's PTY proxy (or replay a recording)",
          [tail](CLI::App* sub) -> Runner {
            auto args = std::make_shared<WrapArgs>();
            sub->add_option(kValueOptions[0], args->record, "Record the session as asciicast v2 to this file");
            sub->add_option(kValueOptions[1], args->replay,
                            "Replay a .cast recording and print the state timeline");
            sub->add_option(kValueOptions[2], args->agent,
                            "Agent type for analysis (default: the command's basename)");
            sub->add_flag("--no-events", args->no_events, "Do not report to agtmuxd (passthrough and recording only)");
            sub->footer("Usage: agtmux wrap [options] <agent> [args...] | agtmux wrap [options] -- <command> [args...]");
            return [args, tail] {
              if (!args->replay.empty()) return RunReplay(*args);
              return RunWrap(*args, *tail);
            };
          },
          WrapOwnWords, tail};
}

}  // namespace agt::cli
