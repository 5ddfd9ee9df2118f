// The API's routes over a DaemonCore with the fake engine and persistence:
// POST /v1/events answers per event only after the commit, a failed commit
// is a 500 that leaves the daemon serving, a malformed body reaches neither
// engine nor store, and the reads show what the engine decided.
#include "aggregator/api/api.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "libagtcore/event_codec.h"
#include "tests/agg/daemon/core_fixture.h"
#include "tests/state/event_builder.h"

namespace agt::agg::testing {
namespace {

using state::testing::StateEv;
using state::testing::WrapperStart;

struct CapturedExchange final : Exchange {
  std::optional<HttpResponse> reply;
  void Reply(HttpResponse r) override { reply = std::move(r); }
  /// A deferred answer lands in `reply` too (the test reads it after the call).
  std::shared_ptr<DeferredReply> Defer() override {
    struct Later final : DeferredReply {
      explicit Later(CapturedExchange* ex) : ex(ex) {}
      void Reply(HttpResponse r) override { ex->reply = std::move(r); }
      bool closed() const override { return false; }
      CapturedExchange* ex;
    };
    return std::make_shared<Later>(this);
  }
  std::shared_ptr<ChunkedStream> Stream(int, std::string_view) override { return nullptr; }
};

class ApiTest : public CoreFixture {
 protected:
  HttpResponse Call(const std::string& method, const std::string& path, const std::string& body = "") {
    ApiContext ctx;
    ctx.core = core_.get();
    ctx.clock = &clock_;
    ctx.socket_path = "/nonexistent/agtmuxd.sock";
    ctx.started_at = clock_.Now();
    Handler h = MakeApiHandler(ctx);
    HttpRequest req;
    req.method = method;
    req.path = path;
    req.body = body;
    CapturedExchange ex;
    h(req, ex);
    EXPECT_TRUE(ex.reply.has_value()) << method << " " << path;
    return ex.reply.value_or(HttpResponse{});
  }
  static rapidjson::Document Json(const HttpResponse& r) {
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    EXPECT_FALSE(d.HasParseError()) << r.body;
    return d;
  }
  std::string Batch(std::vector<core::Event> events) {
    std::string body = "[";
    for (size_t i = 0; i < events.size(); ++i) body += (i ? "," : "") + core::EncodeEvent(events[i]);
    return body + "]";
  }
};

TEST_F(ApiTest, PostEventsAnswersPerEventAfterTheCommit) {
  HttpResponse r = Call("POST", "/v1/events",
                        Batch({WrapperStart("w1", "%1", 100, clock_.Now()),
                               StateEv("s1", core::Source::kWrapper, "w1", core::State::kRunning, clock_.Now())}));
  ASSERT_EQ(r.status, 200) << r.body;
  rapidjson::Document d = Json(r);
  ASSERT_EQ(d["results"].Size(), 2u);
  EXPECT_STREQ(d["results"][1]["event_id"].GetString(), "id-s1");
  EXPECT_STREQ(d["results"][1]["disposition"].GetString(), "applied");
  ASSERT_EQ(store_->disk().batches.size(), 1u);
  // A re-post is answered from the engine's dedupe, still through a commit.
  r = Call("POST", "/v1/events", core::EncodeEvent(StateEv("s1", core::Source::kWrapper, "w1", core::State::kRunning, clock_.Now())));
  ASSERT_EQ(r.status, 200);
  EXPECT_STREQ(Json(r)["results"][0]["disposition"].GetString(), "duplicate");
  EXPECT_STREQ(Json(r)["results"][0]["error_code"].GetString(), "E_DUPLICATE");
}

TEST_F(ApiTest, AFailedCommitIs500AndTheDaemonKeepsServing) {
  store_->fail_commits = 1;
  HttpResponse r = Call("POST", "/v1/events", core::EncodeEvent(WrapperStart("w1", "%1", 100, clock_.Now())));
  EXPECT_EQ(r.status, 500);
  rapidjson::Document d = Json(r);
  EXPECT_STREQ(d["error"]["code"].GetString(), "E_STORE");
  EXPECT_TRUE(store_->disk().batches.empty());
  EXPECT_EQ(Call("GET", "/v1/health").status, 200);
  r = Call("POST", "/v1/events", core::EncodeEvent(WrapperStart("w2", "%2", 101, clock_.Now())));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(store_->disk().batches.size(), 1u);
}

TEST_F(ApiTest, MalformedBodiesReachNeitherEngineNorStore) {
  HttpResponse r = Call("POST", "/v1/events", "{\"event_id\":");
  EXPECT_EQ(r.status, 400);
  EXPECT_STREQ(Json(r)["error"]["code"].GetString(), "E_PAYLOAD_INVALID");
  core::Event bad = StateEv("s2", core::Source::kWrapper, "w1", core::State::kRunning, clock_.Now());
  std::string body = Batch({WrapperStart("w1", "%1", 100, clock_.Now()), bad});
  body.replace(body.rfind("\"dedupe_key\":\"s2\""), 17, "\"dedupe_key\":7   ");
  r = Call("POST", "/v1/events", body);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(std::string(Json(r)["error"]["message"].GetString()).find("event 1"), std::string::npos) << r.body;
  EXPECT_TRUE(engine_->applied.empty());
  EXPECT_EQ(store_->commit_calls, 0);
  EXPECT_EQ(Call("GET", "/v1/events").status, 405);
}

TEST_F(ApiTest, ReadsShowWhatTheEngineDecidedAndHealthNamesTheSeams) {
  ASSERT_EQ(Call("POST", "/v1/events",
                 Batch({WrapperStart("w1", "%1", 100, clock_.Now()),
                        StateEv("s1", core::Source::kHook, "w1", core::State::kWaitingInput, clock_.Now())}))
                .status,
            200);
  rapidjson::Document panes = Json(Call("GET", "/v1/panes"));
  ASSERT_EQ(panes["items"].Size(), 1u);
  EXPECT_STREQ(panes["items"][0]["state"].GetString(), "waiting_input");
  rapidjson::Document health = Json(Call("GET", "/v1/health"));
  EXPECT_STREQ(health["engine"].GetString(), "fake-engine");
  EXPECT_STREQ(health["persistence"].GetString(), "fake-store");
  EXPECT_EQ(health["events_ingested"].GetInt64(), 2);
}

}  // namespace
}  // namespace agt::agg::testing
