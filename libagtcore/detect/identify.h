// Agent identification for panes that are not wrapped: which agent (if
// any) a pane runs, from its foreground process name, the child's
// /proc/<pid>/cmdline (for node/bun launchers) and its title. Rules come
// from patterns/identify.toml; an exclusion list keeps editors, pagers and
// file managers out (a file named codex.rs open in vim is not Codex).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/regex.h"
#include "libagtcore/base/result.h"

namespace agt::detect {

struct AgentIdentity {
  std::string name;                                   // "claude", "codex", ...
  std::vector<std::shared_ptr<const Regex>> process;  // on pane_current_command
  std::vector<std::shared_ptr<const Regex>>
      cmdline;  // on the child's cmdline (NULs as spaces)
  std::vector<std::shared_ptr<const Regex>> title;  // on the pane title (weakest)
};

struct IdentifyRules {
  std::string path;
  std::string version;
  std::vector<std::shared_ptr<const Regex>> exclude;  // process names never identified
  std::vector<std::shared_ptr<const Regex>>
      interpreters;                   // process names whose cmdline is read
  std::vector<AgentIdentity> agents;  // in priority order
};

/// Parses identify.toml; errors name the file, line, agent and field.
core::Result<IdentifyRules> ParseIdentifyRules(std::string_view text,
                                               std::string_view path);

struct Identification {
  std::string agent;
  std::string via;  // "process", "cmdline" or "title"
};

/// Identifies the agent of a pane. `cmdline` may hold NUL separators as
/// read from /proc. Returns nullopt for excluded processes and no match.
std::optional<Identification> Identify(const IdentifyRules& rules,
                                       std::string_view process_name,
                                       std::string_view cmdline, std::string_view title);

/// The built-in identify.toml (with a user identify.toml replacing it when
/// it parses), loaded once.
std::shared_ptr<const IdentifyRules> DefaultIdentifyRules();

/// Identify with the default rules: the agent type, or nullopt.
std::optional<std::string> Identify(std::string_view process_name,
                                    std::string_view cmdline, std::string_view title);

}  // namespace agt::detect
