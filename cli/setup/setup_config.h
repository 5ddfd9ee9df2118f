// `agtmux setup` edits an agent's own configuration so that it reports to
// agtmux: Claude Code's and Gemini CLI's settings.json hooks, Codex's
// config.toml `notify` and TUI notification settings. These functions are
// the pure part: text in, text out, so that every merge rule is tested on
// real-looking files without touching a home directory (the files
// themselves are handled in cmd_setup.cc).
//
// Rules: minimal edits (only agtmux's own entries change; every other byte
// stays); idempotent (a second setup changes nothing); `remove` takes out
// exactly what setup added; a malformed file is refused with its path and
// position and left untouched.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/result.h"

namespace agt::cli {

/// The hook events agtmux installs for each agent.
const std::vector<std::string>& ClaudeHookEvents();
const std::vector<std::string>& GeminiHookEvents();

/// Which agent's settings.json dialect.
enum class JsonAgent { kClaude, kGemini };

/// settings.json with agtmux's hook (`command`, e.g. "/usr/bin/agtmux hook
/// claude") added to every event of the agent that lacks it. An existing
/// agtmux hook with another path is updated in place. Edits are insertions
/// of whole members/items (in the file's indentation) and nothing else;
/// comments are allowed and kept. `path` names the file in errors
/// ("path:line:col: message"); a name that appears twice in the top-level
/// or `hooks` object is refused.
core::Result<std::string> MergeJsonHooks(JsonAgent agent, std::string_view text,
                                         std::string_view path, const std::string& command);

/// settings.json without any agtmux hook; groups, event lists and the
/// `hooks` object that only held agtmux's entries go too. Each is deleted
/// with the separator before it, so remove undoes setup's insertions byte
/// for byte.
core::Result<std::string> RemoveJsonHooks(JsonAgent agent, std::string_view text,
                                          std::string_view path);

/// What Codex setup changed, so that remove can restore it exactly.
/// Serialised as JSON in agtmux's state directory, not in the user's file.
struct CodexSetupRecord {
  struct Key {
    std::string table;      // "" for top level, "tui"
    std::string key;        // "notify", "notifications", ...
    bool existed = false;   // false: setup inserted the whole line
    std::string before;     // the original value text (when existed)
    std::string after;      // the value text setup wrote
  };
  std::vector<Key> keys;
  bool added_tui_table = false;
  std::string ToJson() const;
  static core::Result<CodexSetupRecord> FromJson(std::string_view json);
};

struct CodexMerge {
  std::string text;
  CodexSetupRecord record;
};

/// config.toml with `notify = [<agtmux argv> (, "--chain", <old argv>...)]`
/// and `[tui] notifications = ["agent-turn-complete", "approval-requested"]`,
/// `notification_method = "osc9"`, `notification_condition = "always"`.
/// Comments and everything else stay byte for byte. A user's own notify
/// program is chained, not dropped. Already set up: the text is unchanged.
core::Result<CodexMerge> MergeCodexConfig(std::string_view text, std::string_view path,
                                          const std::vector<std::string>& agtmux_argv,
                                          const CodexSetupRecord* previous);

/// config.toml with setup's changes undone according to `record`; a key the
/// user changed since setup is left alone.
core::Result<std::string> RemoveCodexConfig(std::string_view text, std::string_view path,
                                            const CodexSetupRecord& record);

/// What a setup did to one agent file, kept in agtmux's state directory so
/// that `--remove` can undo it: when the file is still exactly what setup
/// last wrote, remove puts back the original bytes (from the backup) or
/// deletes a file setup created, with the directories it made.
struct SetupRecord {
  std::string path;             // the file setup edited (symlinks resolved)
  bool restorable = false;      // the original is known and nobody else wrote since
  bool original_existed = false;
  std::string original_sha256;  // of the bytes before the first setup
  std::string backup;           // where those bytes are kept ("" for a new file)
  std::string written_sha256;   // of the bytes setup last wrote
  std::vector<std::string> created_dirs;  // made by setup, outermost first
  CodexSetupRecord codex;       // Codex: the keys setup replaced
  std::string ToJson() const;
  /// Also reads the Codex-only record of earlier versions (not restorable).
  static core::Result<SetupRecord> FromJson(std::string_view json);
};

}  // namespace agt::cli
