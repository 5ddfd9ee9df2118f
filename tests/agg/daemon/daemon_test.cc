// End-to-end tests of the real agtmuxd over its Unix socket: endpoint
// shapes, ingest and dedupe, malformed traffic while other clients are
// served, socket permissions, the instance lock, stale sockets, kill -9
// durability, and graceful shutdown.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "libagtcore/os/file.h"
#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

rapidjson::Document Parse(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  return d;
}

class DaemonTest : public ::testing::Test {
 protected:
  void StartDaemon(std::vector<std::string> extra = {"--no-observe"}) {
    daemon_ = std::make_unique<Daemon>(env_, extra);
    ASSERT_TRUE(daemon_->WaitReady()) << "agtmuxd did not answer /v1/health";
  }
  net::HttpResponse Must(const std::string& method, const std::string& path, const std::string& body = "") {
    auto r = daemon_->Call(method, path, body);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    return r.ok() ? *r : net::HttpResponse{};
  }
  TestEnv env_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(DaemonTest, HealthAndSocketPermissions) {
  StartDaemon();
  auto r = Must("GET", "/v1/health");
  EXPECT_EQ(r.status, 200);
  auto d = Parse(r.body);
  ASSERT_TRUE(d.IsObject());
  EXPECT_EQ(d["schema_version"].GetInt(), 1);
  EXPECT_TRUE(d["generated_at"].IsString());
  EXPECT_EQ(d["pid"].GetInt64(), daemon_->pid());
  struct stat st {};
  ASSERT_EQ(stat(env_.socket().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((env_.root + "/run/agtmux").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(DaemonTest, ReadEndpointsCarryTheEnvelope) {
  StartDaemon();
  auto ing = Must("POST", "/v1/events", "{\"events\":[" + Started("01JA0000000000000000000001", "rt-aaaaaaaaaaaaaaaa", "%1") +
                                            "," + StateEvent("01JA0000000000000000000002", "rt-aaaaaaaaaaaaaaaa", "%1", "running", 1) + "]}");
  ASSERT_EQ(ing.status, 200) << ing.body;
  for (const char* scope : {"panes", "windows", "sessions"}) {
    auto r = Must("GET", std::string("/v1/") + scope);
    ASSERT_EQ(r.status, 200) << scope;
    auto d = Parse(r.body);
    for (const char* k : {"schema_version", "generated_at", "filters", "summary", "partial", "requested_targets",
                          "responded_targets", "target_errors", "items"})
      EXPECT_TRUE(d.HasMember(k)) << scope << " lacks " << k;
  }
  auto d = Parse(Must("GET", "/v1/panes").body);
  ASSERT_EQ(d["items"].Size(), 1u);
  const auto& item = d["items"][0];
  EXPECT_STREQ(item["identity"]["target"].GetString(), "host");
  EXPECT_STREQ(item["identity"]["pane_id"].GetString(), "%1");
  EXPECT_TRUE(item["identity"].HasMember("session_name"));
  EXPECT_TRUE(item["identity"].HasMember("window_id"));
  EXPECT_STREQ(item["state"].GetString(), "running");
  EXPECT_STREQ(item["source"].GetString(), "PTY");
  EXPECT_STREQ(item["rule_id"].GetString(), "test.running");
  EXPECT_STREQ(item["agent_type"].GetString(), "claude");
  EXPECT_EQ(d["summary"]["by_state"]["running"].GetInt64(), 1);
  EXPECT_EQ(d["summary"]["by_agent"]["claude"].GetInt64(), 1);
  // Filters: a state that does not match gives no items; a bad one is named.
  EXPECT_EQ(Parse(Must("GET", "/v1/panes?state=idle").body)["items"].Size(), 0u);
  auto bad = Must("GET", "/v1/panes?state=sleepy");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("E_REQUEST_INVALID"), std::string::npos);
  EXPECT_NE(bad.body.find("state"), std::string::npos);
  auto targets = Parse(Must("GET", "/v1/targets").body);
  ASSERT_TRUE(targets["items"].IsArray());
  EXPECT_STREQ(targets["items"][0]["name"].GetString(), "host");
}

TEST_F(DaemonTest, IngestDuplicateAndMalformedEvents) {
  StartDaemon();
  std::string ev = Started("01JB0000000000000000000001", "rt-bbbbbbbbbbbbbbbb", "%2");
  auto first = Parse(Must("POST", "/v1/events", ev).body);
  EXPECT_STREQ(first["results"][0]["disposition"].GetString(), "applied");
  auto again = Parse(Must("POST", "/v1/events", ev).body);
  EXPECT_STREQ(again["results"][0]["disposition"].GetString(), "duplicate");
  // A missing dedupe_key is refused with the field named.
  auto bad = Must("POST", "/v1/events",
                  "{\"event_id\":\"x1\",\"event_type\":\"state_changed\",\"source\":\"wrapper\","
                  "\"event_time\":\"2026-11-22T04:00:00Z\",\"runtime_id\":\"rt-bbbbbbbbbbbbbbbb\"}");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("E_PAYLOAD_INVALID"), std::string::npos);
  EXPECT_NE(bad.body.find("dedupe_key"), std::string::npos);
  auto notjson = Must("POST", "/v1/events", "{not json");
  EXPECT_EQ(notjson.status, 400);
  // The daemon still serves.
  EXPECT_EQ(Must("GET", "/v1/health").status, 200);
}

// A secret on screen (here in the evidence, the question and an option of
// an approval) is redacted at ingest: the API never shows it.
TEST_F(DaemonTest, IngestRedactsEvidenceQuestionAndChoices) {
  StartDaemon();
  const std::string key = "sk-ant-api03-" + std::string(40, 'Q');
  const std::string rt = "rt-cccccccccccccccc";
  auto ing = Must(
      "POST", "/v1/events",
      "{\"events\":[" + Started("01JC0000000000000000000001", rt, "%3") + "," +
          EventJson("01JC0000000000000000000002", "state_changed", rt, "%3",
                    ",\"source_seq\":1,\"signal\":{\"state\":\"waiting_approval\","
                    "\"confidence\":\"high\",\"rule_id\":\"test.approval\",\"evidence\":\"export K=" +
                        key + "\",\"detail\":{\"approval_type\":\"shell\",\"details\":\"Run curl -H " +
                        key + "?\",\"choices\":[\"Yes\",\"Yes, and allow " + key +
                        "\",\"No\"],\"cursor_position\":1}}") +
          "]}");
  ASSERT_EQ(ing.status, 200) << ing.body;
  auto panes = Must("GET", "/v1/panes");
  EXPECT_EQ(panes.body.find("QQQQQQQQQQ"), std::string::npos) << panes.body;
  auto d = Parse(panes.body);
  ASSERT_EQ(d["items"].Size(), 1u);
  const auto& w = d["items"][0]["waiting"];
  ASSERT_TRUE(w.IsObject()) << panes.body;
  EXPECT_STREQ(w["choices"][1].GetString(), "Yes, and allow [REDACTED:anthropic_api_key]");
  EXPECT_STREQ(w["choices"][2].GetString(), "No");
  EXPECT_NE(std::string(w["details"].GetString()).find("[REDACTED:anthropic_api_key]"),
            std::string::npos);
}

TEST_F(DaemonTest, UnknownPathAndWrongMethod) {
  StartDaemon();
  auto nf = Must("GET", "/v1/nope");
  EXPECT_EQ(nf.status, 404);
  EXPECT_NE(nf.body.find("\"schema_version\":1"), std::string::npos);
  auto wm = Must("DELETE", "/v1/panes");
  EXPECT_EQ(wm.status, 405);
  EXPECT_NE(wm.body.find("E_REQUEST_INVALID"), std::string::npos);
}

TEST_F(DaemonTest, MalformedSlowAndHugeRequestsWhileOthersAreServed) {
  StartDaemon({"--no-observe", "--header-timeout", "300ms", "--max-body", "1024"});
  RawConn slow(env_.socket());
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE(slow.Send("GET /v1/health HTTP/1.1\r\nHost: x\r\n"));  // never finishes its headers
  RawConn garbage(env_.socket());
  ASSERT_TRUE(garbage.Send("THIS IS NOT HTTP\r\n\r\n"));
  RawConn huge(env_.socket());
  ASSERT_TRUE(huge.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"));
  // Another client is served meanwhile.
  EXPECT_EQ(Must("GET", "/v1/health").status, 200);
  std::string g = garbage.ReadUntil("}\n");
  EXPECT_NE(g.find("HTTP/1.1 400"), std::string::npos) << g;
  EXPECT_NE(g.find("E_REQUEST_INVALID"), std::string::npos) << g;
  std::string h = huge.ReadUntil("}\n");
  EXPECT_NE(h.find("HTTP/1.1 413"), std::string::npos) << h;
  EXPECT_NE(h.find("\"error\""), std::string::npos) << h;
  std::string s = slow.ReadUntil("}\n", 5000);
  EXPECT_NE(s.find("HTTP/1.1 408"), std::string::npos) << s;
  EXPECT_NE(s.find("E_TIMEOUT"), std::string::npos) << s;
  EXPECT_EQ(Must("GET", "/v1/health").status, 200);
}

TEST_F(DaemonTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  StartDaemon();
  RawConn c(env_.socket());
  ASSERT_TRUE(c.Send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/targets HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::string both = c.ReadUntil("\"items\"");
  EXPECT_NE(both.find("\"status\":\"ok\""), std::string::npos) << both;
  EXPECT_NE(both.find("\"items\""), std::string::npos) << both;
  EXPECT_FALSE(c.eof());
}

TEST_F(DaemonTest, SecondInstanceIsRefusedByTheLock) {
  StartDaemon();
  auto r = env_.Run({AGTMUXD_BIN, "--no-observe"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("already running"), std::string::npos) << r.err;
  EXPECT_EQ(Must("GET", "/v1/health").status, 200);
}

TEST_F(DaemonTest, StaleSocketIsRecoveredAndKill9LosesNoAcknowledgedEvent) {
  StartDaemon();
  std::vector<std::string> acked;
  std::string body = "{\"events\":[" + Started("01JC0000000000000000000001", "rt-cccccccccccccccc", "%3");
  for (int i = 1; i <= 20; ++i) {
    char id[48];  // room for any int: -O1 checks the format's worst case
    std::snprintf(id, sizeof id, "01JC00000000000000000001%02d", i);
    body += "," + StateEvent(id, "rt-cccccccccccccccc", "%3", i % 2 ? "running" : "waiting_input", i);
    acked.push_back(id);
  }
  body += "]}";
  auto r = Must("POST", "/v1/events", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
  struct stat st {};
  ASSERT_EQ(stat(env_.socket().c_str(), &st), 0) << "kill -9 leaves the socket file behind";
  StartDaemon();  // recovers the stale socket
  auto panes = Parse(Must("GET", "/v1/panes").body);
  ASSERT_EQ(panes["items"].Size(), 1u);
  EXPECT_STREQ(panes["items"][0]["state"].GetString(), "waiting_input");  // seq 20 won
  // Every acknowledged event is still known: re-posting each is a duplicate.
  auto again = Parse(Must("POST", "/v1/events", body).body);
  ASSERT_EQ(again["results"].Size(), 21u);
  for (const auto& res : again["results"].GetArray())
    EXPECT_STREQ(res["disposition"].GetString(), "duplicate") << res["event_id"].GetString();
}

TEST_F(DaemonTest, TargetsAddConnectRemove) {
  StartDaemon();
  auto add = Must("POST", "/v1/targets", "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"/tmp/none.sock\"}");
  EXPECT_EQ(add.status, 201) << add.body;
  EXPECT_EQ(Must("POST", "/v1/targets", "{\"name\":\"lab\",\"kind\":\"local\"}").status, 409);
  auto badname = Must("POST", "/v1/targets", "{\"name\":\"a b\",\"kind\":\"local\"}");
  EXPECT_EQ(badname.status, 400);
  EXPECT_NE(badname.body.find("E_TARGET_INVALID"), std::string::npos);
  EXPECT_EQ(Must("POST", "/v1/targets/lab/connect").status, 200);
  EXPECT_EQ(Parse(Must("GET", "/v1/targets").body)["items"].Size(), 2u);
  EXPECT_EQ(Must("DELETE", "/v1/targets/host").status, 400);
  EXPECT_EQ(Must("DELETE", "/v1/targets/lab").status, 200);
  EXPECT_EQ(Must("DELETE", "/v1/targets/lab").status, 404);
}

TEST_F(DaemonTest, SigtermExitsZeroAndRemovesTheSocket) {
  StartDaemon();
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  struct stat st {};
  EXPECT_NE(stat(env_.socket().c_str(), &st), 0);
}

// A daemon nothing can reach any more stops by itself, saying why in its
// log (docs/architecture.md, "Daemon lifecycle"): its socket file removed
// (a cleaned-up runtime directory, a test's temp dir going) leaves it
// unreachable, and the next agtmux would start a second daemon beside it.
TEST_F(DaemonTest, ARemovedSocketStopsTheDaemon) {
  StartDaemon();
  ASSERT_EQ(::unlink(env_.socket().c_str()), 0);
  EXPECT_EQ(daemon_->WaitExit(10000), 0) << "agtmuxd kept running without its socket";
  auto log = core::ReadWholeFile(env_.state_dir() + "/agtmuxd.log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("its socket " + env_.socket() + " was removed; nothing can reach this daemon: stopping"),
            std::string::npos)
      << *log;
}

// A socket of someone else's at the path (another agtmuxd that started
// after this one's was removed) is not ours to remove on the way out.
TEST_F(DaemonTest, AReplacedSocketStopsTheDaemonAndIsLeftInPlace) {
  StartDaemon();
  const std::string moved = env_.root + "/moved.sock";
  ASSERT_EQ(::rename(env_.socket().c_str(), moved.c_str()), 0);
  std::ofstream(env_.socket()) << "not a socket";
  EXPECT_EQ(daemon_->WaitExit(10000), 0) << "agtmuxd kept running with another file at its socket's path";
  struct stat st {};
  ASSERT_EQ(stat(env_.socket().c_str(), &st), 0) << "the file at the path was removed";
  EXPECT_TRUE(S_ISREG(st.st_mode));
  auto log = core::ReadWholeFile(env_.state_dir() + "/agtmuxd.log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("its socket " + env_.socket() + " was replaced by another file"), std::string::npos) << *log;
}

// The state directory removed under it (the store, the log, the spool
// gone): it stops rather than run on with a deleted store.
TEST_F(DaemonTest, ARemovedStateDirectoryStopsTheDaemon) {
  StartDaemon();
  std::filesystem::remove_all(env_.state_dir());
  EXPECT_EQ(daemon_->WaitExit(10000), 0) << "agtmuxd kept running without its state directory";
}

// A request still in its headers at SIGTERM gets the shutdown deadline
// (3 s), then its connection is closed and the daemon still exits 0 (under
// ASan that also means the teardown freed everything).
TEST_F(DaemonTest, SigtermClosesARequestStillInFlightAtTheDeadline) {
  StartDaemon({"--no-observe", "--header-timeout", "60s"});
  RawConn stuck(env_.socket());
  ASSERT_TRUE(stuck.ok());
  ASSERT_TRUE(stuck.Send("GET /v1/health HTTP/1.1\r\nHost: x\r\n"));  // the headers never end
  // Accepted in order: once a later request is answered, the stuck one is in.
  EXPECT_EQ(Must("GET", "/v1/health").status, 200);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(2900)) << "the request was not in flight";
  stuck.ReadUntil("\r\n\r\n", 1000);
  EXPECT_TRUE(stuck.eof());
}

}  // namespace
}  // namespace agt::test
