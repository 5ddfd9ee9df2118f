// remote_names.h: a federated host's texts and action ids in the local
// names. Refs of the host's own target name the local target, action ids
// carry the target, and nothing that only looks alike is touched.
#include "aggregator/federation/remote_names.h"

#include <gtest/gtest.h>

namespace agt::agg {
namespace {

TEST(RemoteNamesTest, AForwardedActionIdCarriesItsTarget) {
  EXPECT_EQ(LocalActionId("vm1", "01JG0000000000000000000A01"), "vm1/01JG0000000000000000000A01");
  auto id = ParseLocalActionId("vm1/01JG0000000000000000000A01");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->target, "vm1");
  EXPECT_EQ(id->remote_id, "01JG0000000000000000000A01");
  // A local action id, and ids that name no target, are not forwarded ones.
  EXPECT_FALSE(ParseLocalActionId("01JG0000000000000000000A01"));
  EXPECT_FALSE(ParseLocalActionId("/01JG0000000000000000000A01"));
  EXPECT_FALSE(ParseLocalActionId("vm1/"));
  EXPECT_FALSE(ParseLocalActionId("vm 1/01JG0000000000000000000A01"));
  EXPECT_FALSE(ParseLocalActionId("vm1/a/b"));
}

TEST(RemoteNamesTest, RefsOfTheHostNameTheLocalTarget) {
  EXPECT_EQ(LocalNames("no pane matches pane:host/work/@3/%7", "vm1"), "no pane matches pane:vm1/work/@3/%7");
  EXPECT_EQ(LocalNames("snapshot 01JG0000000000000000000S01 was taken of pane host/%9, not this one", "vm1"),
            "snapshot 01JG0000000000000000000S01 was taken of pane vm1/%9, not this one");
  // A session named host is a session, not the target.
  EXPECT_EQ(LocalNames("ref=pane:host/host/@1/%2 runtime=rt", "vm1"), "ref=pane:vm1/host/@1/%2 runtime=rt");
  // Other words ending in host, and paths, stay.
  EXPECT_EQ(LocalNames("localhost/%1 and /home/host/x", "vm1"), "localhost/%1 and /home/host/x");
}

TEST(RemoteNamesTest, ActionIdsInTextsAreTheLocalOnes) {
  EXPECT_EQ(LocalNames("the pane moved (action 01JG0000000000000000000A01)", "vm1"),
            "the pane moved (action vm1/01JG0000000000000000000A01)");
  EXPECT_EQ(LocalNames("action 01JG0000000000000000000A01 with this request_ref has not finished", "vm1"),
            "action vm1/01JG0000000000000000000A01 with this request_ref has not finished");
  // Not an id: too short, too long, lower case; and a snapshot's id stays.
  EXPECT_EQ(LocalNames("action 01JG000 failed", "vm1"), "action 01JG000 failed");
  EXPECT_EQ(LocalNames("action 01JG0000000000000000000A01X", "vm1"), "action 01JG0000000000000000000A01X");
  EXPECT_EQ(LocalNames("action with this request_ref", "vm1"), "action with this request_ref");
  EXPECT_EQ(LocalNames("unknown snapshot_id '01JG0000000000000000000S01'", "vm1"),
            "unknown snapshot_id '01JG0000000000000000000S01'");
}

}  // namespace
}  // namespace agt::agg
