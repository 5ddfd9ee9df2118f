// Unit tests of what every watch client shares: WatchItems (snapshot,
// delta, reset, heartbeat) and LineStreamDecoder (chunks split anywhere,
// the terminator, an error answer).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "cli/client/daemon_client.h"
#include "cli/client/watch_items.h"

namespace agt::cli {
namespace {

WatchItems::Line Apply(WatchItems* w, const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  return w->Apply(d);
}

TEST(WatchItems, SnapshotDeltaHeartbeatReset) {
  WatchItems w;
  EXPECT_EQ(Apply(&w, R"({"type":"snapshot","cursor":"a:1","items":[{"identity":{"p":"%1"},"state":"idle"}]})"),
            WatchItems::Line::kSnapshot);
  EXPECT_EQ(w.items().size(), 1u);
  EXPECT_EQ(w.cursor(), "a:1");
  uint64_t g = w.generation();
  EXPECT_EQ(Apply(&w, R"({"type":"delta","heartbeat":true,"cursor":"a:1","changes":[]})"),
            WatchItems::Line::kHeartbeat);
  EXPECT_EQ(w.generation(), g);
  EXPECT_EQ(Apply(&w, R"({"type":"delta","cursor":"a:3","changes":[
      {"op":"upsert","identity":{"p":"%2"},"item":{"identity":{"p":"%2"},"state":"running"}},
      {"op":"upsert","identity":{"p":"%1"},"item":{"identity":{"p":"%1"},"state":"running"}}]})"),
            WatchItems::Line::kDelta);
  ASSERT_EQ(w.items().size(), 2u);
  EXPECT_STREQ((*w.items().at(R"({"p":"%1"})"))["state"].GetString(), "running");
  EXPECT_GT(w.generation(), g);
  Apply(&w, R"({"type":"delta","changes":[{"op":"delete","identity":{"p":"%2"}}]})");
  EXPECT_EQ(w.items().size(), 1u);
  EXPECT_EQ(Apply(&w, R"({"type":"reset","reason":"shutdown"})"), WatchItems::Line::kReset);
  EXPECT_TRUE(w.items().empty());
  EXPECT_EQ(Apply(&w, R"({"no":"type"})"), WatchItems::Line::kIgnored);
}

TEST(LineStreamDecoder, LinesSplitAcrossChunksAndFeeds) {
  const std::string wire =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-ndjson\r\n\r\n"
      "6\r\n{\"a\":1\r\n5\r\n}\n{\"b\r\n"
      "4\r\n\":2}\r\n1\r\n\n\r\n0\r\n\r\n";
  for (size_t step : {1u, 3u, 7u, 1000u}) {
    LineStreamDecoder dec;
    std::vector<std::string> lines;
    LineStreamDecoder::Status st = LineStreamDecoder::Status::kMore;
    for (size_t i = 0; i < wire.size() && st == LineStreamDecoder::Status::kMore; i += step)
      st = dec.Feed(wire.substr(i, step), [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      });
    EXPECT_EQ(st, LineStreamDecoder::Status::kEnded) << "step " << step;
    EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"})) << "step " << step;
  }
}

TEST(LineStreamDecoder, AnErrorAnswerIsItsApiError) {
  const std::string body = R"({"schema_version":1,"error":{"code":"E_CURSOR_INVALID","message":"bad cursor"}})";
  const std::string wire = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body;
  LineStreamDecoder dec;
  auto st = dec.Feed(wire.substr(0, 60), [](std::string_view) { return true; });
  EXPECT_EQ(st, LineStreamDecoder::Status::kMore);
  st = dec.Feed(wire.substr(60), [](std::string_view) { return true; });
  ASSERT_EQ(st, LineStreamDecoder::Status::kFailed);
  EXPECT_EQ(dec.error().code, core::Err::kCursorInvalid);
}

}  // namespace
}  // namespace agt::cli
