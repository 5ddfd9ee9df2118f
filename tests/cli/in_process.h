// Runs the CLI's Main (cli/main_lib.cc) inside the test process, as
// `env -i VAR=... agtmux ARGS...` would run the binary: the environment
// replaced for the call, stdout and stderr captured at their file
// descriptors (printf, iostreams and writes alike), the exit code returned.
// What a command does to files, it does for real, in the test's sandbox
// HOME. One call at a time: the environment and fds 1 and 2 are the
// process's own.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/command.h"

namespace agt::test {

struct MainResult {
  int status = -1;
  std::string out;  // stdout; with merge_stderr, stderr too, interleaved as written
  std::string err;
};

namespace in_process_detail {

inline std::string Slurp(int fd) {
  std::string s;
  lseek(fd, 0, SEEK_SET);
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, size_t(n));
  return s;
}

inline int TempFd() {
  char path[] = "/tmp/agtmux-main-XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  return fd;
}

}  // namespace in_process_detail

/// `agtmux args...` in this process, with exactly `env` as its environment.
inline MainResult RunMain(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                          bool merge_stderr = false) {
  using namespace in_process_detail;
  // Keep and replace the environment.
  std::vector<std::string> saved;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) saved.emplace_back(*e);
  clearenv();
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);

  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const int out_fd = TempFd(), err_fd = merge_stderr ? out_fd : TempFd();
  const int keep_out = dup(1), keep_err = dup(2);
  dup2(out_fd, 1);
  dup2(err_fd, 2);

  std::vector<std::string> words = {"agtmux"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  MainResult r;
  r.status = cli::Main(int(words.size()), argv.data());

  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  dup2(keep_out, 1);
  dup2(keep_err, 2);
  close(keep_out);
  close(keep_err);
  r.out = Slurp(out_fd);
  if (!merge_stderr) r.err = Slurp(err_fd), close(err_fd);
  close(out_fd);

  clearenv();
  for (const auto& kv : saved) {
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
  }
  return r;
}

}  // namespace agt::test
