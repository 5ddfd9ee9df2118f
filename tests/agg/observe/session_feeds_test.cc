// Which sessions get a feed client (FeedSessions): only those holding a
// watched pane that the main client's session does not show.
#include "aggregator/observe/session_feeds.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace agt::agg
