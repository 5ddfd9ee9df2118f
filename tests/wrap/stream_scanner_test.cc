// StreamScanner: OSC titles, notifications, progress and BEL are found in the
// raw byte stream, whatever the read boundaries.
#include "libagtcore/screen/stream_scanner.h"

#include <gtest/gtest.h>

#include <string>

namespace agt::screen {
namespace {

const std::string kStream =
    "hello\x1b]0;\xe2\x9c\xb3 Claude Code\x07"  // title with BEL
    "\x1b[1;31mred\x1b[0m\a"                     // colours, a BEL
    "\x1b]2;second title\x1b\\"                  // title with ST
    "\x1b]9;Approval needed\x07"                 // OSC 9 notification
    "\x1b]9;4;1;42\x07"                          // OSC 9;4 progress
    "\x1b]777;notify;Codex;turn done\x1b\\"      // OSC 777 notification
    "\x1b]7501;state=blocked:app=codex:kind=permission\x07"  // OSC 7501 program status
    "\x1b]7501;?\x07"                             // a program asking (no report)
    "\x1bP+q544e\x1b\\"                          // DCS with no meaning here
    "\x1b]8;;http://x\x07link\x1b]8;;\x07"       // OSC 8 link (ignored)
    "tail\xe2\x9c\xbb\n";

void ExpectAllSignals(const StreamScanner& s) {
  const auto& sig = s.signals();
  EXPECT_EQ(sig.title, "second title");
  EXPECT_EQ(sig.notification, "Codex;turn done");
  EXPECT_EQ(sig.progress_state, 1);
  EXPECT_EQ(sig.progress_value, 42);
  EXPECT_EQ(sig.program_status, "state=blocked:app=codex:kind=permission");
  EXPECT_EQ(sig.bel_count, 1);  // the BELs ending OSCs are terminators, not bells
  EXPECT_EQ(s.recent_output(), "helloredlinktail\xe2\x9c\xbb\n");
}

TEST(StreamScanner, ExtractsSignalsFromOneRead) {
  StreamScanner s;
  EXPECT_TRUE(s.Feed(kStream, 5));
  ExpectAllSignals(s);
  EXPECT_EQ(s.signals().title_at, 5);
  EXPECT_EQ(s.signals().bel_at, 5);
}

TEST(StreamScanner, SplitAtEveryBoundaryGivesTheSameResult) {
  for (size_t cut = 0; cut <= kStream.size(); ++cut) {
    StreamScanner s;
    s.Feed(std::string_view(kStream).substr(0, cut), 1);
    s.Feed(std::string_view(kStream).substr(cut), 2);
    SCOPED_TRACE("cut at " + std::to_string(cut));
    ExpectAllSignals(s);
  }
}

TEST(StreamScanner, ByteAtATime) {
  StreamScanner s;
  for (char c : kStream) s.Feed(std::string_view(&c, 1), 3);
  ExpectAllSignals(s);
}

// Long reads take the 16-bytes-at-a-time text path, single bytes the plain
// one: on any mix of text, controls and sequences the two must agree.
TEST(StreamScanner, BulkTextPathMatchesByteAtATime) {
  std::string stream;
  uint32_t x = 12345;
  auto next = [&x] { return x = x * 1103515245u + 12345u, (x >> 16) & 0x7fff; };
  const char* pieces[] = {"\x1b[32m", "\x1b[0m", "\x1b]0;t\x07", "\a", "\r\n", "\t",
                          "\x7f", "\x1b]9;n\x1b\\", "\xe2\x9c\x93", "\x01", "\x1f"};
  while (stream.size() < 3000) {
    if (next() % 4 == 0) {
      stream += pieces[next() % (sizeof pieces / sizeof pieces[0])];
    } else {
      const size_t run = next() % 40;
      for (size_t i = 0; i < run; ++i) stream.push_back(static_cast<char>(0x20 + next() % 0x60));
    }
  }
  StreamScanner whole;
  StreamScanner bytewise;
  whole.Feed(stream, 1);
  for (char c : stream) bytewise.Feed(std::string_view(&c, 1), 1);
  EXPECT_EQ(whole.recent_output(), bytewise.recent_output());
  EXPECT_EQ(whole.signals().title, bytewise.signals().title);
  EXPECT_EQ(whole.signals().notification, bytewise.signals().notification);
  EXPECT_EQ(whole.signals().bel_count, bytewise.signals().bel_count);
  EXPECT_GT(whole.signals().bel_count, 0);
}

TEST(StreamScanner, TitleTimesFollowTheReadThatEndedIt) {
  StreamScanner s;
  s.Feed("\x1b]0;ab", 10);
  EXPECT_EQ(s.signals().title, "");
  EXPECT_TRUE(s.Feed("c\x07", 20));
  EXPECT_EQ(s.signals().title, "abc");
  EXPECT_EQ(s.signals().title_at, 20);
}

TEST(StreamScanner, ProgressWithoutValueAndIdle) {
  StreamScanner s;
  s.Feed("\x1b]9;4;0\x07", 1);
  EXPECT_EQ(s.signals().progress_state, 0);
  EXPECT_EQ(s.signals().progress_value, -1);
  EXPECT_EQ(s.signals().notification, "");
}

TEST(StreamScanner, CancelledOscIsDropped) {
  StreamScanner s;
  s.Feed("\x1b]0;half\x18rest\x07", 1);  // CAN aborts the OSC; the later BEL rings
  EXPECT_EQ(s.signals().title, "");
  EXPECT_EQ(s.signals().bel_count, 1);
  EXPECT_EQ(s.recent_output(), "rest");
}

TEST(StreamScanner, OverlongOscIsIgnoredNotTruncated) {
  StreamScannerOptions o;
  o.max_osc = 8;
  StreamScanner s(o);
  s.Feed("\x1b]0;0123456789\x07", 1);
  EXPECT_EQ(s.signals().title, "");
  s.Feed("\x1b]0;short\x07", 2);
  EXPECT_EQ(s.signals().title, "short");
}

TEST(StreamScanner, RecentOutputIsBoundedAndKeepsGlyphsWhole) {
  StreamScannerOptions o;
  o.recent_output = 64;
  StreamScanner s(o);
  std::string text;
  for (int i = 0; i < 200; ++i) text += "\xe2\x9c\xb3";
  s.Feed(text, 1);
  EXPECT_LE(s.recent_output().size(), 128u);
  EXPECT_EQ(s.recent_output().size() % 3, 0u);
  EXPECT_EQ(static_cast<unsigned char>(s.recent_output()[0]), 0xe2);
}

}  // namespace
}  // namespace agt::screen
