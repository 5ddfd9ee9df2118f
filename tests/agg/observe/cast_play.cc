// cast_play: plays the output of a recorded session (asciicast v2) into its
// terminal, byte for byte, at the recorded times. The live CAP gate and the
// observe benchmarks run it in tmux panes through a symlink named after the
// agent (`claude`, `codex`, `gemini`), so the daemon identifies the pane as
// that agent, unwrapped, and watches it as it would the real CLI.
//
//   cast_play FILE [--speed X] [--loop] [--start-file PATH] [--wait-file PATH]
//
// The terminal is put in raw mode, as the agents put it: no output
// post-processing (the recording holds what the agent's terminal received,
// CRs included) and no echo. Without that, tmux's answers to the agent's
// terminal queries (device attributes, XTVERSION: "^[P>|tmux 3.3a^[\...")
// are echoed into the pane, over a startup dialog's options, which the
// agent's screen never showed. Input (those answers included) is left
// unread; input and resize events are not played: the keystrokes were the
// lab driver's, and the pane is created at the recording's size. --wait-file: start when that file exists
// (so several panes start together); --start-file: write the start time
// (CLOCK_REALTIME, ns) there, so a timeline can be put on the cast's clock.
// At the end it stays (sleeping) until killed, like an agent that exited
// into a shell would not: the scoring stops at the cast's end.
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "wrap/asciicast.h"

namespace {

int64_t Now(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void SleepUntil(int64_t mono_ns) {
  timespec ts{time_t(mono_ns / 1000000000), long(mono_ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

bool WriteAll(std::string_view s) {
  while (!s.empty()) {
    ssize_t n = write(1, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(size_t(n));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, start_file, wait_file;
  double speed = 1.0;
  bool loop = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--speed" && i + 1 < argc) speed = std::atof(argv[++i]);
    else if (a == "--loop") loop = true;
    else if (a == "--start-file" && i + 1 < argc) start_file = argv[++i];
    else if (a == "--wait-file" && i + 1 < argc) wait_file = argv[++i];
    else file = a;
  }
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto cast = agt::wrap::ParseCast(text.str());
  if (file.empty() || !in || !cast.ok() || speed <= 0) {
    std::fprintf(stderr, "cast_play: %s: %s\n", file.c_str(),
                 cast.ok() ? "cannot read" : cast.error().ToString().c_str());
    return 2;
  }
  termios t{};
  if (tcgetattr(1, &t) == 0) {
    cfmakeraw(&t);
    tcsetattr(1, TCSANOW, &t);
  }
  while (!wait_file.empty() && access(wait_file.c_str(), F_OK) != 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  do {
    const int64_t start = Now(CLOCK_MONOTONIC);
    if (!start_file.empty()) {
      std::ofstream(start_file + ".tmp") << Now(CLOCK_REALTIME) << "\n";
      std::rename((start_file + ".tmp").c_str(), start_file.c_str());
      start_file.clear();  // the first round only
    }
    for (const auto& e : cast->events) {
      if (e.code != 'o') continue;
      SleepUntil(start + int64_t(double(e.at) / speed));
      if (!WriteAll(e.data)) return 1;
    }
  } while (loop);
  for (;;) pause();
}
