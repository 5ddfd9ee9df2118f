// `agtmux hook claude|gemini` (payload on stdin) and `agtmux hook
// codex-notify [--chain PROGRAM ARGS...] JSON` (payload as the last
// argument): the receivers that agents' hooks and Codex's notify call.
//
// Whatever happens, a hook must not disturb the agent: it prints nothing,
// exits 0, and is fast. The event goes to agtmuxd over its socket with
// short deadlines; when the daemon is down or slow it goes to the spool,
// which the daemon drains when it starts; when the spool cannot take it
// either, the loss is counted in the spool's drop record. Its payload and
// evidence are redacted first (its raw payload cut to 4 KiB): no secret
// reaches the socket or the spool file. Problems are appended to
// <state_dir>/hook.log instead of being shown to the agent.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/hook/hook_payload.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/event_codec.h"
#include "libagtcore/event_redact.h"
#include "libagtcore/ids.h"
#include "libagtcore/net/spool.h"
#include "libagtcore/net/tmux_identity.h"
#include "libagtcore/net/unix_http_client.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/os/run_argv.h"
#include "libagtcore/redact.h"
#include "libagtcore/base/timefmt.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::cli {
namespace {

constexpr size_t kMaxPayload = 1 << 20;
constexpr size_t kMaxRawPayload = 4096;  // what the event keeps of it

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void LogProblem(const core::Paths* paths, const std::string& what) {
  if (!paths) return;
  if (!core::EnsureDir(paths->state_dir, 0700).ok()) return;
  std::string line = core::FormatRfc3339(core::SystemClock::Get().Now()) + " hook: " + what + "\n";
  core::UniqueFd fd(open((paths->state_dir + "/hook.log").c_str(),
                          O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return;
  ssize_t n = write(fd.get(), line.data(), line.size());
  (void)n;
}

std::string ReadStdin() {
  std::string data;
  char buf[65536];
  while (data.size() < kMaxPayload) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

// Runs the user's own notify program with Codex's JSON appended, detached
// (core::SpawnDetached) so that it neither delays nor outlives-as-zombie the
// hook; its stdin, stdout and stderr are /dev/null.
void RunChained(const std::vector<std::string>& chain, const std::string& json) {
  if (chain.empty()) return;
  std::vector<std::string> args = chain;
  args.push_back(json);
  (void)core::SpawnDetached(args);
}

// Delivers `e` to the daemon, or spools it. Returns a problem, "" on success.
std::string Deliver(const core::Paths& paths, const core::Event& e) {
  const std::string body = core::EncodeEvent(e);
  net::UnixHttpClientOptions opts;
  opts.socket_path = paths.socket_path;
  opts.connect_timeout = 200 * core::kNsPerMs;
  opts.read_timeout = 1 * core::kNsPerSec;
  net::HttpRequest req;
  req.method = "POST";
  req.path = "/v1/events";
  req.content_type = "application/json";
  req.body = body;
  auto resp = net::HttpCall(opts, req);
  std::string problem;
  if (resp.ok() && resp->status == 200) return "";
  if (resp.ok() && resp->status >= 400 && resp->status < 500) {
    // The daemon understood and refused it: spooling would not help.
    return "daemon refused the event: " + net::ApiErrorFromResponse(*resp).ToString();
  }
  problem = resp.ok() ? "daemon answered HTTP " + std::to_string(resp->status)
                      : resp.error().ToString();
  net::SpoolName name{"hook", static_cast<int64_t>(getpid()),
                      core::NewUlid(core::SystemClock::Get().Now())};
  auto writer = net::SpoolWriter::Open(paths.spool_dir, name);
  core::Status spooled = writer.ok() ? (*writer)->Append(body) : core::Status(writer.error());
  if (spooled.ok()) return "";  // spooled: the daemon drains it when it starts
  if (writer.ok()) (void)net::DeleteSpoolFile((*writer)->path());  // nothing in it
  problem += "; spooling failed: " + spooled.error().ToString() + "; the event is lost";
  if (auto st = net::WriteDropRecord(paths.spool_dir, name, 1); !st)
    problem += " (and could not be counted: " + st.error().ToString() + ")";
  return problem;
}

int RunHook(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fprintf(stderr, "agtmux hook: expected claude, gemini or codex-notify\n");
    return 2;
  }
  auto kind = ParseHookKind(args[0]);
  if (!kind) {
    std::fprintf(stderr,
                 "agtmux hook: unknown hook kind \"%s\" (expected claude, gemini or codex-notify)\n",
                 args[0].c_str());
    return 2;
  }
  auto paths = core::ResolvePaths(core::RealEnv());
  const core::Paths* p = paths.ok() ? &*paths : nullptr;

  std::string payload;
  std::vector<std::string> chain;
  if (*kind == HookKind::kCodexNotify) {
    // codex-notify [--chain PROGRAM ARGS...] JSON: Codex appends the JSON.
    if (args.size() < 2) {
      LogProblem(p, "codex-notify called without a JSON argument");
      return 0;
    }
    payload = args.back();
    if (args.size() > 2 && args[1] == "--chain")
      chain.assign(args.begin() + 2, args.end() - 1);
  } else {
    payload = ReadStdin();
  }

  HookContext ctx;
  ctx.runtime_id = Env("AGTMUX_RUNTIME_ID");
  ctx.tmux_pane = Env("TMUX_PANE");
  if (auto tmux = net::ParseTmuxEnv(Env("TMUX"))) ctx.tmux_socket = tmux->socket_path;
  ctx.now = core::SystemClock::Get().Now();
  if (*kind == HookKind::kClaude) {
    std::string transcript = TranscriptPath(payload);
    struct stat st{};
    if (!transcript.empty() && stat(transcript.c_str(), &st) == 0)
      ctx.transcript_size = static_cast<int64_t>(st.st_size);
  }

  auto event = NormalizeHook(*kind, payload, ctx);
  if (!event.ok()) {
    if (event.error().code != core::Err::kUnbound)  // outside tmux: nothing to report
      LogProblem(p, args[0] + ": " + event.error().ToString());
  } else if (!p) {
    LogProblem(p, paths.error().ToString());
  } else {
    // Redacted before it leaves this process, to the daemon or the spool
    // (docs/store.md, Redaction).
    auto redactor = core::Redactor::LoadBuiltin();
    if (!redactor.ok()) LogProblem(p, "redaction rules: " + redactor.error().ToString() + " (raw payload dropped)");
    core::EventCaps caps;
    caps.raw_payload = kMaxRawPayload;
    core::RedactEvent(redactor.ok() ? &*redactor : nullptr, &*event, caps);
    std::string problem = Deliver(*p, *event);
    if (!problem.empty()) LogProblem(p, args[0] + " " + event->event_type + ": " + problem);
  }
  RunChained(chain, payload);
  return 0;
}

}  // namespace

CommandSpec HookCommand() {
  return {"hook",
          "Receive an agent hook (claude|gemini on stdin) or Codex notify (codex-notify JSON)",
          [](CLI::App* sub) -> Runner {
            sub->prefix_command();
            sub->allow_extras();
            return [sub] { return RunHook(sub->remaining()); };
          }};
}

}  // namespace agt::cli
