// spdlog set up the way every agtmux process logs: one default logger
// writing UTC-stamped lines to a size-rotated file in the state directory,
// plus stderr when asked. spdlog throws spdlog_ex when a sink cannot be
// created; that exception is caught here and never leaves this file.
#include "libagtcore/os/log.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <sys/stat.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <memory>
#include <vector>

namespace agt::core {
namespace {

std::string Dirname(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Result<spdlog::level::level_enum> ParseLogLevel(std::string_view name) {
  using spdlog::level::level_enum;
  struct Named {
    std::string_view name;
    level_enum level;
  };
  static constexpr Named kLevels[] = {
      {"trace", level_enum::trace}, {"debug", level_enum::debug},
      {"info", level_enum::info},   {"warn", level_enum::warn},
      {"warning", level_enum::warn}, {"error", level_enum::err},
      {"critical", level_enum::critical}, {"off", level_enum::off},
  };
  for (const Named& n : kLevels)
    if (n.name == name) return n.level;
  return MakeError(Err::kConfigInvalid,
                   "unknown log level \"" + std::string(name) +
                       "\" (expected trace, debug, info, warn, error, critical or off)");
}

Status InitLogging(const LogOptions& options, const EnvFn& env) {
  std::string level_text = options.level;
  std::string level_from = "log level";
  if (const char* v = env("AGTMUX_LOG_LEVEL"); v != nullptr && *v != '\0') {
    level_text = v;
    level_from = "AGTMUX_LOG_LEVEL";
  }
  Result<spdlog::level::level_enum> level = ParseLogLevel(level_text);
  if (!level.ok())
    return MakeError(Err::kConfigInvalid, level_from + ": " + level.error().message);

  std::vector<spdlog::sink_ptr> sinks;
  try {
    if (!options.path.empty()) {
      if (Status st = EnsureDir(Dirname(options.path), 0700); !st.ok()) return st;
      // 0600 whatever the umask, the rotated files too (the log quotes panes).
      spdlog::file_event_handlers private_file;
      private_file.after_open = [](const spdlog::filename_t&, std::FILE* f) { (void)::fchmod(::fileno(f), 0600); };
      sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
          options.path, options.max_bytes, options.max_files, false, private_file));
    }
    if (options.to_stderr)
      sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    auto logger = std::make_shared<spdlog::logger>(options.name, sinks.begin(), sinks.end());
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %L %n[%P] %v", spdlog::pattern_time_type::utc);
    logger->set_level(*level);
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(std::move(logger));
  } catch (const spdlog::spdlog_ex& e) {
    return MakeError(Err::kIo, "cannot open log file \"" + options.path + "\": " + e.what());
  }
  return Ok();
}

void ShutdownLogging() {
  if (auto logger = spdlog::default_logger()) logger->flush();
  spdlog::drop_all();
  // Leave a silent default logger so stray calls after shutdown are no-ops.
  auto silent = std::make_shared<spdlog::logger>("agtmux");
  silent->set_level(spdlog::level::off);
  spdlog::set_default_logger(std::move(silent));
}

}  // namespace agt::core
