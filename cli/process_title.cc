// ShowAsCommand: the wrapper's argv[0] becomes the agent's name (see
// process_title.h for why and what stays).
#include "cli/process_title.h"

#include <cstring>
#include <string>

namespace agt::cli {
namespace {
int g_argc = 0;
char** g_argv = nullptr;
}  // namespace

void RememberArgv(int argc, char** argv) {
  g_argc = argc;
  g_argv = argv;
}

void ShowAsCommand(std::string_view name) {
  if (g_argc < 1 || !g_argv || !g_argv[0] || name.empty()) return;
  // The kernel lays the arguments out back to back: the area runs from
  // argv[0] to the NUL that ends the last one. Only a contiguous area is
  // rewritten (a caller may have replaced argv[i]).
  char* start = g_argv[0];
  char* end = start;
  for (int i = 0; i < g_argc; ++i) {
    if (g_argv[i] != end) return;
    end += std::strlen(g_argv[i]) + 1;
  }
  const size_t area = static_cast<size_t>(end - start);
  if (name.size() + 1 > area) return;
  const size_t argv0_len = std::strlen(start);
  std::string rest(start + argv0_len + 1, end);  // argv[1..], each ending in NUL
  std::string title(name);
  title += '\0';
  title += rest;
  // A name longer than argv[0] ("opencode" for "agtmux") pushes the
  // arguments out: they are cut at the area's end (tmux reads only the
  // first string; `ps` shows what is left).
  if (title.size() > area) {
    title.resize(area);
    title.back() = '\0';
  }
  std::memset(start, 0, area);
  std::memcpy(start, title.data(), title.size());
}

}  // namespace agt::cli
