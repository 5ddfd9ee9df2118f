// Unit tests of the daemon's request parsing, query and cursor grammar,
// view filters, and the error table and body (no sockets).
#include <gtest/gtest.h>

#include "aggregator/http/api_error.h"
#include "aggregator/http/http_request.h"
#include "aggregator/view/views.h"
#include "aggregator/view/watch_hub.h"

namespace agt::agg {
namespace {

TEST(RequestParser, ParsesPipelinedRequestsWithQueryAndBody) {
  std::vector<HttpRequest> got;
  RequestParser p({}, [&](HttpRequest r) { got.push_back(std::move(r)); });
  ASSERT_TRUE(p.Feed("GET /v1/panes?state=running&session=a%20b HTTP/1.1\r\nHost: x\r\n\r\n"
                     "POST /v1/events HTTP/1.1\r\nContent-Length: 2\r\nX-Test: Yes\r\n\r\n{}"));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].method, "GET");
  EXPECT_EQ(got[0].path, "/v1/panes");
  EXPECT_EQ(got[0].query["state"], "running");
  EXPECT_EQ(got[0].query["session"], "a b");
  EXPECT_EQ(got[1].body, "{}");
  EXPECT_EQ(got[1].headers["x-test"], "Yes");
}

TEST(RequestParser, SplitAcrossReads) {
  std::vector<HttpRequest> got;
  RequestParser p({}, [&](HttpRequest r) { got.push_back(std::move(r)); });
  std::string req = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
  for (char c : req) {
    ASSERT_TRUE(p.Feed(std::string_view(&c, 1)));
    if (got.empty()) {
      EXPECT_TRUE(p.InRequest());
    }
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_FALSE(p.InRequest());
}

// Backpressure: the server pauses the parser after a request whose answer
// it cannot queue yet; nothing after it is parsed until Resume, and no byte
// is lost across the pause.
TEST(RequestParser, PausesAfterARequestAndResumesWithTheRest) {
  std::vector<HttpRequest> got;
  RequestParser* self = nullptr;
  RequestParser p({}, [&](HttpRequest r) {
    got.push_back(std::move(r));
    self->PauseAfterThisRequest();
  });
  self = &p;
  ASSERT_TRUE(p.Feed("GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}GET /c HT"));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(p.paused());
  ASSERT_TRUE(p.Feed("TP/1.1\r\n\r\n"));  // held while paused
  EXPECT_EQ(got.size(), 1u);
  ASSERT_TRUE(p.Resume());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].path, "/b");
  EXPECT_EQ(got[1].body, "{}");
  ASSERT_TRUE(p.Resume());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].path, "/c");
  ASSERT_TRUE(p.Resume());  // nothing held: stays ready
  EXPECT_FALSE(p.paused());
  ASSERT_TRUE(p.Feed("GET /d HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(got.back().path, "/d");
}

TEST(RequestParser, RejectsGarbageOversizeHeadersAndBodies) {
  RequestParser garbage({}, [](HttpRequest) {});
  EXPECT_FALSE(garbage.Feed("NOT HTTP AT ALL\r\n\r\n"));
  EXPECT_EQ(garbage.error().status, 400);
  EXPECT_EQ(garbage.error().error.code, core::Err::kRequestInvalid);

  RequestLimits small;
  small.max_header_bytes = 64;
  small.max_body_bytes = 10;
  RequestParser headers(small, [](HttpRequest) {});
  EXPECT_FALSE(headers.Feed("GET /v1/health HTTP/1.1\r\nX-Long: " + std::string(200, 'a') + "\r\n\r\n"));
  EXPECT_EQ(headers.error().status, 431);

  RequestParser body(small, [](HttpRequest) {});
  EXPECT_FALSE(body.Feed("POST /v1/events HTTP/1.1\r\nContent-Length: 11\r\n\r\n"));
  EXPECT_EQ(body.error().status, 413);

  RequestParser chunked(small, [](HttpRequest) {});
  EXPECT_FALSE(chunked.Feed("POST /v1/events HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                            "10\r\n0123456789abcdef\r\n0\r\n\r\n"));
  EXPECT_EQ(chunked.error().status, 413);
}

TEST(Query, RejectsBadEscapes) {
  EXPECT_FALSE(ParseQuery("a=%zz").ok());
  EXPECT_FALSE(ParseQuery("a=%4").ok());
  auto q = ParseQuery("a=1&b&c=%41");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)["b"], "");
  EXPECT_EQ((*q)["c"], "A");
}

TEST(Cursor, Grammar) {
  auto c = ParseCursor("01ABCDEF:42");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->stream_id, "01ABCDEF");
  EXPECT_EQ(c->sequence, 42);
  for (const char* bad : {"", "abc", "abc:", ":1", "a b:1", "abc:1x", "abc:-1", "abc:1234567890123456789"}) {
    auto r = ParseCursor(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, core::Err::kCursorInvalid) << bad;
  }
}

TEST(ViewFilter, NamesTheBadParameter) {
  auto f = ParseViewFilter({{"state", "waiting_input"}, {"target", "a,b"}, {"needs_action", "1"}});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->targets, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(f->needs_action);
  for (auto [k, v] : {std::pair{"state", "nap"}, std::pair{"group_by", "x"}, std::pair{"bogus", "1"},
                      std::pair{"needs_action", "maybe"}, std::pair{"target_session", "nosep"}}) {
    auto r = ParseViewFilter({{k, v}});
    ASSERT_FALSE(r.ok()) << k;
    EXPECT_NE(r.error().message.find(k), std::string::npos) << r.error().message;
  }
  EXPECT_FALSE(ParseViewFilter({{"target", "a"}, {"all_targets", "1"}}).ok());
}


// One table maps error codes to HTTP statuses for the routes, the action
// service and the server (docs/api.md, Errors).
TEST(ApiError, StatusForEachKindOfCode) {
  using core::Err;
  EXPECT_EQ(HttpStatusFor(Err::kRefNotFound), 404);
  EXPECT_EQ(HttpStatusFor(Err::kNotFound), 404);
  for (Err e : {Err::kRuntimeStale, Err::kPreconditionFailed, Err::kSnapshotExpired,
                Err::kIdempotencyConflict})
    EXPECT_EQ(HttpStatusFor(e), 409) << core::ErrName(e);
  EXPECT_EQ(HttpStatusFor(Err::kPolicyBlocked), 403);
  EXPECT_EQ(HttpStatusFor(Err::kTargetUnreachable), 502);
  for (Err e : {Err::kIo, Err::kStore, Err::kInternal, Err::kTimeout})
    EXPECT_EQ(HttpStatusFor(e), 500) << core::ErrName(e);
  for (Err e : {Err::kRefInvalid, Err::kRefInvalidEncoding, Err::kRefAmbiguous, Err::kPayloadInvalid,
                Err::kRequestInvalid, Err::kTargetInvalid, Err::kCursorInvalid})
    EXPECT_EQ(HttpStatusFor(e), 400) << core::ErrName(e);
}

TEST(ApiError, BodyAndResponse) {
  core::Error e = core::MakeError(core::Err::kRefNotFound, "no pane \"%7\"");
  EXPECT_EQ(ErrorBody(e),
            "{\"schema_version\":1,\"error\":{\"code\":\"E_REF_NOT_FOUND\",\"message\":\"no pane \\\"%7\\\"\"}}\n");
  HttpResponse r = ErrorResponse(e);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, ErrorBody(e));
  EXPECT_EQ(ErrorResponse(405, e).status, 405);
}
}  // namespace
}  // namespace agt::agg
