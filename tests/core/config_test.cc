#include "libagtcore/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace agt::core {
namespace {

constexpr const char* kPath = "/home/u/.config/agtmux/config.toml";

Config Defaults() { return Config{}; }

ConfigLoad MustParse(const std::string& text) {
  Result<ConfigLoad> r = ParseConfig(text, kPath);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  return r.ok() ? std::move(r).value() : ConfigLoad{};
}

void ExpectInvalid(const std::string& text, const std::string& message) {
  Result<ConfigLoad> r = ParseConfig(text, kPath);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().code, Err::kConfigInvalid);
  EXPECT_EQ(r.error().message, message) << text;
}

TEST(ConfigTest, EmptyTextGivesTheDefaults) {
  ConfigLoad c = MustParse("");
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_EQ(c.config.daemon.completed_to_idle, 120 * kNsPerSec);
  EXPECT_EQ(c.config.daemon.skew_budget, 10 * kNsPerSec);
  EXPECT_EQ(c.config.daemon.bind_window, 5 * kNsPerSec);
  EXPECT_EQ(c.config.daemon.retention_payloads, 7 * 86400 * kNsPerSec);
  EXPECT_EQ(c.config.daemon.retention_events, 14 * 86400 * kNsPerSec);
  EXPECT_EQ(c.config.daemon.log_level, "info");
  EXPECT_EQ(c.config.poller.active_interval, 200 * kNsPerMs);
  EXPECT_EQ(c.config.wrap.running_window, 200 * kNsPerMs);
  EXPECT_EQ(c.config.wrap.echo_grace, 300 * kNsPerMs);
  EXPECT_EQ(c.config.wrap.approval_settle, 500 * kNsPerMs);
  EXPECT_TRUE(c.config.targets.empty());
  EXPECT_FALSE(c.config.send_policy.block.empty());
  EXPECT_TRUE(c.config.notify.command.empty());
}

TEST(ConfigTest, ReadsEverySection) {
  ConfigLoad c = MustParse(R"(
[daemon]
completed_to_idle = "5m"
skew_budget = "2s"
bind_window = "1500ms"
pending_bind_ttl = "20s"
retention_payloads = "3d"
retention_events = "30d"
log_level = "debug"
[daemon.signal_ttl]
poller = "10s"
hook = "0s"

[poller]
active_interval = "1s"
max_backoff = "1m"

[wrap]
running_window = "250ms"
echo_grace = "0.5s"
approval_settle = "1s"
idle_debounce = "2s"

[targets.vm1]
kind = "ssh"
ssh_target = "dev-vm"
[targets.host]
tmux_socket = "/tmp/tmux-1000/work"

[send_policy]
block = ['rm\s+-rf\s+/']
warn = []
log = ['git push']

[notify]
command = ["notify-send", "agtmux"]
cooldown = "1m"
)");
  EXPECT_TRUE(c.warnings.empty());
  const Config& k = c.config;
  EXPECT_EQ(k.daemon.completed_to_idle, 300 * kNsPerSec);
  EXPECT_EQ(k.daemon.skew_budget, 2 * kNsPerSec);
  EXPECT_EQ(k.daemon.bind_window, 1500 * kNsPerMs);
  EXPECT_EQ(k.daemon.pending_bind_ttl, 20 * kNsPerSec);
  EXPECT_EQ(k.daemon.retention_payloads, 3 * 86400 * kNsPerSec);
  EXPECT_EQ(k.daemon.retention_events, 30 * 86400 * kNsPerSec);
  EXPECT_EQ(k.daemon.log_level, "debug");
  EXPECT_EQ(k.daemon.signal_ttl[static_cast<size_t>(Source::kPoller)], 10 * kNsPerSec);
  EXPECT_EQ(k.daemon.signal_ttl[static_cast<size_t>(Source::kHook)], 0);
  EXPECT_EQ(k.poller.active_interval, kNsPerSec);
  EXPECT_EQ(k.poller.max_backoff, 60 * kNsPerSec);
  EXPECT_EQ(k.wrap.running_window, 250 * kNsPerMs);
  EXPECT_EQ(k.wrap.echo_grace, 500 * kNsPerMs);
  EXPECT_EQ(k.wrap.approval_settle, kNsPerSec);
  EXPECT_EQ(k.wrap.idle_debounce, 2 * kNsPerSec);
  ASSERT_EQ(k.targets.size(), 2u);
  EXPECT_EQ(k.targets.at("vm1"), (TargetConfig{"ssh", "dev-vm", ""}));
  EXPECT_EQ(k.targets.at("host"), (TargetConfig{"local", "", "/tmp/tmux-1000/work"}));
  EXPECT_EQ(k.send_policy.block, std::vector<std::string>{R"(rm\s+-rf\s+/)"});
  EXPECT_TRUE(k.send_policy.warn.empty());
  EXPECT_EQ(k.send_policy.log, std::vector<std::string>{"git push"});
  EXPECT_EQ(k.notify.command, (std::vector<std::string>{"notify-send", "agtmux"}));
  EXPECT_EQ(k.notify.cooldown, 60 * kNsPerSec);
}

TEST(ConfigTest, NotifyCommandStringRunsThroughTheShell) {
  ConfigLoad c = MustParse("[notify]\ncommand = \"notify-send 'agent waiting'\"\n");
  EXPECT_EQ(c.config.notify.command,
            (std::vector<std::string>{"/bin/sh", "-c", "notify-send 'agent waiting'"}));
}

TEST(ConfigTest, UnknownKeysAreWarningsWithLines) {
  ConfigLoad c = MustParse(
      "colour = true\n"
      "[daemon]\n"
      "completed_to_idle = \"60s\"\n"
      "foo = 1\n"
      "[daemon.signal_ttl]\n"
      "pty = \"5s\"\n"
      "[targets.vm]\n"
      "kind = \"ssh\"\n"
      "ssh_target = \"vm\"\n"
      "port = 22\n");
  EXPECT_EQ(c.config.daemon.completed_to_idle, 60 * kNsPerSec);
  ASSERT_EQ(c.warnings.size(), 4u);
  EXPECT_EQ(c.warnings[0], std::string(kPath) + ":1: unknown key \"colour\"");
  EXPECT_EQ(c.warnings[1], std::string(kPath) + ":4: unknown key \"daemon.foo\"");
  EXPECT_EQ(c.warnings[2], std::string(kPath) + ":6: unknown key \"daemon.signal_ttl.pty\"");
  EXPECT_EQ(c.warnings[3], std::string(kPath) + ":10: unknown key \"targets.vm.port\"");
}

TEST(ConfigTest, BadValuesNameFileLineAndKey) {
  const std::string p = kPath;
  ExpectInvalid("\n\n\n\n\n\n[daemon]\ncompleted_to_idle = 12\n",
                p + ":8: daemon.completed_to_idle: expected a duration like \"120s\", got 12");
  ExpectInvalid("[daemon]\ncompleted_to_idle = \"120\"\n",
                p + ":2: daemon.completed_to_idle: expected a duration like \"120s\", got \"120\"");
  ExpectInvalid("[daemon]\nskew_budget = \"ten seconds\"\n",
                p + ":2: daemon.skew_budget: expected a duration like \"120s\": invalid "
                    "duration \"ten seconds\": expected a number at offset 0 (form: 500ms, "
                    "30s, 2m, 1h30m, 7d)");
  ExpectInvalid("[daemon]\ncompleted_to_idle = \"0s\"\n",
                p + ":2: daemon.completed_to_idle: must be longer than zero");
  ExpectInvalid("[daemon]\nlog_level = \"loud\"\n",
                p + ":2: daemon.log_level: expected one of trace, debug, info, warn, error, "
                    "critical, off, got \"loud\"");
  ExpectInvalid("[daemon]\nlog_level = 3\n", p + ":2: daemon.log_level: expected a string, got 3");
  ExpectInvalid("[daemon]\nretention_payloads = \"30d\"\n",
                p + ":1: daemon.retention_payloads: must not be longer than "
                    "daemon.retention_events (payloads live inside events)");
  ExpectInvalid("daemon = 5\n", p + ":1: daemon: expected a table, got 5");
  ExpectInvalid("[poller]\nactive_interval = \"10s\"\nmax_backoff = \"5s\"\n",
                p + ":1: poller.max_backoff: must not be shorter than poller.active_interval");
  ExpectInvalid("[wrap]\nrunning_window = [1]\n",
                p + ":2: wrap.running_window: expected a duration like \"120s\", got an array");
  ExpectInvalid("[targets.vm]\nkind = \"telnet\"\n",
                p + ":2: targets.vm.kind: expected \"local\" or \"ssh\", got \"telnet\"");
  ExpectInvalid("[targets.vm]\nkind = \"ssh\"\n",
                p + ":1: targets.vm.ssh_target: required when kind = \"ssh\" (an ssh host alias)");
  ExpectInvalid("[targets.vm]\nssh_target = \"x\"\n",
                p + ":1: targets.vm.ssh_target: only allowed when kind = \"ssh\"");
  ExpectInvalid("[targets.host]\nkind = \"ssh\"\nssh_target = \"x\"\n",
                p + ":2: targets.host.kind: the built-in target \"host\" is always local");
  ExpectInvalid("[targets.\"my vm\"]\nkind = \"local\"\n",
                p + ":1: targets.my vm: a target name may contain only A-Z a-z 0-9 . _ -");
  ExpectInvalid("targets = 1\n",
                p + ":1: targets: expected a table of targets ([targets.<name>]), got 1");
  ExpectInvalid("[send_policy]\nblock = [\"ok\", \"(unclosed\"]\n",
                p + ":2: send_policy.block[1]: invalid regular expression: missing closing "
                    "parenthesis at offset 9");
  ExpectInvalid("[send_policy]\nwarn = \"rm\"\n",
                p + ":2: send_policy.warn: expected an array of regular expressions, got \"rm\"");
  ExpectInvalid("[send_policy]\nlog = [1]\n",
                p + ":2: send_policy.log[0]: expected a string, got 1");
  ExpectInvalid("[notify]\ncommand = 1\n",
                p + ":2: notify.command: expected an argv array like [\"notify-send\", "
                    "\"agtmux\"] or a shell command string, got 1");
  ExpectInvalid("[notify]\ncommand = [\"a\", 2]\n",
                p + ":2: notify.command[1]: expected a string, got 2");
}

TEST(ConfigTest, SyntaxErrorsNameLineAndColumn) {
  Result<ConfigLoad> r = ParseConfig("[daemon]\ncompleted_to_idle = \"120s\n", kPath);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Err::kConfigInvalid);
  EXPECT_EQ(r.error().message.rfind(std::string(kPath) + ":2:", 0), 0u) << r.error().message;
  Result<ConfigLoad> dup = ParseConfig("[daemon]\nlog_level = \"info\"\nlog_level = \"debug\"\n", "");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message.rfind("config.toml:3:", 0), 0u) << dup.error().message;
}

TEST(ConfigTest, DefaultSendPolicyBlocksTheClassicDisasters) {
  // The patterns themselves are checked by the send-policy code; here we
  // only make sure the defaults are valid regexes that ParseConfig accepts.
  std::string toml = "[send_policy]\nblock = [";
  for (const std::string& p : Config::DefaultSendPolicy().block) toml += "'" + p + "',";
  toml += "]\n";
  ConfigLoad c = MustParse(toml);
  EXPECT_EQ(c.config.send_policy.block, Config::DefaultSendPolicy().block);
}

TEST(ConfigTest, LoadConfigMissingFileIsDefaultsAndRealFileIsRead) {
  char tmpl[] = "/tmp/agtmux-config-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  Result<ConfigLoad> missing = LoadConfig(dir + "/config.toml");
  ASSERT_TRUE(missing.ok()) << missing.error().ToString();
  EXPECT_EQ(missing->config.daemon.completed_to_idle, Defaults().daemon.completed_to_idle);
  {
    std::ofstream f(dir + "/config.toml");
    f << "[daemon]\ncompleted_to_idle = 7\n";
  }
  Result<ConfigLoad> bad = LoadConfig(dir + "/config.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind(dir + "/config.toml:2: daemon.completed_to_idle", 0), 0u)
      << bad.error().message;
  Result<ConfigLoad> is_dir = LoadConfig(dir);
  EXPECT_FALSE(is_dir.ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agt::core
