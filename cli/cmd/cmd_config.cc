// `agtmux config check [FILE]` and `agtmux config path`: the config read
// exactly as agtmuxd reads it (core::LoadConfig), so what check accepts the
// daemon starts with, and what it refuses is named with file and line.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/client/daemon_client.h"
#include "cli/exit_codes.h"
#include "libagtcore/config.h"
#include "libagtcore/os/paths.h"

namespace agt::cli {
namespace {

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

int RunCheck(std::string file) {
  if (file.empty()) {
    auto paths = core::ResolvePaths(core::RealEnv());
    if (!paths) return ReportError(paths.error());
    file = paths->config_file;
    if (!Exists(file)) {
      std::printf("%s: no config file; agtmuxd uses the defaults (docs/config.md)\n", file.c_str());
      return kExitOk;
    }
  } else if (!Exists(file)) {
    return ReportError(core::MakeError(core::Err::kNotFound, file + ": no such file"));
  }
  auto cfg = core::LoadConfig(file);
  if (!cfg) {
    std::fprintf(stderr, "agtmux: %s\n", cfg.error().ToString().c_str());
    return kExitFailed;
  }
  std::printf("%s: ok\n", file.c_str());
  return kExitOk;
}

}  // namespace

CommandSpec ConfigCommand() {
  return {"config", "Check the configuration file, or print where it is", [](CLI::App* sub) -> Runner {
            sub->require_subcommand(1);
            auto file = std::make_shared<std::string>();
            CLI::App* check = sub->add_subcommand("check", "Read config.toml as agtmuxd does; name every mistake");
            check->add_option("file", *file, "the file to check (default: the config agtmuxd reads)");
            CLI::App* path = sub->add_subcommand("path", "Print the path of the config file agtmuxd reads");
            return [file, check, path] {
              if (check->parsed()) return RunCheck(*file);
              if (!path->parsed()) return kExitUsage;
              auto paths = core::ResolvePaths(core::RealEnv());
              if (!paths) return ReportError(paths.error());
              std::printf("%s\n", paths->config_file.c_str());
              return kExitOk;
            };
          }};
}

}  // namespace agt::cli
