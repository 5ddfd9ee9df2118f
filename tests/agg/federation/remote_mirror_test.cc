// RemoteMirror: a remote agtmuxd's watch lines become local rows of the
// federated target, exactly as the remote showed them; lines already applied
// are skipped; a reset waits for its snapshot; an unreachable remote shows
// unknown / target_unreachable; Save and Load carry the cursor and panes.
#include "aggregator/federation/remote_mirror.h"

#include <gtest/gtest.h>

#include <string>

namespace agt::agg {
namespace {

std::string Item(const std::string& pane, const std::string& state, const std::string& source, int version) {
  return R"({"identity":{"target":"host","session_name":"work","window_id":"@1","pane_id":")" + pane +
         R"("},"ref":"pane:host/work/@1/)" + pane +
         R"(","session_id":"$1","window_index":1,"window_name":"edit","pane_index":0,"agent":true,"state":")" + state +
         R"(","reason_code":null,"source":"PTY","signal_source":")" + source +
         R"(","confidence":"high","rule_id":"claude.approval","evidence":"Do you want to proceed?",)" +
         R"("waiting":{"approval_type":"shell","details":"rm x","choices":["Yes","No"],"multi_select":false,"cursor_position":1},)" +
         R"("agent_type":"claude","runtime_id":"rt-1","runtime_pid":4242,"agent_version":"2.1.330","verified":false,)" +
         R"("verified_on":[],"state_version":)" + std::to_string(version) +
         R"(,"updated_at":"2026-11-22T04:00:00Z","last_seen_at":"2026-11-22T04:00:05Z","title":"t","cwd":"/w","command":"claude","pane_pid":4200})";
}

std::string Line(const std::string& type, const std::string& stream, int seq, const std::string& body) {
  return R"({"schema_version":1,"stream_id":")" + stream + R"(","cursor":")" + stream + ":" + std::to_string(seq) +
         R"(","scope":"panes","type":")" + type + R"(","sequence":)" + std::to_string(seq) + body + "}";
}

std::string Snapshot(const std::string& stream, int seq, const std::string& items) {
  return Line("snapshot", stream, seq, R"(,"items":[)" + items + "]");
}

std::string Upsert(const std::string& stream, int seq, const std::string& item, const std::string& pane) {
  return Line("delta", stream, seq,
              R"(,"changes":[{"op":"upsert","identity":{"target":"host","session_name":"work","window_id":"@1","pane_id":")" +
                  pane + R"("},"item":)" + item + "}]");
}

TEST(RemoteMirror, ShowsTheRemotesPanesUnderTheLocalNameAsTheRemoteSawThem) {
  RemoteMirror m("vm");
  m.SetReachable(true, 1);
  auto a = m.Apply(Snapshot("S1", 5, Item("%3", "waiting_approval", "wrapper", 7)));
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a, RemoteMirror::Applied::kChanged);
  ASSERT_EQ(m.rows().size(), 1u);
  const PaneRow& r = m.rows()[0];
  EXPECT_EQ(r.target, "vm");
  EXPECT_EQ(r.session_name, "work");
  EXPECT_EQ(r.window_id, "@1");
  EXPECT_EQ(r.pane_id, "%3");
  EXPECT_TRUE(r.in_topology);
  EXPECT_TRUE(r.agent);
  EXPECT_EQ(r.st.signal.state, core::State::kWaitingApproval);
  EXPECT_TRUE(r.st.has_source);
  EXPECT_EQ(r.st.source, core::Source::kWrapper);  // SOURCE column PTY
  EXPECT_EQ(r.st.signal.rule_id, "claude.approval");
  EXPECT_EQ(r.st.signal.evidence, "Do you want to proceed?");
  EXPECT_EQ(r.st.signal.detail.choices, (std::vector<std::string>{"Yes", "No"}));
  EXPECT_EQ(r.st.signal.detail.cursor_position, 1);
  EXPECT_EQ(r.st.state_version, 7);
  EXPECT_EQ(r.runtime_pid, 4242);
  EXPECT_EQ(r.agent_version, "2.1.330");
  EXPECT_NE(r.st.updated_at, 0);
  EXPECT_GT(r.st.last_seen_at, r.st.updated_at);
  EXPECT_EQ(m.cursor(), "S1:5");
}

TEST(RemoteMirror, SkipsLinesAlreadyAppliedAndFollowsDeletes) {
  RemoteMirror m("vm");
  m.SetReachable(true, 1);
  ASSERT_TRUE(m.Apply(Snapshot("S1", 5, Item("%3", "running", "wrapper", 1))).ok());
  ASSERT_EQ(*m.Apply(Upsert("S1", 6, Item("%3", "idle", "hook", 2), "%3")), RemoteMirror::Applied::kChanged);
  EXPECT_EQ(m.rows()[0].st.signal.state, core::State::kIdle);
  EXPECT_EQ(m.rows()[0].st.source, core::Source::kHook);
  // A resumed stream repeating sequence 6 with older contents: skipped.
  EXPECT_EQ(*m.Apply(Upsert("S1", 6, Item("%3", "running", "wrapper", 1), "%3")), RemoteMirror::Applied::kDuplicate);
  EXPECT_EQ(m.rows()[0].st.signal.state, core::State::kIdle);
  EXPECT_EQ(m.duplicates(), 1);
  // A heartbeat moves nothing.
  EXPECT_EQ(*m.Apply(Line("delta", "S1", 6, R"(,"heartbeat":true,"changes":[])")), RemoteMirror::Applied::kUnchanged);
  auto del = Line("delta", "S1", 7,
                  R"(,"changes":[{"op":"delete","identity":{"target":"host","session_name":"work","window_id":"@1","pane_id":"%3"}}])");
  EXPECT_EQ(*m.Apply(del), RemoteMirror::Applied::kChanged);
  EXPECT_TRUE(m.rows().empty());
  EXPECT_EQ(m.cursor(), "S1:7");
}

TEST(RemoteMirror, AResetWaitsForItsSnapshotWhichReplacesEverything) {
  RemoteMirror m("vm");
  m.SetReachable(true, 1);
  ASSERT_TRUE(m.Apply(Snapshot("S1", 5, Item("%3", "running", "wrapper", 1) + "," + Item("%4", "idle", "poller", 1))).ok());
  ASSERT_EQ(m.rows().size(), 2u);
  EXPECT_EQ(*m.Apply(Line("reset", "S2", 0, R"(,"reason":"stream_changed")")), RemoteMirror::Applied::kUnchanged);
  // A delta before the snapshot is refused: the caller resynchronises.
  EXPECT_FALSE(m.Apply(Upsert("S2", 1, Item("%3", "idle", "wrapper", 2), "%3")).ok());
  ASSERT_EQ(*m.Apply(Snapshot("S2", 1, Item("%3", "completed", "wrapper", 3))), RemoteMirror::Applied::kChanged);
  ASSERT_EQ(m.rows().size(), 1u);
  EXPECT_EQ(m.rows()[0].st.signal.state, core::State::kCompleted);
  EXPECT_EQ(m.cursor(), "S2:1");
}

TEST(RemoteMirror, AnUnreachableRemoteShowsUnknownUntilItAnswersAgain) {
  RemoteMirror m("vm");
  m.SetReachable(true, 1);
  ASSERT_TRUE(m.Apply(Snapshot("S1", 5, Item("%3", "running", "wrapper", 1))).ok());
  const core::TimeNs seen = m.rows()[0].st.last_seen_at;
  m.SetReachable(false, 99 * core::kNsPerSec);
  ASSERT_EQ(m.rows().size(), 1u);
  EXPECT_EQ(m.rows()[0].st.signal.state, core::State::kUnknown);
  EXPECT_EQ(m.rows()[0].st.signal.reason_code, "target_unreachable");
  EXPECT_FALSE(m.rows()[0].st.has_source);
  EXPECT_EQ(m.rows()[0].st.updated_at, 99 * core::kNsPerSec);
  EXPECT_EQ(m.rows()[0].st.last_seen_at, seen);
  m.SetReachable(true, 100 * core::kNsPerSec);
  EXPECT_EQ(m.rows()[0].st.signal.state, core::State::kRunning);
  EXPECT_EQ(m.rows()[0].st.source, core::Source::kWrapper);
}

TEST(RemoteMirror, SaveAndLoadKeepTheCursorAndThePanes) {
  RemoteMirror m("vm");
  m.SetReachable(true, 1);
  ASSERT_TRUE(m.Apply(Snapshot("S1", 5, Item("%3", "waiting_input", "hook", 4))).ok());
  ASSERT_TRUE(m.Apply(Upsert("S1", 9, Item("%4", "running", "wrapper", 1), "%4")).ok());
  RemoteMirror again("vm");
  ASSERT_TRUE(again.Load(m.Save()).ok());
  EXPECT_EQ(again.cursor(), "S1:9");
  ASSERT_EQ(again.rows().size(), 2u);
  // Loaded panes are not confirmed yet: unknown until the link is up.
  EXPECT_EQ(again.rows()[0].st.signal.reason_code, "target_unreachable");
  again.SetReachable(true, 2);
  EXPECT_EQ(again.rows()[0].st.signal.state, core::State::kWaitingInput);
  EXPECT_EQ(again.rows()[1].st.signal.state, core::State::kRunning);
  // The resumed stream's overlap is skipped.
  EXPECT_EQ(*again.Apply(Upsert("S1", 9, Item("%4", "idle", "wrapper", 0), "%4")), RemoteMirror::Applied::kDuplicate);
}

// A row's item is rendered once, when it is applied: what a read writes from
// it is what rendering the row afresh writes, with the age computed at the
// read; a change re-renders only the pane it changed.
std::string Written(const std::vector<PaneRow>& rows, core::TimeNs now) {
  JsonOut j;
  j.BeginArray();
  WriteItems(j, Scope::kPanes, rows, ViewFilter{}, now);
  j.EndArray();
  return j.Take();
}

TEST(RemoteMirror, RowsCarryTheirItemRenderedOnceAsAFreshRenderingWouldBe) {
  RemoteMirror m("vm");
  m.SetReachable(true, 1);
  ASSERT_TRUE(m.Apply(Snapshot("S1", 5, Item("%4", "running", "wrapper", 2) + "," +
                                            Item("%3", "waiting_approval", "wrapper", 7))).ok());
  ASSERT_EQ(m.rows().size(), 2u);
  EXPECT_EQ(m.rows()[0].pane_id, "%3");  // in the view's order
  std::vector<PaneRow> fresh = m.rows();
  for (PaneRow& r : fresh) {
    ASSERT_TRUE(r.json) << r.pane_id;
    r.json = nullptr;
  }
  const core::TimeNs now = 1795400000LL * core::kNsPerSec;
  EXPECT_EQ(Written(m.rows(), now), Written(fresh, now));
  EXPECT_NE(Written(m.rows(), now).find("\"age_seconds\":"), std::string::npos);
  for (core::TimeNs t : {now, core::TimeNs(0)}) {
    auto cached = RenderItems(Scope::kPanes, m.rows(), ViewFilter{}, t);
    auto rendered = RenderItems(Scope::kPanes, fresh, ViewFilter{}, t);
    ASSERT_EQ(cached.size(), rendered.size());
    for (size_t i = 0; i < cached.size(); ++i) {
      EXPECT_EQ(cached[i].key, rendered[i].key);
      EXPECT_EQ(cached[i].identity, rendered[i].identity);
      EXPECT_EQ(cached[i].json, rendered[i].json);
    }
  }

  const auto untouched = m.rows()[1].json;
  ASSERT_TRUE(m.Apply(Upsert("S1", 6, Item("%3", "running", "wrapper", 8), "%3")).ok());
  EXPECT_EQ(m.rows()[1].json, untouched) << "a pane the delta did not change was rendered again";
  EXPECT_NE(m.rows()[0].json->head.find("\"state\":\"running\""), std::string::npos) << m.rows()[0].json->head;

  // Unreachable: the rendering follows the row.
  m.SetReachable(false, 2);
  EXPECT_NE(Written(m.rows(), now).find("\"reason_code\":\"target_unreachable\""), std::string::npos);
  EXPECT_EQ(Written(m.rows(), now).find("\"state\":\"running\""), std::string::npos);
}

TEST(RemoteMirror, BadLinesAreErrorsNamingTheProblem) {
  RemoteMirror m("vm");
  auto a = m.Apply("{not json");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, core::Err::kPayloadInvalid);
  auto b = m.Apply(Snapshot("S1", 1, R"({"identity":{"session_name":"w"},"agent":false})"));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("pane_id"), std::string::npos) << b.error().message;
  auto c = m.Apply(Snapshot("S1", 1, R"({"identity":{"pane_id":"%1"},"agent":true,"state":"dancing"})"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("dancing"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace agt::agg
