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

Config MustParse(const std::string& text) {
  Result<Config> r = ParseConfig(text, kPath);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  return r.ok() ? std::move(r).value() : Config{};
}

void ExpectInvalid(const std::string& text, const std::string& message) {
  Result<Config> r = ParseConfig(text, kPath);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().code, Err::kConfigInvalid);
  EXPECT_EQ(r.error().message, message) << text;
}

TEST(ConfigTest, EmptyTextGivesTheDefaults) {
  Config c = MustParse("");
  EXPECT_EQ(c.daemon.completed_to_idle, 120 * kNsPerSec);
  EXPECT_EQ(c.daemon.skew_budget, 10 * kNsPerSec);
  EXPECT_EQ(c.daemon.bind_window, 5 * kNsPerSec);
  EXPECT_EQ(c.daemon.retention_payloads, 7 * 86400 * kNsPerSec);
  EXPECT_EQ(c.daemon.retention_events, 14 * 86400 * kNsPerSec);
  EXPECT_EQ(c.daemon.log_level, "info");
  EXPECT_EQ(c.poller.active_interval, 200 * kNsPerMs);
  EXPECT_EQ(c.wrap.running_window, 200 * kNsPerMs);
  EXPECT_EQ(c.wrap.echo_grace, 300 * kNsPerMs);
  EXPECT_EQ(c.wrap.approval_settle, 500 * kNsPerMs);
  EXPECT_FALSE(c.send_policy.block.empty());
}

TEST(ConfigTest, ReadsEverySection) {
  Config c = MustParse(R"(
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
byte_screens = false

[wrap]
running_window = "250ms"
echo_grace = "0.5s"
approval_settle = "1s"
idle_debounce = "2s"

[send_policy]
block = ['rm\s+-rf\s+/']
warn = []
log = ['git push']
)");
  const Config& k = c;
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
  EXPECT_FALSE(k.poller.byte_screens);
  EXPECT_TRUE(Config{}.poller.byte_screens);
  EXPECT_EQ(k.wrap.running_window, 250 * kNsPerMs);
  EXPECT_EQ(k.wrap.echo_grace, 500 * kNsPerMs);
  EXPECT_EQ(k.wrap.approval_settle, kNsPerSec);
  EXPECT_EQ(k.wrap.idle_debounce, 2 * kNsPerSec);
  EXPECT_EQ(k.send_policy.block, std::vector<std::string>{R"(rm\s+-rf\s+/)"});
  EXPECT_TRUE(k.send_policy.warn.empty());
  EXPECT_EQ(k.send_policy.log, std::vector<std::string>{"git push"});
}

// A misspelt key is an error (left at its default, it would be a setting
// the user believes in and does not have), with the closest known key.
TEST(ConfigTest, UnknownKeysAreErrorsWithLineAndSuggestion) {
  const std::string p = kPath;
  ExpectInvalid("colour = true\n", p + ":1: unknown key \"colour\"");
  ExpectInvalid("[deamon]\nlog_level = \"info\"\n",
                p + ":1: unknown key \"deamon\" (did you mean \"daemon\"?)");
  ExpectInvalid("[daemon]\ncompleted_to_idle = \"60s\"\nfoo = 1\n", p + ":3: unknown key \"daemon.foo\"");
  ExpectInvalid("[daemon]\ncompleted_to_idel = \"60s\"\n",
                p + ":2: unknown key \"daemon.completed_to_idel\" (did you mean "
                    "\"daemon.completed_to_idle\"?)");
  ExpectInvalid("[daemon.signal_ttl]\npty = \"5s\"\n", p + ":2: unknown key \"daemon.signal_ttl.pty\"");
  ExpectInvalid("[wrap]\nidle_debounse = \"1s\"\n",
                p + ":2: unknown key \"wrap.idle_debounse\" (did you mean \"wrap.idle_debounce\"?)");
  // The first unknown key is the one reported.
  ExpectInvalid("[poller]\nactiv_interval = \"1s\"\nmax_backof = \"1m\"\n",
                p + ":2: unknown key \"poller.activ_interval\" (did you mean \"poller.active_interval\"?)");
}

// [targets.<name>] is read by nothing (targets are added with `agtmux
// target add`): the table is refused rather than ignored.
TEST(ConfigTest, TargetsTablesAreRefusedAsNotSupported) {
  ExpectInvalid("[targets.vm]\nkind = \"ssh\"\nssh_target = \"vm\"\n",
                std::string(kPath) + ":1: targets: not supported in config.toml yet; add a target with "
                                     "`agtmux target add NAME --kind ssh --ssh-target HOST`");
}

TEST(ConfigTest, NotifyDefaultsSendNothingAndEveryKeyIsRead) {
  NotifyConfig d = MustParse("").notify;
  EXPECT_EQ(d.states, (std::vector<State>{State::kWaitingApproval, State::kWaitingInput}));
  EXPECT_EQ(d.dwell, 2 * kNsPerSec);
  EXPECT_EQ(d.cooldown, 30 * kNsPerSec);
  EXPECT_TRUE(d.skip_focused);
  EXPECT_TRUE(d.command.empty());
  EXPECT_EQ(d.command_timeout, 10 * kNsPerSec);
  EXPECT_FALSE(d.desktop);
  EXPECT_FALSE(d.tmux_message);
  EXPECT_EQ(d.webhook, "");
  EXPECT_EQ(d.webhook_priority, "default");
  EXPECT_EQ(d.webhook_timeout, 5 * kNsPerSec);

  NotifyConfig c = MustParse(
      "[notify]\n"
      "states = [\"waiting_approval\", \"error\", \"completed\"]\n"
      "dwell = \"0s\"\ncooldown = \"1m\"\nskip_focused = false\n"
      "command = [\"/usr/local/bin/ring\", \"--loud\"]\ncommand_timeout = \"3s\"\n"
      "desktop = true\ntmux_message = true\n"
      "webhook = \"https://ntfy.sh/my-agents\"\nwebhook_priority = \"high\"\nwebhook_timeout = \"2s\"\n")
                       .notify;
  EXPECT_EQ(c.states, (std::vector<State>{State::kWaitingApproval, State::kError, State::kCompleted}));
  EXPECT_EQ(c.dwell, 0);
  EXPECT_EQ(c.cooldown, 60 * kNsPerSec);
  EXPECT_FALSE(c.skip_focused);
  EXPECT_EQ(c.command, (std::vector<std::string>{"/usr/local/bin/ring", "--loud"}));
  EXPECT_EQ(c.command_timeout, 3 * kNsPerSec);
  EXPECT_TRUE(c.desktop);
  EXPECT_TRUE(c.tmux_message);
  EXPECT_EQ(c.webhook, "https://ntfy.sh/my-agents");
  EXPECT_EQ(c.webhook_priority, "high");
  EXPECT_EQ(c.webhook_timeout, 2 * kNsPerSec);
}

TEST(ConfigTest, NotifyRefusesBadValuesAndUnknownKeys) {
  const std::string p = kPath;
  ExpectInvalid("[notify]\ncommand = \"notify-send hi\"\n",
                p + ":2: notify.command: expected an argv: an array of strings, the program first, got "
                    "\"notify-send hi\"");
  ExpectInvalid("[notify]\ncommand = []\n",
                p + ":2: notify.command: expected an argv: an array of strings, the program first, got an "
                    "empty array");
  ExpectInvalid("[notify]\ncommand = [\"\", \"x\"]\n", p + ":2: notify.command[0]: the program must not be empty");
  ExpectInvalid("[notify]\nstates = [\"running\"]\n",
                p + ":2: notify.states: expected waiting_approval, waiting_input, error or completed, got "
                    "\"running\"");
  ExpectInvalid("[notify]\nwebhook = \"ftp://example.org/x\"\n",
                p + ":2: notify.webhook: expected an http:// or https:// URL, got \"ftp://example.org/x\"");
  ExpectInvalid("[notify]\nwebhook = \"http://\"\n",
                p + ":2: notify.webhook: expected an http:// or https:// URL, got \"http://\"");
  ExpectInvalid("[notify]\nwebhook_priority = \"loud\"\n",
                p + ":2: notify.webhook_priority: expected one of min, low, default, high, urgent, got \"loud\"");
  ExpectInvalid("[notify]\ndesktop = \"yes\"\n", p + ":2: notify.desktop: expected true or false, got \"yes\"");
  ExpectInvalid("[notify]\ndwell = 2\n", p + ":2: notify.dwell: expected a duration like \"120s\", got 2");
  ExpectInvalid("[notify]\ncooldwon = \"1m\"\n",
                p + ":2: unknown key \"notify.cooldwon\" (did you mean \"notify.cooldown\"?)");
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
  ExpectInvalid("[send_policy]\nblock = [\"ok\", \"(unclosed\"]\n",
                p + ":2: send_policy.block[1]: invalid regular expression: missing closing "
                    "parenthesis at offset 9");
  ExpectInvalid("[send_policy]\nwarn = \"rm\"\n",
                p + ":2: send_policy.warn: expected an array of regular expressions, got \"rm\"");
  ExpectInvalid("[send_policy]\nlog = [1]\n",
                p + ":2: send_policy.log[0]: expected a string, got 1");
}

TEST(ConfigTest, SyntaxErrorsNameLineAndColumn) {
  Result<Config> r = ParseConfig("[daemon]\ncompleted_to_idle = \"120s\n", kPath);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Err::kConfigInvalid);
  EXPECT_EQ(r.error().message.rfind(std::string(kPath) + ":2:", 0), 0u) << r.error().message;
  Result<Config> dup = ParseConfig("[daemon]\nlog_level = \"info\"\nlog_level = \"debug\"\n", "");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message.rfind("config.toml:3:", 0), 0u) << dup.error().message;
}

TEST(ConfigTest, DefaultSendPolicyBlocksTheClassicDisasters) {
  // The patterns themselves are checked by the send-policy code; here we
  // only make sure the defaults are valid regexes that ParseConfig accepts.
  std::string toml = "[send_policy]\nblock = [";
  for (const std::string& p : Config::DefaultSendPolicy().block) toml += "'" + p + "',";
  toml += "]\n";
  Config c = MustParse(toml);
  EXPECT_EQ(c.send_policy.block, Config::DefaultSendPolicy().block);
}

TEST(ConfigTest, LoadConfigMissingFileIsDefaultsAndRealFileIsRead) {
  char tmpl[] = "/tmp/agtmux-config-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  Result<Config> missing = LoadConfig(dir + "/config.toml");
  ASSERT_TRUE(missing.ok()) << missing.error().ToString();
  EXPECT_EQ(missing->daemon.completed_to_idle, Defaults().daemon.completed_to_idle);
  {
    std::ofstream f(dir + "/config.toml");
    f << "[daemon]\ncompleted_to_idle = 7\n";
  }
  Result<Config> bad = LoadConfig(dir + "/config.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind(dir + "/config.toml:2: daemon.completed_to_idle", 0), 0u)
      << bad.error().message;
  Result<Config> is_dir = LoadConfig(dir);
  EXPECT_FALSE(is_dir.ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agt::core
