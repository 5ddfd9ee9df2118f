// tmux's client protocol (imsg over the server's Unix socket), as much of it
// as a control-mode client needs: the framing, the identify sequence that
// makes a connection a control client, and a reader of what the server
// sends back. TmuxControlClient speaks it instead of spawning `tmux -C`, so
// that the server handles a control client's identify flags and its
// identify-done in one read (tmux 3.3a crashes when an event comes between
// the two: docs/observe.md, "tmux 3.3a and control clients").
//
// Every constant is tmux 3.3a's (tmux-protocol.h, tmux.h, compat/imsg.h);
// a server speaking another protocol version answers MSG_VERSION and the
// caller falls back to `tmux -C`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/result.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::agg::imsg {

/// tmux-protocol.h: PROTOCOL_VERSION, sent in every header's peerid.
constexpr uint32_t kProtocolVersion = 8;
/// compat/imsg.h: the header is 16 bytes (type u32, len u16 counting the
/// header, flags u16, peerid u32, pid u32, host byte order); a message is
/// at most 16384 bytes in all.
constexpr size_t kHeaderSize = 16;
constexpr size_t kMaxMessage = 16384;
/// compat/imsg.h: IMSGF_HASFD, "this message carries the next passed fd".
constexpr uint16_t kHasFd = 1;

/// tmux-protocol.h, enum msgtype (the values a control client uses).
enum MsgType : uint32_t {
  kMsgVersion = 12,
  kMsgIdentifyFlags = 100,
  kMsgIdentifyTerm = 101,
  kMsgIdentifyTtyname = 102,
  kMsgIdentifyStdin = 104,
  kMsgIdentifyEnviron = 105,
  kMsgIdentifyDone = 106,
  kMsgIdentifyClientPid = 107,
  kMsgIdentifyCwd = 108,
  kMsgIdentifyFeatures = 109,
  kMsgIdentifyStdout = 110,
  kMsgIdentifyLongFlags = 111,
  kMsgCommand = 200,
  kMsgDetach = 201,
  kMsgDetachKill = 202,
  kMsgExit = 203,
  kMsgExited = 204,
  kMsgExiting = 205,
  kMsgReady = 207,
  kMsgShutdown = 210,
  kMsgFlags = 218,
};

/// tmux.h: client flags.
constexpr uint64_t kClientControl = 0x2000;
constexpr uint64_t kClientUtf8 = 0x10000;

/// One message of the protocol.
struct Message {
  uint32_t type = 0;
  uint16_t flags = 0;
  uint32_t peerid = 0;
  uint32_t pid = 0;
  std::string data;
};

/// The bytes of one message (header + data); an error when it would exceed
/// kMaxMessage.
core::Result<std::string> Frame(uint32_t type, std::string_view data, bool has_fd, uint32_t pid);

/// What a control client tells the server about itself.
struct Identify {
  uint64_t flags = kClientControl;
  std::string term;  // "" is shown as "unknown"
  std::string cwd = "/";
  int32_t pid = 0;                 // shown by list-clients
  std::vector<std::string> env;    // NAME=value
  std::vector<std::string> argv;   // the command, e.g. attach-session -t $3
};

/// One sendmsg(): `bytes`, and with `pass_fd` the control fd as SCM_RIGHTS.
struct Send {
  std::string bytes;
  bool pass_fd = false;
};

/// The sends that make a control client, in order. The two fd-carrying
/// messages (STDIN, STDOUT: both the control socket) go first, one per
/// send (tmux's reader takes one fd per read); then everything else -
/// FLAGS, LONGFLAGS, ..., DONE and the COMMAND - in one final send, so
/// the server reads the flags and identify-done together.
core::Result<std::vector<Send>> IdentifySends(const Identify& id);

/// The flags `tmux -C` would send from this environment: CLIENT_CONTROL,
/// and CLIENT_UTF8 when LC_ALL, LC_CTYPE or LANG (the first set) names
/// UTF-8 (tmux.c does the same).
uint64_t ControlFlagsFor(const char* lc_all, const char* lc_ctype, const char* lang);

/// Reassembles the server's messages from a byte stream.
class Reader {
 public:
  void Feed(std::string_view bytes) { buf_.append(bytes); }
  /// The next whole message; nullopt until one is complete; an error for a
  /// header whose length is impossible (< 16 or > 16384), after which the
  /// stream is unusable.
  core::Result<std::optional<Message>> Next();

 private:
  std::string buf_;
  size_t pos_ = 0;
};

/// The ends of a control client attached with the protocol.
struct Connection {
  core::UniqueFd server;   // the imsg socket
  core::UniqueFd control;  // our end of the control socketpair
};

enum class ConnectError { kNoServer, kFailed };
struct ConnectFailure {
  ConnectError kind = ConnectError::kFailed;
  std::string message;
};

/// Connects to the server at `socket_path`, makes a socketpair and sends
/// the identify sequence of `id` (pid, cwd and flags as given), passing the
/// pair's other end as stdin and stdout. Blocking, but local and short: a
/// few hundred bytes into an empty socket. kNoServer when nothing listens.
/// The fds returned are blocking and close-on-exec.
struct ConnectResult {
  std::optional<Connection> conn;
  ConnectFailure failure;
};
ConnectResult Connect(const std::string& socket_path, const Identify& id);

/// The ending a server message means for a control client: a name for the
/// log ("exit", "detach", ...) or empty when the message is not an ending.
std::string_view EndingOf(uint32_t type);

}  // namespace agt::agg::imsg
