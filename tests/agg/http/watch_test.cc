// Watch streams against the real daemon: snapshot then deltas as they
// happen, heartbeats, resume by cursor, E_CURSOR_INVALID, a cursor of a
// previous daemon run (reset + snapshot), and reset on graceful shutdown.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

/// The JSON lines in a chunked body read so far.
std::vector<std::string> JsonLines(const std::string& raw) {
  std::vector<std::string> out;
  size_t body = raw.find("\r\n\r\n");
  if (body == std::string::npos) return out;
  size_t pos = body + 4;
  while (pos < raw.size()) {
    size_t eol = raw.find("\r\n", pos);
    if (eol == std::string::npos) break;
    std::string line = raw.substr(pos, eol - pos);
    if (!line.empty() && line[0] == '{') {
      while (!line.empty() && line.back() == '\n') line.pop_back();
      out.push_back(line);
    }
    pos = eol + 2;
  }
  return out;
}

rapidjson::Document Parse(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  return d;
}

class WatchTest : public ::testing::Test {
 protected:
  void Start() {
    daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{"--no-observe"});
    ASSERT_TRUE(daemon_->WaitReady());
  }
  void Post(const std::string& events) {
    auto r = daemon_->Call("POST", "/v1/events", "{\"events\":[" + events + "]}");
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }
  std::unique_ptr<RawConn> Watch(const std::string& query) {
    auto c = std::make_unique<RawConn>(env_.socket());
    EXPECT_TRUE(c->Send("GET /v1/watch" + query + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    return c;
  }
  /// Waits until at least `n` JSON lines arrived.
  std::vector<std::string> Lines(RawConn& c, size_t n, int timeout_ms = 5000) {
    PollUntil([&] {
      c.ReadUntil("\x01", 20);
      return JsonLines(c.buffer()).size() >= n;
    }, timeout_ms);
    return JsonLines(c.buffer());
  }
  TestEnv env_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(WatchTest, SnapshotThenDeltasThenResumeByCursor) {
  Start();
  Post(Started("01JD0000000000000000000001", "rt-dddddddddddddddd", "%4"));
  auto c = Watch("?scope=panes&interval=300ms");
  auto lines = Lines(*c, 1);
  ASSERT_GE(lines.size(), 1u);
  auto snap = Parse(lines[0]);
  EXPECT_STREQ(snap["type"].GetString(), "snapshot");
  for (const char* k : {"schema_version", "generated_at", "emitted_at", "stream_id", "cursor", "scope", "type",
                        "sequence", "filters", "summary", "items"})
    EXPECT_TRUE(snap.HasMember(k)) << k;
  std::string stream_id = snap["stream_id"].GetString();
  EXPECT_EQ(std::string(snap["cursor"].GetString()), stream_id + ":" + std::to_string(snap["sequence"].GetInt64()));
  ASSERT_EQ(snap["items"].Size(), 1u);
  int64_t seq0 = snap["sequence"].GetInt64();

  Post(StateEvent("01JD0000000000000000000002", "rt-dddddddddddddddd", "%4", "waiting_approval", 1));
  std::string delta_line;
  ASSERT_TRUE(PollUntil([&] {
    for (const auto& l : Lines(*c, 2, 50)) {
      auto d = Parse(l);
      if (std::string(d["type"].GetString()) == "delta" && !d["changes"].Empty()) {
        delta_line = l;
        return true;
      }
    }
    return false;
  }));
  auto delta = Parse(delta_line);
  EXPECT_GT(delta["sequence"].GetInt64(), seq0);
  const auto& ch = delta["changes"][0];
  EXPECT_STREQ(ch["op"].GetString(), "upsert");
  EXPECT_STREQ(ch["identity"]["pane_id"].GetString(), "%4");
  EXPECT_STREQ(ch["item"]["state"].GetString(), "waiting_approval");

  // Heartbeats keep coming (interval 300ms) with no changes.
  ASSERT_TRUE(PollUntil([&] {
    for (const auto& l : Lines(*c, 3, 50)) {
      auto d = Parse(l);
      if (d.HasMember("heartbeat") && d["changes"].Empty()) return true;
    }
    return false;
  }));

  // Resume from the snapshot's cursor: one delta brings the pane up to date.
  auto r = Watch("?once=1&cursor=" + std::string(snap["cursor"].GetString()));
  auto resumed = Lines(*r, 1);
  ASSERT_GE(resumed.size(), 1u);
  auto rd = Parse(resumed[0]);
  EXPECT_STREQ(rd["type"].GetString(), "delta");
  ASSERT_EQ(rd["changes"].Size(), 1u);
  EXPECT_STREQ(rd["changes"][0]["item"]["state"].GetString(), "waiting_approval");

  // A pane whose runtime ends is deleted from the default (agent panes) view.
  Post(EventJson("01JD0000000000000000000003", "wrapper_exited", "rt-dddddddddddddddd", "%4",
                 ",\"exit\":{\"code\":0,\"signal\":0}"));
  ASSERT_TRUE(PollUntil([&] {
    for (const auto& l : Lines(*c, 3, 50)) {
      auto d = Parse(l);
      if (std::string(d["type"].GetString()) != "delta") continue;
      for (const auto& x : d["changes"].GetArray())
        if (std::string(x["op"].GetString()) == "delete") return true;
    }
    return false;
  }));
}

TEST_F(WatchTest, InvalidCursorIsRejected) {
  Start();
  for (const char* bad : {"garbage", "abc:", ":12", "01ABC:12x", "a-b:3"}) {
    auto r = daemon_->Call("GET", std::string("/v1/watch?cursor=") + bad);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 400) << bad;
    EXPECT_NE(r->body.find("E_CURSOR_INVALID"), std::string::npos) << bad;
  }
  auto ahead = daemon_->Call("GET", "/v1/health");
  auto stream_id = std::string(Parse(ahead->body)["stream_id"].GetString());
  auto r = daemon_->Call("GET", "/v1/watch?cursor=" + stream_id + ":999999");
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("E_CURSOR_INVALID"), std::string::npos);
}

TEST_F(WatchTest, RestartGivesResetThenSnapshotAndShutdownEndsWithReset) {
  Start();
  Post(Started("01JE0000000000000000000001", "rt-eeeeeeeeeeeeeeee", "%5"));
  auto c = Watch("");
  auto lines = Lines(*c, 1);
  ASSERT_GE(lines.size(), 1u);
  std::string cursor = Parse(lines[0])["cursor"].GetString();
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  // The open stream ends with a reset line, then the chunked terminator.
  c->ReadUntil("0\r\n\r\n");
  auto end = JsonLines(c->buffer());
  ASSERT_GE(end.size(), 2u);
  auto last = Parse(end.back());
  EXPECT_STREQ(last["type"].GetString(), "reset");
  EXPECT_STREQ(last["reason"].GetString(), "shutdown");
  EXPECT_NE(c->buffer().find("0\r\n\r\n"), std::string::npos);

  Start();  // a new run: new stream_id, the old cursor is foreign
  auto r = Watch("?once=1&cursor=" + cursor);
  auto after = Lines(*r, 2);
  ASSERT_GE(after.size(), 2u);
  auto reset = Parse(after[0]);
  auto snap = Parse(after[1]);
  EXPECT_STREQ(reset["type"].GetString(), "reset");
  EXPECT_STREQ(snap["type"].GetString(), "snapshot");
  EXPECT_NE(std::string(snap["stream_id"].GetString()), cursor.substr(0, cursor.find(':')));
  EXPECT_EQ(snap["items"].Size(), 1u);  // the pane survived the restart
}

}  // namespace
}  // namespace agt::test
