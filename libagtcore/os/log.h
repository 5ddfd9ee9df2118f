// Logging for agtmux's processes: spdlog to a rotating file in the state
// directory (agtmuxd.log), optionally mirrored to stderr. Callers redact
// before they log; nothing here inspects messages.
#pragma once

#include <spdlog/spdlog.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "libagtcore/os/paths.h"
#include "libagtcore/base/result.h"

namespace agt::core {

struct LogOptions {
  std::string path;              // the log file; empty = no file sink
  std::string level = "info";    // from config [daemon] log_level
  std::string name = "agtmux";   // shown in each line ("agtmuxd", "wrap")
  size_t max_bytes = 5 * 1024 * 1024;  // rotate at this size ...
  size_t max_files = 3;                // ... keeping this many old files
  bool to_stderr = false;        // also write to stderr
};

/// "trace", "debug", "info", "warn" (or "warning"), "error", "critical", "off".
Result<spdlog::level::level_enum> ParseLogLevel(std::string_view name);

/// Makes the configured logger spdlog's default logger. AGTMUX_LOG_LEVEL,
/// when set, overrides `options.level`. Creates the file's directory (0700).
/// E_CONFIG_INVALID for a bad level (naming where it came from), E_IO when
/// the file cannot be opened.
Status InitLogging(const LogOptions& options, const EnvFn& env = RealEnv());

/// Flushes and drops every logger (call before exit, and between tests).
void ShutdownLogging();

}  // namespace agt::core
