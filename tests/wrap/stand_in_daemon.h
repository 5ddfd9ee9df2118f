// A stand-in agtmuxd for the wrapper's delivery tests: enough HTTP on a
// Unix socket to accept POST /v1/events, record each body, and answer 200.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "libagtcore/event_codec.h"

namespace agt::wrap::testing {

/// A stand-in agtmuxd: accepts connections on a Unix socket, reads one HTTP
/// request per connection, records its body, answers 200.
class StandInDaemon {
 public:
  explicit StandInDaemon(std::string path) : path_(std::move(path)) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path_.c_str());
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0)
      std::abort();
    thread_ = std::thread([this] { Serve(); });
  }
  ~StandInDaemon() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  std::vector<std::string> bodies() {
    std::lock_guard<std::mutex> l(mu_);
    return bodies_;
  }
  std::vector<core::Event> events() {
    std::vector<core::Event> all;
    for (const std::string& b : bodies()) {
      auto batch = core::DecodeEventBatch(b);
      EXPECT_TRUE(batch.ok()) << batch.error().ToString() << "\n" << b;
      if (batch) all.insert(all.end(), batch->begin(), batch->end());
    }
    return all;
  }

 private:
  void Serve() {
    while (!stop_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string req;
      char buf[8192];
      size_t want = std::string::npos;
      for (;;) {
        const ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
        const size_t h = req.find("\r\n\r\n");
        if (h == std::string::npos) continue;
        if (want == std::string::npos) {
          const size_t cl = req.find("Content-Length: ");
          want = h + 4 + (cl == std::string::npos ? 0 : std::stoul(req.substr(cl + 16)));
        }
        if (req.size() >= want) break;
      }
      const size_t h = req.find("\r\n\r\n");
      if (req.rfind("POST /v1/events HTTP/1.1\r\n", 0) == 0 && h != std::string::npos) {
        std::lock_guard<std::mutex> l(mu_);
        bodies_.push_back(req.substr(h + 4));
      }
      const std::string body = "{\"schema_version\":1,\"results\":[]}";
      const std::string resp = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Content-Length: " + std::to_string(body.size()) +
                               "\r\nConnection: close\r\n\r\n" + body;
      (void)!::write(c, resp.data(), resp.size());
      ::close(c);
    }
  }
  std::string path_;
  int fd_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> bodies_;
};

}  // namespace agt::wrap::testing
