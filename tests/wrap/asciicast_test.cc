// asciicast v2: the writer's output is valid JSON per line with whole glyphs,
// the reader rejects bad input naming the line, replay gives a timeline.
#include "wrap/asciicast.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "wrap/activity_analyzer.h"
#include "wrap/replay.h"

namespace agt::wrap {
namespace {

constexpr core::TimeNs kMs = core::kNsPerMs;

std::string TempPath(const char* name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/agtmux-cast-" + std::to_string(::getpid()) +
         "-" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Asciicast, JsonStringEscapesAndReplacesInvalidUtf8) {
  std::string out;
  AppendJsonString(&out, "a\"\\\n\x1b[0m\xe2\x9c\xb3\xff\xc3");
  EXPECT_EQ(out, "\"a\\\"\\\\\\n\\u001b[0m\xe2\x9c\xb3\xef\xbf\xbd\xef\xbf\xbd\"");
}

TEST(Asciicast, WriterSplitsOnlyAtGlyphBoundariesAndRoundTrips) {
  const std::string path = TempPath("rt.cast");
  CastHeader h;
  h.width = 40;
  h.height = 10;
  h.timestamp = 1700000000;
  h.env["TERM"] = "xterm-256color";
  auto w = CastWriter::Open(path, h, 1000 * kMs);
  ASSERT_TRUE(w.ok()) << w.error().ToString();
  const std::string glyphs = "\xe2\x9c\xb3\xf0\x9f\x98\x80";
  (*w)->Output(1100 * kMs, "hi \xe2\x9c");         // split inside ✳
  (*w)->Output(1200 * kMs, "\xb3\xf0\x9f");         // completes it, starts 😀
  (*w)->Output(1300 * kMs, "\x98\x80\r\n");
  (*w)->Input(1400 * kMs, "y");
  (*w)->Resize(1500 * kMs, 50, 12);
  ASSERT_TRUE((*w)->Close().ok());

  const std::string text = ReadAll(path);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    rapidjson::Document d;
    d.Parse(line.data(), line.size());
    EXPECT_FALSE(d.HasParseError()) << line;
  }
  auto cast = ParseCast(text);
  ASSERT_TRUE(cast.ok()) << cast.error().ToString();
  EXPECT_EQ(cast->header.width, 40);
  EXPECT_EQ(cast->header.height, 10);
  EXPECT_EQ(cast->header.timestamp, 1700000000);
  EXPECT_EQ(cast->header.env["TERM"], "xterm-256color");
  ASSERT_EQ(cast->events.size(), 5u);
  EXPECT_EQ(cast->events[0].data, "hi ");
  EXPECT_EQ(cast->events[1].data, "\xe2\x9c\xb3");
  EXPECT_EQ(cast->events[2].data, "\xf0\x9f\x98\x80\r\n");
  EXPECT_EQ(cast->events[0].at, 100 * kMs);
  EXPECT_EQ(cast->events[3].code, 'i');
  EXPECT_EQ(cast->events[4].code, 'r');
  EXPECT_EQ(cast->events[4].data, "50x12");
  std::string joined;
  for (const auto& e : cast->events)
    if (e.code == 'o') joined += e.data;
  EXPECT_EQ(joined, "hi " + glyphs + "\r\n");
  ::unlink(path.c_str());
}

TEST(Asciicast, RejectsBadInputNamingTheLine) {
  auto r = ParseCast("");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no header"), std::string::npos);
  r = ParseCast("{\"version\":1,\"width\":80,\"height\":24}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 1: field version"), std::string::npos);
  r = ParseCast("{\"version\":2,\"height\":24}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("field width"), std::string::npos);
  r = ParseCast("{\"version\":2,\"width\":80,\"height\":24}\n[0.1,\"o\",\"x\"]\n[0.2,\"o\"]\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kPayloadInvalid);
  EXPECT_NE(r.error().message.find("line 3"), std::string::npos);
  r = ParseCast("{\"version\":2,\"width\":80,\"height\":24}\n[0.1,\"r\",\"80-24\"]\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("COLSxROWS"), std::string::npos);
  r = ParseCast("{\"version\":2,\"width\":80,\"height\":24}\n{oops\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 2: not JSON"), std::string::npos);
}

TEST(Asciicast, TimesOutOfRangeAreErrorsNotOverflows) {
  // Found by tests/fuzz (fuzz_cast): a timestamp past int64 was converted
  // anyway (undefined behaviour, caught by UBSan).
  auto r = ParseCast("{\"version\":2,\"width\":80,\"height\":24,\"timestamp\":170033333333333333333000000}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 1: field timestamp"), std::string::npos);
  r = ParseCast("{\"version\":2,\"width\":80,\"height\":24}\n[1e300,\"o\",\"x\"]\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 2: event time"), std::string::npos);
  r = ParseCast("{\"version\":2,\"width\":80,\"height\":24,\"timestamp\":1700000000}\n[0.5,\"o\",\"x\"]\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->header.timestamp, 1700000000);
}

TEST(Replay, TimelineFollowsOutputTimingAndResizes) {
  auto cast = ParseCast(
      "{\"version\":2,\"width\":20,\"height\":4}\n"
      "[0.5,\"o\",\"\\u001b]0;task\\u0007working\"]\n"
      "[0.6,\"o\",\".\"]\n"
      "[0.7,\"o\",\".\"]\n"
      "[2.0,\"r\",\"30x6\"]\n"
      "[3.0,\"i\",\"x\"]\n"
      "[3.1,\"o\",\"x\"]\n");
  ASSERT_TRUE(cast.ok()) << cast.error().ToString();
  ReplayResult r = Replay(*cast, "", std::make_unique<ActivityAnalyzer>());
  ASSERT_EQ(r.timeline.size(), 2u) << FormatTimeline(r.timeline);
  EXPECT_EQ(r.timeline[0].signal.state, core::State::kRunning);
  EXPECT_EQ(r.timeline[0].at, 530 * kMs);
  EXPECT_EQ(r.timeline[1].signal.state, core::State::kIdle);
  EXPECT_EQ(r.timeline[1].at, 900 * kMs);  // 200 ms after the last work output
  EXPECT_EQ(r.final_screen.rows, 6);
  EXPECT_EQ(r.final_screen.cols, 30);
  EXPECT_EQ(r.signals.title, "task");
  EXPECT_EQ(FormatTimeline(r.timeline).substr(0, 30), "    0.530s  running  low  wrap");
}

}  // namespace
}  // namespace agt::wrap
