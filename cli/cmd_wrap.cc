// `agtmux wrap`: run an agent (or any command) under the PTY proxy, or
// replay a recording through the same analysis path.
//   agtmux wrap [--record FILE.cast] [--agent TYPE] <agent> [args...]
//   agtmux wrap [--record FILE.cast] [--agent TYPE] -- <command> [args...]
//   agtmux wrap --replay FILE.cast [--agent TYPE]
// Everything after the agent name (or after "--") belongs to the child and
// is passed byte for byte: CLI11 stops parsing there (prefix_command).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "libagtcore/config.h"
#include "libagtcore/file_reader.h"
#include "libagtcore/paths.h"
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
  std::vector<std::string> after_dashdash;
};

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
  return wrap::RunProxy(o);
}

}  // namespace

CommandSpec WrapCommand() {
  return {"wrap", "Run an agent under agtmux's PTY proxy (or replay a recording)",
          [](CLI::App* sub) -> Runner {
            auto args = std::make_shared<WrapArgs>();
            // Without "--", the first word that is not a wrap option ends
            // parsing and it and everything after it land in remaining()
            // (prefix_command). With "--", CLI11 would hand the words back
            // to the root app unless a positional takes them; this one only
            // accepts words once "--" has been seen (it is then the first
            // "missing" item), so the two forms never mix.
            sub->prefix_command();
            sub->allow_extras();
            sub->validate_positionals();
            sub->add_option("command", args->after_dashdash, "The command to run")
                ->check(CLI::Validator(
                    [sub](std::string&) -> std::string {
                      const auto rest = sub->remaining();
                      return !rest.empty() && rest.front() == "--" ? "" : "not after --";
                    },
                    "", "after --"));
            sub->add_option("--record", args->record,
                            "Record the session as asciicast v2 to this file");
            sub->add_option("--replay", args->replay,
                            "Replay a .cast recording and print the state timeline");
            sub->add_option("--agent", args->agent,
                            "Agent type for analysis (default: the command's basename)");
            sub->add_flag("--no-events", args->no_events,
                          "Do not report to agtmuxd (passthrough and recording only)");
            return [args, sub] {
              if (!args->replay.empty()) return RunReplay(*args);
              if (!args->after_dashdash.empty()) return RunWrap(*args, args->after_dashdash);
              return RunWrap(*args, sub->remaining());
            };
          }};
}

}  // namespace agt::cli
