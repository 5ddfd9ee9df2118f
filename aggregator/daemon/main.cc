// agtmuxd: the aggregator daemon. Parses its few flags, resolves paths and
// wires the real implementations; everything else is in aggregator/.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdio>

#include "aggregator/daemon/lifecycle.h"
#include "aggregator/daemon/real_collectors.h"
#include "aggregator/targets/tmux_socket.h"
#include "libagtcore/config.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/timefmt.h"

int main(int argc, char** argv) {
  CLI::App app{"agtmuxd: the agtmux daemon (normally started by agtmux on demand)"};
  std::string header_timeout = "5s";
  size_t max_body = 1024 * 1024;  // docs/api.md, Limits: why 1 MiB
  bool fast = false;
  bool no_observe = false;
  app.set_version_flag("--version", std::string("agtmuxd ") + AGTMUX_VERSION);
  app.add_option("--header-timeout", header_timeout, "time a client has to send a request's headers");
  app.add_option("--max-body", max_body, "largest request body accepted, in bytes");
  app.add_flag("--fast-durability", fast, "commit without fsync (survives kill -9, not power loss)");
  app.add_flag("--no-observe", no_observe, "do not observe tmux (API and ingest only)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  auto env = agt::core::RealEnv();
  auto paths = agt::core::ResolvePaths(env);
  if (!paths) {
    std::fprintf(stderr, "agtmuxd: %s\n", paths.error().ToString().c_str());
    return 1;
  }
  auto timeout = agt::core::ParseDuration(header_timeout);
  if (!timeout || *timeout <= 0) {
    std::fprintf(stderr, "agtmuxd: --header-timeout: not a duration: '%s'\n", header_timeout.c_str());
    return 2;
  }
  agt::agg::DaemonOptions opt;
  opt.paths = *paths;
  opt.host_socket = agt::agg::ResolveHostSocket(env, getuid());
  opt.header_timeout_ms = *timeout / agt::core::kNsPerMs;
  opt.max_body_bytes = max_body;
  opt.fast_durability = fast;
  // config.toml: a config that does not load stops the daemon here, with
  // the error (file:line: key: why) on stderr, which `agtmux daemon start`
  // shows; a daemon never runs on a config it only half understood.
  auto cfg = agt::core::LoadConfig(paths->config_file);
  if (!cfg) {
    std::fprintf(stderr, "agtmuxd: %s\n", cfg.error().ToString().c_str());
    return 4;
  }
  opt.config = *cfg;
  if (!no_observe) opt.collectors = agt::agg::RealCollectors(opt.config.poller, paths->state_dir);
  return agt::agg::RunDaemon(opt);
}
