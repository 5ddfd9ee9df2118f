// `agtmux setup claude|codex|gemini [--remove] [--dry-run]`: installs (or
// removes) agtmux in an agent's own configuration. The text rules are in
// setup_json.cc (settings.json) and setup_config.cc (config.toml); this
// file handles the files so that setup leaves no trace once removed:
// - a backup under a name no other file has (never overwriting one);
// - existing directories and files keep their modes; what setup creates is
//   private (directories 0700, files 0600) and listed in its record;
// - writes are atomic, under a lock shared by every `agtmux setup`, and
//   refused if the file changed while setup was deciding;
// - a symlinked settings file is edited where it points, the link stays;
// - a record in <state_dir>/setup says what setup did, so that --remove
//   puts back the original bytes when nobody changed the file since;
// - --dry-run prints a unified diff of exactly what would be written.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/cmd/shell_init.h"
#include "cli/setup/setup_config.h"
#include "cli/setup/text_diff.h"
#include "libagtcore/os/file.h"
#include "libagtcore/ids.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/shell.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::cli {
namespace {

constexpr mode_t kNewDirMode = 0700;  // settings can hold API keys
constexpr mode_t kNewFileMode = 0600;

struct FileState {
  bool exists = false;
  std::string text;
  mode_t mode = 0;
};

core::Result<FileState> ReadState(const std::string& path) {
  FileState st;
  auto text = core::ReadWholeFile(path);
  if (!text.ok()) {
    if (text.error().code == core::Err::kNotFound) return st;
    return text.error();
  }
  struct stat sb {};
  if (stat(path.c_str(), &sb) == 0) st.mode = sb.st_mode & 07777;
  st.exists = true;
  st.text = std::move(*text);
  return st;
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a path names once its symlinks are followed (a dotfiles link
// stays a link; setup edits what it points to).
core::Result<std::string> FollowLinks(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat sb {};
    if (lstat(p.c_str(), &sb) != 0 || !S_ISLNK(sb.st_mode)) return p;
    char buf[4096];
    ssize_t n = readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0) return core::MakeError(core::Err::kIo, p + ": " + std::strerror(errno));
    std::string to(buf, static_cast<size_t>(n));
    if (to.empty())
      return core::MakeError(core::Err::kIo, p + ": an empty symbolic link");
    p = to.front() == '/' ? to : DirOf(p) + "/" + to;
  }
  return core::MakeError(core::Err::kIo, path + ": too many levels of symbolic links");
}

// Creates the missing directories of `dir` (0700); existing ones are not
// touched. Returns the ones it made, outermost first.
core::Result<std::vector<std::string>> MakeMissingDirs(const std::string& dir) {
  std::vector<std::string> missing;
  for (std::string d = dir; !d.empty() && d != "/" && d != "."; d = DirOf(d)) {
    struct stat sb {};
    if (stat(d.c_str(), &sb) == 0) {
      if (!S_ISDIR(sb.st_mode))
        return core::MakeError(core::Err::kIo, d + " exists and is not a directory");
      break;
    }
    missing.insert(missing.begin(), d);
  }
  for (const auto& d : missing) {
    if (mkdir(d.c_str(), kNewDirMode) != 0 && errno != EEXIST)
      return core::MakeError(core::Err::kIo,
                             "cannot create " + d + ": " + std::strerror(errno));
    if (chmod(d.c_str(), kNewDirMode) != 0)  // mkdir's mode went through the umask
      return core::MakeError(core::Err::kIo, d + ": " + std::strerror(errno));
  }
  return missing;
}

std::string Timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

// Writes `text` to a backup of `path` that no file has the name of yet:
// `<path>.agtmux-backup-<UTC time>`, then `-2`, `-3`... (O_EXCL: an
// existing backup is never overwritten). The backup has the file's mode.
core::Result<std::string> WriteBackup(const std::string& path, const FileState& st) {
  const std::string base = path + ".agtmux-backup-" + Timestamp();
  for (int n = 1; n < 1000; ++n) {
    const std::string name = n == 1 ? base : base + "-" + std::to_string(n);
    core::UniqueFd fd(open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!fd.valid()) {
      if (errno == EEXIST) continue;
      return core::MakeError(core::Err::kIo, name + ": " + std::strerror(errno));
    }
    std::string_view data = st.text;
    bool ok = true;
    while (ok && !data.empty()) {
      ssize_t w = write(fd.get(), data.data(), data.size());
      if (w < 0 && errno == EINTR) continue;
      ok = w > 0;
      if (ok) data.remove_prefix(static_cast<size_t>(w));
    }
    ok = ok && fchmod(fd.get(), st.mode) == 0 && fsync(fd.get()) == 0;
    if (!ok) {
      const int e = errno;
      unlink(name.c_str());
      return core::MakeError(core::Err::kIo, name + ": " + std::strerror(e));
    }
    return name;
  }
  return core::MakeError(core::Err::kIo, base + ": too many backups in one second");
}

std::string Home() {
  const char* h = std::getenv("HOME");
  return h ? h : "";
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
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

// One agent's text rules. `previous` is the record of an earlier setup.
struct Rules {
  std::function<core::Result<std::string>(
      const std::string& text, const SetupRecord* previous, CodexSetupRecord* codex)>
      merge;
  std::function<core::Result<std::string>(const std::string& text,
                                          const SetupRecord* previous)>
      remove;
};

// Everything one run needs about the file and its record.
struct Job {
  const Options* o = nullptr;
  std::string path;         // the file (symlinks followed)
  std::string record_path;  // <state_dir>/setup/<agent>-<hash>.json
  FileState before;
  std::optional<SetupRecord> previous;
};

// Atomically writes `text`, unless the file changed since `job.before` was
// read (the agent itself may write its settings): then nothing is written.
core::Status WriteChecked(const Job& job, const std::string& text) {
  auto now = ReadState(job.path);
  if (!now.ok()) return now.error();
  if (now->exists != job.before.exists || now->text != job.before.text)
    return core::MakeError(core::Err::kIo,
                           job.path +
                               " changed while setup ran; nothing was written, "
                               "run it again");
  return core::WriteFileAtomic(job.path, text, kNewFileMode);
}

core::Status SaveRecord(const Job& job, const SetupRecord& r) {
  return core::WriteFileAtomic(job.record_path, r.ToJson(), 0600);
}

int PrintDiff(const Job& job, const std::string& after, bool after_exists) {
  std::fputs(
      UnifiedDiff(job.before.text, after, job.before.exists ? job.path : "/dev/null",
                  after_exists ? job.path : "/dev/null")
          .c_str(),
      stdout);
  return 0;
}

int Setup(const Job& job, const Rules& rules) {
  const Options& o = *job.o;
  const SetupRecord* previous = job.previous ? &*job.previous : nullptr;
  CodexSetupRecord codex;
  auto after = rules.merge(job.before.text, previous, &codex);
  if (!after.ok()) return Fail(after.error().message);
  if (job.before.exists && *after == job.before.text) {
    std::printf("%s: already set up (%s)\n", o.agent.c_str(), job.path.c_str());
    return 0;
  }
  if (o.dry_run) return PrintDiff(job, *after, true);

  SetupRecord r;
  const std::string before_sha = core::Sha256Hex(job.before.text);
  const bool continuing = previous && previous->restorable && job.before.exists &&
                          before_sha == previous->written_sha256;
  // A file without any of agtmux's entries is an original to come back to.
  auto cleaned = rules.remove(job.before.text, previous);
  const bool fresh = !job.before.exists || (cleaned.ok() && *cleaned == job.before.text &&
                                            (!previous || previous->codex.keys.empty()));
  if (continuing) {
    r = *previous;
  } else if (fresh) {
    r.restorable = true;
    r.original_existed = job.before.exists;
    r.original_sha256 = before_sha;
  }

  auto created = MakeMissingDirs(DirOf(job.path));
  if (!created.ok()) return Fail(created.error().ToString());
  if (fresh && !continuing) r.created_dirs = *created;
  std::string backup;
  // A file that is still what setup wrote is not backed up again: its
  // bytes are agtmux's own, and the original's backup is kept.
  if (job.before.exists && !continuing) {
    auto b = WriteBackup(job.path, job.before);
    if (!b.ok()) return Fail("could not write the backup: " + b.error().ToString());
    backup = *b;
    if (fresh && !continuing) r.backup = backup;
  }
  if (auto st = WriteChecked(job, *after); !st.ok()) {
    if (!backup.empty()) unlink(backup.c_str());
    for (auto d = created->rbegin(); d != created->rend(); ++d) rmdir(d->c_str());
    return Fail(st.error().ToString());
  }
  r.path = job.path;
  r.written_sha256 = core::Sha256Hex(*after);
  r.codex = codex;
  if (auto st = SaveRecord(job, r); !st.ok())
    std::fprintf(stderr,
                 "agtmux setup: %s (--remove will take out the hooks but cannot "
                 "restore the file byte for byte)\n",
                 st.error().ToString().c_str());
  if (!backup.empty())
    std::printf("%s: backup written to %s\n", o.agent.c_str(), backup.c_str());
  for (const auto& d : *created)
    std::printf("%s: created %s (mode 0700)\n", o.agent.c_str(), d.c_str());
  if (!job.before.exists)
    std::printf("%s: created %s (mode 0600)\n", o.agent.c_str(), job.path.c_str());
  std::printf("%s: set up %s\n", o.agent.c_str(), job.path.c_str());
  return 0;
}

// The original bytes, when remove can put them back: the file is exactly
// what setup last wrote and the backup is intact. Empty optional otherwise;
// an original that did not exist is "" with `*existed` false.
std::optional<std::string> Original(const Job& job, bool* existed) {
  const SetupRecord* p = job.previous ? &*job.previous : nullptr;
  if (!p || !p->restorable || p->path != job.path || !job.before.exists ||
      core::Sha256Hex(job.before.text) != p->written_sha256)
    return std::nullopt;
  *existed = p->original_existed;
  if (!p->original_existed) return std::string();
  auto text = core::ReadWholeFile(p->backup);
  if (!text.ok() || core::Sha256Hex(*text) != p->original_sha256) return std::nullopt;
  return *text;
}

int Restore(const Job& job, const std::string& original, bool existed) {
  const Options& o = *job.o;
  const SetupRecord& p = *job.previous;
  if (o.dry_run) return PrintDiff(job, original, existed);
  if (existed) {
    if (auto st = WriteChecked(job, original); !st.ok())
      return Fail(st.error().ToString());
    unlink(p.backup.c_str());  // the same bytes are back in place
  } else {
    if (unlink(job.path.c_str()) != 0)
      return Fail(job.path + ": " + std::strerror(errno));
    for (auto d = p.created_dirs.rbegin(); d != p.created_dirs.rend(); ++d)
      rmdir(d->c_str());  // only if empty: whatever else came in stays
  }
  unlink(job.record_path.c_str());
  if (existed)
    std::printf("%s: restored %s as it was before setup\n", o.agent.c_str(),
                job.path.c_str());
  else
    std::printf("%s: deleted %s (setup had created it)\n", o.agent.c_str(),
                job.path.c_str());
  return 0;
}

int Remove(const Job& job, const Rules& rules) {
  const Options& o = *job.o;
  bool existed = false;
  if (auto original = Original(job, &existed)) return Restore(job, *original, existed);

  auto after = job.before.exists ? rules.remove(job.before.text,
                                                job.previous ? &*job.previous : nullptr)
                                 : core::Result<std::string>(std::string());
  if (!after.ok()) return Fail(after.error().message);
  if (*after == job.before.text) {
    if (job.previous && !o.dry_run) unlink(job.record_path.c_str());
    std::printf("%s: nothing to remove (%s)\n", o.agent.c_str(), job.path.c_str());
    return 0;
  }
  if (o.dry_run) return PrintDiff(job, *after, true);
  auto backup = WriteBackup(job.path, job.before);
  if (!backup.ok())
    return Fail("could not write the backup: " + backup.error().ToString());
  if (auto st = WriteChecked(job, *after); !st.ok()) {
    unlink(backup->c_str());
    return Fail(st.error().ToString());
  }
  unlink(job.record_path.c_str());
  std::printf("%s: backup written to %s\n", o.agent.c_str(), backup->c_str());
  if (job.previous && !job.previous->backup.empty() &&
      access(job.previous->backup.c_str(), F_OK) == 0)
    std::printf("%s: the file as it was before setup is in %s\n", o.agent.c_str(),
                job.previous->backup.c_str());
  std::printf(
      "%s: removed agtmux from %s (the file changed since setup: only agtmux's entries "
      "were taken out)\n",
      o.agent.c_str(), job.path.c_str());
  return 0;
}

int Run(const Options& o, const std::string& agent_path, const Rules& rules) {
  auto paths = core::ResolvePaths(core::RealEnv());
  if (!paths.ok()) return Fail(paths.error().ToString());
  const std::string setup_dir = paths->state_dir + "/setup";
  Job job;
  job.o = &o;
  job.record_path = setup_dir + "/" + o.agent + "-" +
                    core::Sha256Hex(agent_path).substr(0, 16) + ".json";

  // Every setup that writes holds this lock, so two at once do not both
  // start from the same original. A dry run writes nothing, not even this.
  core::UniqueFd lock;
  if (!o.dry_run) {
    if (auto st = core::EnsureDir(setup_dir, 0700); !st.ok())
      return Fail(st.error().ToString());
    const std::string lock_path = setup_dir + "/lock";
    lock = core::UniqueFd(open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock.valid() || flock(lock.get(), LOCK_EX) != 0)
      return Fail(lock_path + ": " + std::strerror(errno));
  }

  auto target = FollowLinks(agent_path);
  if (!target.ok()) return Fail(target.error().ToString());
  job.path = *target;
  auto before = ReadState(job.path);
  if (!before.ok()) return Fail(before.error().ToString());
  job.before = std::move(*before);
  if (auto text = core::ReadWholeFile(job.record_path); text.ok())
    if (auto r = SetupRecord::FromJson(*text); r.ok()) job.previous = std::move(*r);
  return o.remove ? Remove(job, rules) : Setup(job, rules);
}

Rules JsonRules(JsonAgent agent, const std::string& path, const std::string& command) {
  Rules r;
  r.merge = [=](const std::string& text, const SetupRecord*, CodexSetupRecord*) {
    return MergeJsonHooks(agent, text, path, command);
  };
  r.remove = [=](const std::string& text, const SetupRecord*) {
    return RemoveJsonHooks(agent, text, path);
  };
  return r;
}

Rules CodexRules(const std::string& path) {
  Rules r;
  r.merge = [=](const std::string& text, const SetupRecord* previous,
                CodexSetupRecord* codex) -> core::Result<std::string> {
    auto merged = MergeCodexConfig(text, path, {SelfPath(), "hook", "codex-notify"},
                                   previous ? &previous->codex : nullptr);
    if (!merged.ok()) return merged.error();
    *codex = merged->record;
    return merged->text;
  };
  // Without a record there is nothing known to undo.
  r.remove = [=](const std::string& text,
                 const SetupRecord* previous) -> core::Result<std::string> {
    if (!previous) return text;
    return RemoveCodexConfig(text, path, previous->codex);
  };
  return r;
}

int RunSetupFor(const Options& o);

// Set up, then (in tmux) how to open the ui in a popup, once.
int RunSetup(const Options& o) {
  int rc = RunSetupFor(o);
  if (rc == 0 && !o.remove && !o.dry_run) std::fputs(TmuxPopupHint("").c_str(), stdout);
  return rc;
}

int RunSetupFor(const Options& o) {
  const std::string home = Home();
  const std::string command = core::ShellQuote(SelfPath()) + " hook " + o.agent;
  if (o.agent == "claude") {
    const std::string path =
        EnvOr("CLAUDE_CONFIG_DIR", home + "/.claude") + "/settings.json";
    return Run(o, path, JsonRules(JsonAgent::kClaude, path, command));
  }
  if (o.agent == "gemini") {
    const std::string path = home + "/.gemini/settings.json";
    return Run(o, path, JsonRules(JsonAgent::kGemini, path, command));
  }
  if (o.agent == "codex") {
    const std::string path = EnvOr("CODEX_HOME", home + "/.codex") + "/config.toml";
    return Run(o, path, CodexRules(path));
  }
  return Fail("unknown agent \"" + o.agent + "\" (expected claude, codex or gemini)");
}

}  // namespace

CommandSpec SetupCommand() {
  return {
      "setup",
      "Install agtmux hooks/notify into an agent's configuration (claude|codex|gemini)",
      [](CLI::App* sub) -> Runner {
        auto o = std::make_shared<Options>();
        sub->add_option("agent", o->agent, "claude, codex or gemini")->required();
        sub->add_flag("--remove", o->remove,
                      "Take out what setup added (the original bytes when the file is "
                      "unchanged since)");
        sub->add_flag("--dry-run", o->dry_run,
                      "Print a unified diff of what would be written; write nothing");
        return [o] { return RunSetup(*o); };
      }};
}

}  // namespace agt::cli
