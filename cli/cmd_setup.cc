// `agtmux setup claude|codex|gemini [--remove] [--dry-run]`: installs (or
// removes) agtmux in an agent's own configuration. The merge rules are in
// setup_config.cc; this file finds the files, keeps a timestamped backup,
// writes atomically with the file's own permissions, and remembers what a
// Codex setup replaced so that --remove can put it back.
#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/setup_config.h"
#include "libagtcore/file.h"
#include "libagtcore/ids.h"
#include "libagtcore/paths.h"
#include "libagtcore/shell.h"

namespace agt::cli {
namespace {

struct FileState {
  bool exists = false;
  std::string text;
  mode_t mode = 0644;
};

core::Result<FileState> ReadFile(const std::string& path) {
  FileState st;
  auto text = core::ReadWholeFile(path);
  if (!text.ok()) {
    if (text.error().code == core::Err::kNotFound) return st;
    return text.error();
  }
  struct stat sb{};
  if (stat(path.c_str(), &sb) == 0) st.mode = sb.st_mode & 07777;
  st.exists = true;
  st.text = std::move(*text);
  return st;
}

// Writes `text` to `path` atomically (creating its directory); a new file
// gets `mode`, an existing one keeps its own.
core::Status WriteAtomic(const std::string& path, const std::string& text, mode_t mode) {
  std::string dir = path.substr(0, path.rfind('/'));
  if (auto st = core::EnsureDir(dir, 0700); !st.ok()) return st;
  return core::WriteFileAtomic(path, text, mode);
}

std::string Timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string Home() {
  const char* h = std::getenv("HOME");
  return h ? h : "";
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The agtmux binary that runs now, as the hook command should name it.
std::string SelfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "agtmux";
  return std::string(buf, static_cast<size_t>(n));
}

struct Options {
  std::string agent;
  bool remove = false;
  bool dry_run = false;
};

int Fail(const std::string& msg) {
  std::fprintf(stderr, "agtmux setup: %s\n", msg.c_str());
  return 1;
}

// Backs up, writes, and reports one changed file.
int Commit(const Options& o, const std::string& path, const FileState& before,
           const std::string& after) {
  if (after == before.text) {
    std::printf("%s: %s (%s)\n", o.agent.c_str(),
                o.remove ? "nothing to remove" : "already set up", path.c_str());
    return 0;
  }
  if (o.dry_run) {
    std::printf("# would write %s:\n%s", path.c_str(), after.c_str());
    return 0;
  }
  if (before.exists) {
    std::string backup = path + ".agtmux-backup-" + Timestamp();
    if (auto st = WriteAtomic(backup, before.text, before.mode); !st.ok())
      return Fail("could not write the backup: " + st.error().ToString());
    std::printf("%s: backup written to %s\n", o.agent.c_str(), backup.c_str());
  }
  if (auto st = WriteAtomic(path, after, before.exists ? before.mode : 0644); !st.ok())
    return Fail(st.error().ToString());
  std::printf("%s: %s %s\n", o.agent.c_str(), o.remove ? "removed agtmux from" : "set up",
              path.c_str());
  return 0;
}

int RunJson(const Options& o, JsonAgent agent, const std::string& path) {
  auto before = ReadFile(path);
  if (!before.ok()) return Fail(before.error().ToString());
  if (o.remove && !before->exists) return Commit(o, path, *before, before->text);
  const std::string command = core::ShellQuote(SelfPath()) + " hook " + o.agent;
  auto after = o.remove ? RemoveJsonHooks(agent, before->text, path)
                        : MergeJsonHooks(agent, before->text, path, command);
  if (!after.ok()) return Fail(after.error().message);
  return Commit(o, path, *before, *after);
}

int RunCodex(const Options& o, const std::string& path) {
  auto paths = core::ResolvePaths(core::RealEnv());
  if (!paths.ok()) return Fail(paths.error().ToString());
  const std::string record_path =
      paths->state_dir + "/setup/codex-" + core::Sha256Hex(path).substr(0, 16) + ".json";
  auto record_file = ReadFile(record_path);
  std::unique_ptr<CodexSetupRecord> previous;
  if (record_file.ok() && record_file->exists) {
    auto r = CodexSetupRecord::FromJson(record_file->text);
    if (r.ok()) previous = std::make_unique<CodexSetupRecord>(*r);
  }
  auto before = ReadFile(path);
  if (!before.ok()) return Fail(before.error().ToString());

  if (o.remove) {
    if (!previous || !before->exists) return Commit(o, path, *before, before->text);
    auto after = RemoveCodexConfig(before->text, path, *previous);
    if (!after.ok()) return Fail(after.error().message);
    int rc = Commit(o, path, *before, *after);
    if (rc == 0 && !o.dry_run) unlink(record_path.c_str());
    return rc;
  }
  auto merged = MergeCodexConfig(before->text, path, {SelfPath(), "hook", "codex-notify"},
                                 previous.get());
  if (!merged.ok()) return Fail(merged.error().message);
  if (!o.dry_run && merged->text != before->text) {
    if (auto st = core::EnsureDir(paths->state_dir + "/setup", 0700); !st.ok())
      return Fail(st.error().ToString());
    if (auto st = WriteAtomic(record_path, merged->record.ToJson(), 0600); !st.ok())
      return Fail(st.error().ToString());
  }
  return Commit(o, path, *before, merged->text);
}

int RunSetup(const Options& o) {
  const std::string home = Home();
  if (o.agent == "claude")
    return RunJson(o, JsonAgent::kClaude,
                   EnvOr("CLAUDE_CONFIG_DIR", home + "/.claude") + "/settings.json");
  if (o.agent == "gemini") return RunJson(o, JsonAgent::kGemini, home + "/.gemini/settings.json");
  if (o.agent == "codex") return RunCodex(o, EnvOr("CODEX_HOME", home + "/.codex") + "/config.toml");
  return Fail("unknown agent \"" + o.agent + "\" (expected claude, codex or gemini)");
}

}  // namespace

CommandSpec SetupCommand() {
  return {"setup", "Install agtmux hooks/notify into an agent's configuration (claude|codex|gemini)",
          [](CLI::App* sub) -> Runner {
            auto o = std::make_shared<Options>();
            sub->add_option("agent", o->agent, "claude, codex or gemini")->required();
            sub->add_flag("--remove", o->remove, "Take out exactly what setup added");
            sub->add_flag("--dry-run", o->dry_run, "Print the result instead of writing it");
            return [o] { return RunSetup(*o); };
          }};
}

}  // namespace agt::cli
