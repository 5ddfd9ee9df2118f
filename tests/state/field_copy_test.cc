// state/field_copy.h and state/hash_bytes.h: the engine's field-by-field
// copies must give exactly what assignment gives, whatever the target held
// before (longer, shorter, empty, the same length), and its string hash must
// tell apart strings that differ in any byte or in length.
#include "state/field_copy.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "state/hash_bytes.h"

namespace agt::state {
namespace {

Signal FullSignal(const std::string& tag) {
  Signal s;
  s.state = State::kWaitingApproval;
  s.reason_code = "reason-" + tag;
  s.confidence = Confidence::kMedium;
  s.rule_id = "rule-" + tag;
  s.evidence = "evidence " + tag;
  s.detail.approval_type = "shell";
  s.detail.details = "rm -rf " + tag;
  s.detail.choices = {"yes", "no " + tag};
  s.detail.multi_select = true;
  s.detail.cursor_position = 2;
  return s;
}

Event FullEvent(const std::string& tag) {
  Event e;
  e.event_id = "01J" + tag;
  e.event_type = "state_changed";
  e.source = Source::kWrapper;
  e.dedupe_key = "dk-" + tag;
  e.source_event_id = "src-" + tag;
  e.source_seq = 7;
  e.event_time = 11;
  e.ingested_at = 12;
  e.runtime_id = "rt-" + tag;
  e.target_id = "host";
  e.pane_id = "%1";
  e.pid = 42;
  e.start_hint = 9;
  e.action_id = "act-" + tag;
  e.signal = FullSignal(tag);
  core::RuntimeInfo info;
  info.agent_type = "claude";
  info.boot_id = "boot";
  e.runtime = info;
  e.exit = core::ExitInfo{1, 2};
  e.health = "ok";
  e.raw_payload = "payload " + tag;
  return e;
}

TEST(FieldCopy, EventsCopyLikeAssignmentFromAnyPriorContent) {
  const std::vector<Event> events = {FullEvent("a"), FullEvent("a-much-longer-tag-than-before"),
                                     FullEvent("b"), Event{}, FullEvent("")};
  for (const Event& before : events) {
    for (const Event& src : events) {
      Event dst = before;
      CopyEvent(dst, src);
      EXPECT_EQ(dst, src);
    }
  }
}

TEST(FieldCopy, PaneStatesAndCandidatesCopyLikeAssignment) {
  std::vector<PaneState> states(3);
  states[0].target_id = "host";
  states[0].pane_id = "%1";
  states[0].runtime_id = std::string(64, 'a');
  states[0].signal = FullSignal("x");
  states[0].has_source = true;
  states[0].last_source_seq = 3;
  states[1] = states[0];
  states[1].runtime_id = std::string(64, 'b');
  states[1].signal = FullSignal("longer tag");
  for (const PaneState& before : states) {
    for (const PaneState& src : states) {
      PaneState dst = before;
      CopyPaneState(dst, src);
      EXPECT_EQ(dst, src);
    }
  }
  Candidate a{Source::kHook, FullSignal("a"), "E1", OrderKey{5, 1, 2, "E1"}, 2, true};
  Candidate b{Source::kPoller, Signal{}, "E22", OrderKey{std::nullopt, 3, 4, "E22"}, 4, false};
  for (const Candidate& before : {a, b, Candidate{}}) {
    for (const Candidate& src : {a, b, Candidate{}}) {
      Candidate dst = before;
      CopyCandidate(dst, src);
      EXPECT_EQ(dst, src);
    }
  }
}

TEST(HashBytes, DifferentStringsHashApart) {
  std::set<uint64_t> seen;
  std::vector<std::string> inputs;
  for (size_t n = 0; n <= 80; ++n) {
    inputs.push_back(std::string(n, 'x'));
    if (n > 0) {
      for (size_t at : {size_t{0}, n / 2, n - 1}) {
        std::string s(n, 'x');
        s[at] = 'y';
        inputs.push_back(s);
      }
    }
  }
  std::set<std::string> distinct(inputs.begin(), inputs.end());
  for (const std::string& s : distinct) {
    EXPECT_EQ(HashBytes(s), HashBytes(std::string(s)));  // a function of the bytes only
    seen.insert(HashBytes(s));
  }
  EXPECT_EQ(seen.size(), distinct.size());
}

TEST(HashBytes, EveryBitVaries) {
  // The runtime index takes the low bits, the dedupe set (after its own
  // mixing) the high ones: each bit should be set about half the time.
  constexpr int kN = 4096;
  std::vector<int> ones(64, 0);
  for (int i = 0; i < kN; ++i) {
    const uint64_t h = HashBytes("runtime-" + std::to_string(i));
    for (int b = 0; b < 64; ++b) ones[b] += static_cast<int>((h >> b) & 1);
  }
  for (int b = 0; b < 64; ++b) {
    EXPECT_GT(ones[b], kN * 4 / 10) << "bit " << b;
    EXPECT_LT(ones[b], kN * 6 / 10) << "bit " << b;
  }
}

}  // namespace
}  // namespace agt::state
