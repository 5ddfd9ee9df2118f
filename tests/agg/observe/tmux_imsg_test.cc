// The tmux client protocol pieces of aggregator/observe/tmux_imsg.h: the
// header layout, the identify sequence (fds first, FLAGS..DONE+COMMAND in
// one send), the reader against truncated, oversized and unknown messages,
// and Connect against a fake server listening on a Unix socket, which
// receives the passed fd and talks over it.
#include "aggregator/observe/tmux_imsg.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace agt::agg::imsg {
namespace {

uint32_t U32(const std::string& s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}
uint16_t U16(const std::string& s, size_t at) {
  uint16_t v;
  std::memcpy(&v, s.data() + at, 2);
  return v;
}

/// Every message in `bytes`, parsed by the Reader (which must accept all).
std::vector<Message> All(const std::string& bytes) {
  Reader r;
  r.Feed(bytes);
  std::vector<Message> out;
  for (;;) {
    auto m = r.Next();
    EXPECT_TRUE(m.ok());
    if (!m.ok() || !m->has_value()) break;
    out.push_back(**m);
  }
  return out;
}

TEST(TmuxImsg, HeaderLayoutIsTmux33a) {
  auto f = Frame(kMsgIdentifyCwd, std::string("/\0", 2), false, 4242);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 18u);
  EXPECT_EQ(U32(*f, 0), 108u);        // MSG_IDENTIFY_CWD
  EXPECT_EQ(U16(*f, 4), 18u);         // length counts the header
  EXPECT_EQ(U16(*f, 6), 0u);          // no fd
  EXPECT_EQ(U32(*f, 8), 8u);          // PROTOCOL_VERSION in peerid
  EXPECT_EQ(U32(*f, 12), 4242u);      // pid
  auto withfd = Frame(kMsgIdentifyStdin, {}, true, 1);
  ASSERT_TRUE(withfd.ok());
  EXPECT_EQ(U16(*withfd, 6), 1u);     // IMSGF_HASFD
  EXPECT_TRUE(Frame(kMsgCommand, std::string(kMaxMessage - kHeaderSize, 'x'), false, 1).ok());
  EXPECT_FALSE(Frame(kMsgCommand, std::string(kMaxMessage - kHeaderSize + 1, 'x'), false, 1).ok());
}

TEST(TmuxImsg, FdsGoFirstAndFlagsDoneAndCommandShareTheLastSend) {
  Identify id;
  id.pid = 77;
  id.cwd = "/tmp";
  id.env = {"PATH=/bin", "NOEQUALS", "LANG=C.UTF-8"};
  id.argv = {"attach-session", "-t", "$3", "-f", "ignore-size"};
  auto sends = IdentifySends(id);
  ASSERT_TRUE(sends.ok());
  ASSERT_EQ(sends->size(), 3u);
  auto first = All((*sends)[0].bytes), second = All((*sends)[1].bytes);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_TRUE((*sends)[0].pass_fd);
  EXPECT_TRUE((*sends)[1].pass_fd);
  EXPECT_EQ(first[0].type, uint32_t(kMsgIdentifyStdin));
  EXPECT_EQ(second[0].type, uint32_t(kMsgIdentifyStdout));
  EXPECT_EQ(first[0].flags, kHasFd);
  EXPECT_TRUE(first[0].data.empty());  // the server insists on no data

  EXPECT_FALSE((*sends)[2].pass_fd);
  auto last = All((*sends)[2].bytes);
  std::vector<uint32_t> types;
  for (const auto& m : last) {
    types.push_back(m.type);
    EXPECT_EQ(m.flags, 0);
    EXPECT_EQ(m.peerid, kProtocolVersion);
    EXPECT_EQ(m.pid, 77u);
  }
  const std::vector<uint32_t> want = {kMsgIdentifyFlags, kMsgIdentifyLongFlags, kMsgIdentifyTerm,
                                      kMsgIdentifyFeatures, kMsgIdentifyTtyname, kMsgIdentifyCwd,
                                      kMsgIdentifyClientPid, kMsgIdentifyEnviron, kMsgIdentifyEnviron,
                                      kMsgIdentifyDone, kMsgCommand};
  EXPECT_EQ(types, want);  // "NOEQUALS" is not sent
  ASSERT_EQ(last.size(), want.size());
  EXPECT_EQ(last[0].data.size(), 4u);  // int
  EXPECT_EQ(U32(last[0].data, 0), uint32_t(kClientControl));
  EXPECT_EQ(last[1].data.size(), 8u);  // uint64_t
  EXPECT_EQ(last[2].data, std::string("\0", 1));
  EXPECT_EQ(last[4].data, std::string("\0", 1));
  EXPECT_EQ(last[5].data, std::string("/tmp\0", 5));
  EXPECT_EQ(last[6].data.size(), 4u);
  EXPECT_EQ(last[7].data, std::string("PATH=/bin\0", 10));
  EXPECT_TRUE(last[9].data.empty());
  EXPECT_EQ(U32(last[10].data, 0), 5u);  // argc
  EXPECT_EQ(last[10].data.substr(4), std::string("attach-session\0-t\0$3\0-f\0ignore-size\0", 36));
}

TEST(TmuxImsg, TooLongAnEnvironmentOrCommandIsAnError) {
  Identify id;
  id.argv = {"attach-session", std::string(kMaxMessage, 'x')};
  EXPECT_FALSE(IdentifySends(id).ok());
}

TEST(TmuxImsg, Utf8FlagFollowsTheLocaleLikeTmux) {
  EXPECT_EQ(ControlFlagsFor(nullptr, nullptr, nullptr), kClientControl);
  EXPECT_EQ(ControlFlagsFor(nullptr, nullptr, "en_US.UTF-8"), kClientControl | kClientUtf8);
  EXPECT_EQ(ControlFlagsFor("", "C.utf8", "C"), kClientControl | kClientUtf8);
  EXPECT_EQ(ControlFlagsFor("C", "C.UTF-8", "en_US.UTF-8"), kClientControl);  // LC_ALL wins
}

TEST(TmuxImsg, ReaderWaitsForTruncatedMessagesAndPassesUnknownOnes) {
  std::string bytes = *Frame(kMsgReady, {}, false, 1) + *Frame(999, "abc", false, 1) +
                      *Frame(kMsgExit, std::string("\0\0\0\0", 4), false, 1);
  Reader r;
  std::vector<uint32_t> seen;
  // One byte at a time: nothing comes out until a message is whole.
  for (char c : bytes) {
    r.Feed(std::string_view(&c, 1));
    auto m = r.Next();
    ASSERT_TRUE(m.ok());
    if (m->has_value()) seen.push_back((*m)->type);
  }
  EXPECT_EQ(seen, (std::vector<uint32_t>{kMsgReady, 999u, kMsgExit}));
  auto none = r.Next();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(TmuxImsg, ReaderRejectsImpossibleLengths) {
  std::string tiny = *Frame(kMsgReady, {}, false, 1);
  tiny[4] = 15;  // shorter than the header
  tiny[5] = 0;
  Reader a;
  a.Feed(tiny);
  EXPECT_FALSE(a.Next().ok());
  std::string huge = *Frame(kMsgReady, {}, false, 1);
  const uint16_t len = uint16_t(kMaxMessage + 1);
  std::memcpy(huge.data() + 4, &len, 2);
  Reader b;
  b.Feed(huge);
  auto m = b.Next();
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("16385"), std::string::npos);
}

TEST(TmuxImsg, EndingsAreTheServersGoodbyes) {
  for (uint32_t t : {kMsgVersion, kMsgDetach, kMsgDetachKill, kMsgExit, kMsgExited, kMsgShutdown})
    EXPECT_FALSE(EndingOf(t).empty()) << t;
  for (uint32_t t : {uint32_t(kMsgReady), uint32_t(kMsgFlags), 999u}) EXPECT_TRUE(EndingOf(t).empty()) << t;
}

/// A fake tmux server: listens on a socket, accepts one client, reads
/// every sendmsg separately (as tmux does: one fd per read) and records
/// the messages and the fds that came with them.
class FakeServer {
 public:
  explicit FakeServer(const std::string& path) : path_(path) {
    listen_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strcpy(sa.sun_path, path.c_str());
    EXPECT_EQ(bind(listen_, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    EXPECT_EQ(listen(listen_, 1), 0);
  }
  ~FakeServer() {
    close(listen_);
    if (client_ >= 0) close(client_);
    for (int fd : fds) close(fd);
  }
  /// Accepts, then reads until `reads` reads are done or EOF.
  void Serve(int reads) {
    client_ = accept(listen_, nullptr, nullptr);
    for (int i = 0; i < reads; ++i) {
      char buf[65536];
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
      iovec iov{buf, sizeof buf};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      ssize_t n = recvmsg(client_, &msg, 0);
      if (n <= 0) return;
      int fd = -1;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
      reads_.push_back(All(std::string(buf, size_t(n))));
      if (fd >= 0) fds.push_back(fd);
    }
  }
  int client() const { return client_; }
  std::vector<std::vector<Message>> reads_;
  std::vector<int> fds;

 private:
  std::string path_;
  int listen_ = -1;
  int client_ = -1;
};

TEST(TmuxImsg, ConnectPassesTheControlSocketAndSendsIdentifyInThreeReads) {
  char tmpl[] = "/tmp/agtmux-imsg-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/s";
  {
    FakeServer server(path);
    Identify id;
    id.pid = int32_t(getpid());
    id.argv = {"attach-session"};
    std::thread t([&] { server.Serve(3); });
    ConnectResult r = Connect(path, id);
    t.join();
    ASSERT_TRUE(r.conn.has_value()) << r.failure.message;
    ASSERT_EQ(server.reads_.size(), 3u);
    ASSERT_EQ(server.fds.size(), 2u);
    EXPECT_EQ(server.reads_[0].size(), 1u);
    EXPECT_EQ(server.reads_[1].size(), 1u);
    // Flags, done and the command in the one read.
    const auto& last = server.reads_[2];
    ASSERT_GE(last.size(), 3u);
    EXPECT_EQ(last.front().type, uint32_t(kMsgIdentifyFlags));
    EXPECT_EQ(last[last.size() - 2].type, uint32_t(kMsgIdentifyDone));
    EXPECT_EQ(last.back().type, uint32_t(kMsgCommand));
    // Both fds are the other end of our control socket.
    ASSERT_EQ(write(server.fds[1], "%begin\n", 7), 7);
    char buf[16] = {};
    ASSERT_EQ(read(r.conn->control.get(), buf, sizeof buf), 7);
    EXPECT_EQ(std::string(buf), "%begin\n");
    ASSERT_EQ(write(r.conn->control.get(), "ls\n", 3), 3);
    ASSERT_EQ(read(server.fds[0], buf, sizeof buf), 3);
    // A server message comes back on the imsg socket.
    std::string exit = *Frame(kMsgExit, std::string(4, '\0'), false, 1);
    ASSERT_EQ(write(server.client(), exit.data(), exit.size()), ssize_t(exit.size()));
    char in[64];
    ssize_t n = read(r.conn->server.get(), in, sizeof in);
    ASSERT_EQ(n, ssize_t(exit.size()));
    auto got = All(std::string(in, size_t(n)));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(EndingOf(got[0].type), "exit");
  }
  std::filesystem::remove_all(tmpl);
}

TEST(TmuxImsg, NoListenerIsNoServerAndAPathTooLongIsAFailure) {
  Identify id;
  ConnectResult none = Connect("/tmp/agtmux-imsg-no-such-dir/socket", id);
  EXPECT_FALSE(none.conn.has_value());
  EXPECT_EQ(none.failure.kind, ConnectError::kNoServer);
  ConnectResult long_path = Connect("/tmp/" + std::string(200, 'x'), id);
  EXPECT_FALSE(long_path.conn.has_value());
  EXPECT_EQ(long_path.failure.kind, ConnectError::kFailed);
}

}  // namespace
}  // namespace agt::agg::imsg
