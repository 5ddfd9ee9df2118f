// Which sessions get a feed client (FeedSessions): only those holding a
// watched pane that the main client's session does not show; and the
// activity scan leaves alone the panes whose %output is heard.
#include "aggregator/observe/session_feeds.h"

#include <gtest/gtest.h>

#include "aggregator/observe/pane_scan.h"
#include "tests/agg/observe/fake_sink.h"

namespace agt::agg {
namespace {

PaneInfo Pane(const std::string& session, const std::string& pane) {
  PaneInfo p;
  p.session_id = session;
  p.pane_id = pane;
  return p;
}

PolledPane Watched(const std::string& pane) {
  PolledPane p;
  p.pane_id = pane;
  return p;
}

TEST(FeedSessions, OnlySessionsWithWatchedPanesOutsideTheMainSession) {
  Topology t;
  t.panes = {Pane("$0", "%0"), Pane("$0", "%1"), Pane("$1", "%2"), Pane("$2", "%3"), Pane("$3", "%4")};
  // %1 is in the main session, %2 and %4 elsewhere; %3 is not an agent pane.
  EXPECT_EQ(FeedSessions(t, {Watched("%1"), Watched("%2"), Watched("%4")}, "$0"),
            (std::set<std::string>{"$1", "$3"}));
  EXPECT_TRUE(FeedSessions(t, {Watched("%1")}, "$0").empty());
  EXPECT_TRUE(FeedSessions(t, {}, "$0").empty());
  // Main session not known yet: every session with a watched pane.
  EXPECT_EQ(FeedSessions(t, {Watched("%1"), Watched("%2")}, ""), (std::set<std::string>{"$0", "$1"}));
}

TEST(FeedSessions, ALinkedWindowNeedsNoFeedWhenTheMainSessionShowsIt) {
  Topology t;
  // The window holding %5 is linked into $1, $2 and the main session $0.
  t.panes = {Pane("$1", "%5"), Pane("$2", "%5"), Pane("$0", "%5"), Pane("$2", "%6"), Pane("$4", "%7"),
             Pane("$3", "%7")};
  EXPECT_TRUE(FeedSessions(t, {Watched("%5")}, "$0").empty());
  // %6 only in $2; %7 in $3 and $4: one feed, on the first of them.
  EXPECT_EQ(FeedSessions(t, {Watched("%5"), Watched("%6"), Watched("%7")}, "$0"),
            (std::set<std::string>{"$2", "$3"}));
}

// A pane whose %output is heard is not marked by the one-second activity
// grain (with a short capture interval that grain would capture it several
// times in the second of each change); a pane not heard still is.
TEST(FeedSessions, TheActivityScanLeavesHeardPanesAlone) {
  testing::FakeSink sink;
  Poller poller{"t", "I", PollerOptions{}, nullptr, sink};
  const TimeNs now = 100 * core::kNsPerSec;
  poller.SetPanes({Watched("%1"), Watched("%2")}, now);
  for (const auto& id : poller.TakeDueCaptures(now)) poller.OnCapture(id, "x", now);
  ASSERT_EQ(poller.NextDeadline(), 0);
  Topology t;
  t.panes = {Pane("$1", "%1"), Pane("$2", "%2")};
  for (auto& p : t.panes) p.activity_at = now;  // activity in the second of the last capture
  PaneScanner scanner("t", "/sock");
  scanner.MarkActivity(t, poller, now, {"%1", "%2"});
  EXPECT_EQ(poller.NextDeadline(), 0);
  scanner.MarkActivity(t, poller, now, {"%1"});
  EXPECT_NE(poller.NextDeadline(), 0);
  EXPECT_EQ(poller.TakeDueCaptures(now + 10 * core::kNsPerSec), (std::vector<std::string>{"%2"}));
}

}  // namespace
}  // namespace agt::agg
