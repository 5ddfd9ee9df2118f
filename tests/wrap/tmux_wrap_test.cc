// `agtmux wrap` in a real terminal: a private tmux server (never the user's)
// runs programs directly and under the wrapper in panes of the same size;
// the same keystrokes must give the same screens (capture-pane -e, with
// colours and attributes), resizes must reach the child, and the terminal
// must be restored exactly (stty -a) however the child ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "libagtcore/base/shell.h"
#include "tests/wrap/test_support.h"

namespace agt::wrap {
namespace {

using core::ShellQuote;
using testing::AgtmuxBin;
using testing::TempDir;
using testing::WaitFor;

std::string RunCapture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// A private tmux server for one test, killed on destruction.
class Tmux {
 public:
  explicit Tmux(const TempDir& dir) : dir_(dir) {
    static int n = 0;
    socket_ = "agtmux-test-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
    env_ = "env HOME=" + ShellQuote(dir.path()) +
           " AGTMUX_SOCKET=" + ShellQuote(dir.path() + "/d.sock") +
           " AGTMUX_STATE_DIR=" + ShellQuote(dir.path() + "/state") +
           " AGTMUX_CONFIG_DIR=" + ShellQuote(dir.path() + "/config") + " ";
  }
  ~Tmux() { Run("kill-server"); }

  /// Runs a tmux command on this server; returns its stdout.
  std::string Run(const std::string& args) const {
    return RunCapture("tmux -L " + socket_ + " -f /dev/null " + args + " 2>/dev/null");
  }
  /// A detached session of the given size running `shell_cmd`.
  void NewSession(const std::string& name, int cols, int rows, const std::string& shell_cmd) {
    Run("new-session -d -s " + name + " -x " + std::to_string(cols) + " -y " +
        std::to_string(rows) + " " +
        ShellQuote("cd " + ShellQuote(dir_.path()) + " && exec " + env_ + shell_cmd));
    Run("set-option -t " + name + " status off");
    Run("set-option -t " + name + " remain-on-exit on");
  }
  std::string Capture(const std::string& target) const {
    return Run("capture-pane -e -p -t " + target) +
           Run("display-message -p -t " + target + " '#{cursor_x},#{cursor_y}'");
  }
  void Keys(const std::string& target, const std::string& keys) const {
    Run("send-keys -t " + target + " " + keys);
  }
  void Literal(const std::string& target, const std::string& text) const {
    Run("send-keys -l -t " + target + " " + ShellQuote(text));
  }

 private:
  const TempDir& dir_;
  std::string socket_;
  std::string env_;
};

const std::string kWrap = AgtmuxBin() + " wrap -- ";

/// Waits until both panes show the same thing and `check` holds on it.
void ExpectSameScreens(Tmux& t, const std::string& step,
                       const std::function<bool(const std::string&)>& check) {
  std::string a, b;
  const bool same = WaitFor(
      [&] {
        a = t.Capture("direct");
        b = t.Capture("wrapped");
        return a == b && check(a);
      },
      5000);
  EXPECT_TRUE(same) << "after " << step << "\n--- direct ---\n" << a << "\n--- wrapped ---\n" << b;
}

bool Has(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

TEST(TmuxWrap, VimLooksTheSameWrapped) {
  TempDir dir;
  Tmux t(dir);
  { std::ofstream(dir.path() + "/file.txt") << "first line\nsecond line\n\xe6\xbc\xa2\xe5\xad\x97 \xe2\x9c\xb3\n"; }
  const std::string vim = "vim -u NONE -i NONE -N -n file.txt";
  t.NewSession("direct", 80, 24, vim);
  // The wrapped side reports the wrapper's exit status through a parent
  // shell, as a user sees it: tmux's own #{pane_dead_status} was seen empty
  // now and then for a pane that had exited (an open question, see
  // docs/wrap.md), which made this test flaky.
  const std::string rc_file = dir.path() + "/wrapped.rc";
  t.NewSession("wrapped", 80, 24,
               "sh -c " + ShellQuote(kWrap + vim + "; echo $? > " + rc_file));
  ExpectSameScreens(t, "start", [](const std::string& s) { return Has(s, "first line"); });
  t.Literal("direct", ":syntax on");
  t.Literal("wrapped", ":syntax on");
  t.Keys("direct", "Enter");
  t.Keys("wrapped", "Enter");
  t.Literal("direct", ":set number");
  t.Literal("wrapped", ":set number");
  t.Keys("direct", "Enter");
  t.Keys("wrapped", "Enter");
  ExpectSameScreens(t, ":set number", [](const std::string& s) { return Has(s, "  1 "); });
  for (const char* step : {"Gohello from the wrapper", "Escape", "ggyyP", "jdd"}) {
    if (std::string(step) == "Escape") {
      t.Keys("direct", "Escape");
      t.Keys("wrapped", "Escape");
    } else {
      t.Literal("direct", step);
      t.Literal("wrapped", step);
    }
    ExpectSameScreens(t, step, [](const std::string& s) { return Has(s, "hello from the"); });
  }
  // Visual mode (reverse video) and a split window.
  t.Keys("direct", "V j");
  t.Keys("wrapped", "V j");
  ExpectSameScreens(t, "visual", [](const std::string& s) { return Has(s, "VISUAL LINE"); });
  t.Keys("direct", "Escape");
  t.Keys("wrapped", "Escape");
  t.Literal("direct", ":split");
  t.Literal("wrapped", ":split");
  t.Keys("direct", "Enter");
  t.Keys("wrapped", "Enter");
  ExpectSameScreens(t, ":split", [](const std::string& s) { return Has(s, "file.txt [+]"); });
  t.Literal("direct", ":qa!");
  t.Literal("wrapped", ":qa!");
  t.Keys("direct", "Enter");
  t.Keys("wrapped", "Enter");
  EXPECT_TRUE(WaitFor([&] { return t.Run("display-message -p -t wrapped '#{pane_dead}'") == "1\n"; },
                      5000));
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(rc_file).empty(); }, 5000));
  EXPECT_EQ(ReadFile(rc_file), "0\n");
}

TEST(TmuxWrap, CursesProgramFollowsResizesTheSameWay) {
  TempDir dir;
  Tmux t(dir);
  const std::string prog =
      "python3 " + ShellQuote(std::string(AGTMUX_TEST_DATA) + "/resize_curses.py");
  t.NewSession("direct", 70, 20, prog);
  t.NewSession("wrapped", 70, 20, kWrap + prog);
  ExpectSameScreens(t, "start", [](const std::string& s) { return Has(s, "size 70x20"); });
  t.Literal("direct", "abc");
  t.Literal("wrapped", "abc");
  ExpectSameScreens(t, "typing", [](const std::string& s) { return Has(s, "keys: abc"); });
  for (auto [cols, rows] : {std::pair{100, 30}, std::pair{50, 12}, std::pair{81, 25}}) {
    const std::string size = "-x " + std::to_string(cols) + " -y " + std::to_string(rows);
    t.Run("resize-window -t direct " + size);
    t.Run("resize-window -t wrapped " + size);
    const std::string want = "size " + std::to_string(cols) + "x" + std::to_string(rows);
    ExpectSameScreens(t, want, [&](const std::string& s) { return Has(s, want); });
  }
  t.Literal("direct", "q");
  t.Literal("wrapped", "q");
  EXPECT_TRUE(WaitFor([&] { return t.Run("display-message -p -t wrapped '#{pane_dead}'") == "1\n"; },
                      5000));
}

TEST(TmuxWrap, TputColsFollowsResizePane) {
  TempDir dir;
  Tmux t(dir);
  t.NewSession("wrapped", 90, 20, kWrap + "sh");
  // tmux applies a resize to the pane's terminal in its own loop, a moment
  // after the command returns: ask again until the answer is the new size.
  auto cols_seen = [&](const std::string& want) {
    return WaitFor(
        [&] {
          t.Run("clear-history -t wrapped");
          t.Literal("wrapped", "clear; echo cols=$(tput cols) lines=$(tput lines)");
          t.Keys("wrapped", "Enter");
          return WaitFor([&] { return Has(t.Run("capture-pane -p -t wrapped"), want); }, 300);
        },
        5000);
  };
  EXPECT_TRUE(cols_seen("cols=90 lines=20"));
  t.Run("split-window -h -t wrapped -l 30 'sleep 100'");  // the wrapped pane shrinks
  const std::string width = t.Run("display-message -p -t wrapped.0 '#{pane_width}'");
  ASSERT_FALSE(width.empty());
  EXPECT_NE(width, "90\n");
  t.Run("select-pane -t wrapped.0");
  EXPECT_TRUE(cols_seen("cols=" + width.substr(0, width.size() - 1) + " lines=20"))
      << t.Run("capture-pane -p -t wrapped.0");
  t.Run("kill-pane -t wrapped.1");
  t.Run("resize-window -t wrapped -x 120 -y 30");
  EXPECT_TRUE(cols_seen("cols=120 lines=30")) << t.Run("capture-pane -p -t wrapped");
}

TEST(TmuxWrap, TerminalModesAreRestoredHoweverTheChildEnds) {
  TempDir dir;
  Tmux t(dir);
  t.NewSession("sh", 100, 30, "sh");
  const std::string d = dir.path();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"normal", "sh -c 'exit 0'"},
      {"status", "sh -c 'exit 9'"},
      {"crash", "sh -c 'kill -SEGV $$'"},
      {"killed", "sh -c 'kill -KILL $$'"},
      {"raw", "sh -c 'stty raw -echo; exit 0'"},
  };
  for (const auto& [name, cmd] : cases) {
    const std::string before = d + "/" + name + ".before";
    const std::string after = d + "/" + name + ".after";
    // stty -a, and the terminal's file status flags (O_NONBLOCK above all:
    // the next program in this shell must not read EAGAIN).
    const std::string flags =
        "python3 -c 'import fcntl; print(\"flags\", fcntl.fcntl(0, fcntl.F_GETFL))'";
    t.Literal("sh", "(stty -a; " + flags + ") > " + before + "; " + kWrap + cmd + "; echo rc=$? > " + d +
                        "/" + name + ".rc; (stty -a; " + flags + ") > " + after);
    t.Keys("sh", "Enter");
    // The "flags N" line whole: it may still be being written when the word
    // is already in the file (a CI run read "...flags" and failed).
    ASSERT_TRUE(WaitFor(
        [&] {
          const std::string a = ReadFile(after);
          return a.find("\nflags ") != std::string::npos && a.back() == '\n';
        },
        8000))
        << name << ": " << ReadFile(after);
    EXPECT_EQ(ReadFile(before), ReadFile(after)) << name;
  }
  EXPECT_EQ(ReadFile(d + "/normal.rc"), "rc=0\n");
  EXPECT_EQ(ReadFile(d + "/status.rc"), "rc=9\n");
  EXPECT_EQ(ReadFile(d + "/crash.rc"), "rc=139\n");
  EXPECT_EQ(ReadFile(d + "/killed.rc"), "rc=137\n");
}

TEST(TmuxWrap, SuspendAndResumeWithCtrlZ) {
  TempDir dir;
  Tmux t(dir);
  t.NewSession("sh", 100, 30, "bash --norc --noprofile -i");
  const std::string d = dir.path();
  t.Literal("sh", "stty -a > " + d + "/before; " + kWrap + "cat");
  t.Keys("sh", "Enter");
  t.Literal("sh", "typed-in-cat");
  t.Keys("sh", "Enter");
  ASSERT_TRUE(WaitFor([&] {
    const std::string s = t.Run("capture-pane -p -t sh");
    return s.find("typed-in-cat\ntyped-in-cat") != std::string::npos;
  }, 5000)) << t.Run("capture-pane -p -t sh");
  t.Keys("sh", "C-z");
  ASSERT_TRUE(WaitFor([&] { return Has(t.Run("capture-pane -p -t sh"), "Stopped"); }, 5000))
      << t.Run("capture-pane -p -t sh");
  t.Literal("sh", "stty -a > " + d + "/stopped");
  t.Keys("sh", "Enter");
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(d + "/stopped").empty(); }, 5000));
  EXPECT_EQ(ReadFile(d + "/before"), ReadFile(d + "/stopped"));
  t.Literal("sh", "fg");
  t.Keys("sh", "Enter");
  t.Literal("sh", "after-fg");
  t.Keys("sh", "Enter");
  EXPECT_TRUE(WaitFor([&] {
    return t.Run("capture-pane -p -t sh").find("after-fg\nafter-fg") != std::string::npos;
  }, 5000)) << t.Run("capture-pane -p -t sh");
  t.Keys("sh", "C-d");
  // The next command is typed once the shell is back, as a person does:
  // what is typed while the wrapper is still forwarding goes to the agent's
  // terminal and ends with it (docs/wrap.md, "Typing ahead").
  ASSERT_TRUE(WaitFor([&] { return t.Run("display-message -p -t sh '#{pane_current_command}'") == "bash\n"; }, 5000))
      << t.Run("display-message -p -t sh '#{pane_current_command}'");
  t.Literal("sh", "echo rc=$?; stty -a > " + d + "/after");
  t.Keys("sh", "Enter");
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(d + "/after").empty(); }, 5000));
  EXPECT_EQ(ReadFile(d + "/before"), ReadFile(d + "/after"));
}

}  // namespace
}  // namespace agt::wrap
