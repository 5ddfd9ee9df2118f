#include "libagtcore/event_codec.h"

#include <gtest/gtest.h>

#include <string>

namespace agt::core {
namespace {

/// An event with every field set to a non-default value.
Event FullEvent() {
  Event e;
  e.event_id = "01JDXYZ0000000000000000000";
  e.event_type = "state_changed";
  e.source = Source::kWrapper;
  e.dedupe_key = "wrapper:rt1:42";
  e.source_event_id = "seq-42";
  e.source_seq = 42;
  e.event_time = 1'795'317'918'123'456'789LL;
  e.ingested_at = 1'795'317'918'200'000'000LL;
  e.runtime_id = "0123456789abcdef0123";
  e.target_id = "host";
  e.pane_id = "%7";
  e.pid = 4242;
  e.start_hint = 1'795'317'900'000'000'000LL;
  e.action_id = "01JDACTION00000000000000000";
  Signal s;
  s.state = State::kWaitingApproval;
  s.reason_code = "approval_prompt";
  s.confidence = Confidence::kHigh;
  s.rule_id = "claude.approval.bash";
  s.evidence = "Do you want to proceed? ❯ 1. Yes";
  s.detail.approval_type = "shell";
  s.detail.details = "rm -rf build/";
  s.detail.choices = {"Yes", "Yes, and don't ask again", "No"};
  s.detail.multi_select = true;
  s.detail.cursor_position = 2;
  e.signal = s;
  RuntimeInfo r;
  r.agent_type = "claude";
  r.cwd = "/home/u/作業";
  r.argv_hash = "abc";
  r.tmux_socket = "/tmp/tmux-1000/default";
  r.boot_id = "123:1700000000";
  r.started_at = 1'795'317'800'000'000'001LL;
  r.pane_epoch = 3;
  r.agent_version = "2.1.330";
  e.runtime = r;
  e.exit = ExitInfo{137, 9};
  e.health = "degraded";
  e.raw_payload = "{\"tool\":\"Bash\"}";
  return e;
}

/// The minimal valid wire form; tests splice one field in or out.
std::string Minimal(const std::string& extra = "") {
  return R"({"event_id":"e1","event_type":"state_changed","source":"hook",)"
         R"("dedupe_key":"k1","event_time":"2026-11-22T03:25:18Z","runtime_id":"rt1")" +
         extra + "}";
}

void ExpectError(const std::string& json, const std::string& says) {
  Result<Event> r = DecodeEvent(json);
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_EQ(r.error().code, Err::kPayloadInvalid);
  EXPECT_NE(r.error().message.find(says), std::string::npos)
      << "wanted \"" << says << "\" in: " << r.error().message << "\nfor: " << json;
}

TEST(EventCodecTest, FullEventRoundTrips) {
  Event e = FullEvent();
  Result<Event> back = DecodeEvent(EncodeEvent(e));
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(*back, e);
}

TEST(EventCodecTest, EachOptionalFieldRoundTripsAlone) {
  Event base;
  base.event_id = "e1";
  base.event_type = "x";
  base.dedupe_key = "k";
  base.runtime_id = "rt";
  base.event_time = 5;
  std::vector<Event> variants;
  for (Source s : {Source::kHook, Source::kNotify, Source::kWrapper, Source::kPoller}) {
    Event v = base;
    v.source = s;
    variants.push_back(v);
  }
  auto with = [&](auto set) {
    Event v = base;
    set(v);
    variants.push_back(v);
  };
  with([](Event& v) { v.source_event_id = ""; });
  with([](Event& v) { v.source_seq = INT64_MAX; });
  with([](Event& v) { v.source_seq = INT64_MIN; });
  with([](Event& v) { v.ingested_at = -1; });
  with([](Event& v) { v.runtime_id = ""; v.target_id = "t"; v.pane_id = "%1"; });
  with([](Event& v) { v.pid = 0; });
  with([](Event& v) { v.start_hint = 0; });
  with([](Event& v) { v.action_id = "a"; });
  with([](Event& v) { v.signal = Signal{State::kUnknown, "stale_signal", Confidence::kLow, "", "", {}}; });
  with([](Event& v) { v.signal = Signal{State::kRunning, "", Confidence::kMedium, "r", "", {}}; });
  with([](Event& v) { Signal s; s.state = State::kWaitingInput; s.detail.cursor_position = 1; v.signal = s; });
  with([](Event& v) { v.runtime = RuntimeInfo{}; });
  with([](Event& v) { v.exit = ExitInfo{0, 0}; });
  with([](Event& v) { v.health = "down"; });
  with([](Event& v) { v.raw_payload = "line1\nline2\t\"q\"\\ \x01"; });
  with([](Event& v) { v.dedupe_key = std::string("a\0b", 3); });
  for (const Event& v : variants) {
    std::string json = EncodeEvent(v);
    Result<Event> back = DecodeEvent(json);
    ASSERT_TRUE(back.ok()) << json << ": " << back.error().ToString();
    EXPECT_EQ(*back, v) << json;
  }
}

TEST(EventCodecTest, EncodesTimesAsRfc3339AndOmitsEmptyFields) {
  Event e;
  e.event_id = "e1";
  e.event_type = "t";
  e.source = Source::kPoller;
  e.dedupe_key = "k";
  e.runtime_id = "rt";
  e.event_time = 1'795'317'918'123'456'789LL;
  EXPECT_EQ(EncodeEvent(e),
            R"({"event_id":"e1","event_type":"t","source":"poller","dedupe_key":"k",)"
            R"("event_time":"2026-11-22T03:25:18.123456789Z","runtime_id":"rt"})");
}

TEST(EventCodecTest, EncodingRepairsInvalidUtf8) {
  Event e = FullEvent();
  e.raw_payload = "bad \xFF byte";
  std::string json = EncodeEvent(e);
  Result<Event> back = DecodeEvent(json);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->raw_payload, "bad \xEF\xBF\xBD byte");
}

TEST(EventCodecTest, IgnoresUnknownFieldsAndTreatsNullAsAbsent) {
  Result<Event> r = DecodeEvent(Minimal(
      R"(,"future_field":{"a":[1,2]},"x":1.5,"pid":null,"signal":null,"source_seq":null)"));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_FALSE(r->pid.has_value());
  EXPECT_FALSE(r->signal.has_value());
  EXPECT_FALSE(r->source_seq.has_value());
  EXPECT_EQ(r->source, Source::kHook);
  EXPECT_EQ(r->event_time, 1'795'317'918'000'000'000LL);
}

TEST(EventCodecTest, RequiredFields) {
  for (const char* field : {"event_id", "event_type", "source", "dedupe_key", "event_time"}) {
    std::string json = Minimal();
    std::string key = std::string("\"") + field + "\":";
    size_t at = json.find(key);
    ASSERT_NE(at, std::string::npos);
    size_t end = json.find(",\"", at + 1);
    json.erase(at, end - at + 1);
    ExpectError(json, std::string("missing \"") + field + "\"");
    // null is the same as missing for a required field.
    std::string with_null = Minimal();
    with_null.replace(at + key.size(), end - at - key.size(), "null");
    ExpectError(with_null, std::string("missing \"") + field + "\"");
  }
  std::string empty_key = Minimal();
  empty_key.replace(empty_key.find("\"k1\""), 4, "\"\"");
  ExpectError(empty_key, "field \"dedupe_key\" must not be empty");
  ExpectError(Minimal().replace(Minimal().find("\"event_id\":\"e1\""), 15, "\"event_id\":\"\""),
              "field \"event_id\" must not be empty");
}

TEST(EventCodecTest, NeedsARuntimeOrATargetAndPane) {
  std::string no_rt = Minimal();
  no_rt.erase(no_rt.find(R"(,"runtime_id":"rt1")"), std::string(R"(,"runtime_id":"rt1")").size());
  ExpectError(no_rt, "missing \"runtime_id\"");
  ExpectError(no_rt.substr(0, no_rt.size() - 1) + R"(,"target_id":"host"})", "missing \"runtime_id\"");
  ExpectError(no_rt.substr(0, no_rt.size() - 1) + R"(,"pane_id":"%1"})", "target_id");
  Result<Event> pending =
      DecodeEvent(no_rt.substr(0, no_rt.size() - 1) + R"(,"target_id":"host","pane_id":"%1"})");
  ASSERT_TRUE(pending.ok()) << pending.error().ToString();
  EXPECT_EQ(pending->target_id, "host");
  EXPECT_EQ(pending->pane_id, "%1");
}

TEST(EventCodecTest, SourceMustBeKnown) {
  std::string json = Minimal();
  json.replace(json.find("\"hook\""), 6, "\"foo\"");
  ExpectError(json, "unknown source \"foo\"");
  json = Minimal();
  json.replace(json.find("\"hook\""), 6, "\"Hook\"");
  ExpectError(json, "unknown source \"Hook\"");
  json = Minimal();
  json.replace(json.find("\"hook\""), 6, "3");
  ExpectError(json, "field \"source\" must be a string");
}

TEST(EventCodecTest, SourceSeqMustBeAnInt64) {
  ASSERT_EQ(DecodeEvent(Minimal(R"(,"source_seq":9223372036854775807)"))->source_seq,
            INT64_MAX);
  ASSERT_EQ(DecodeEvent(Minimal(R"(,"source_seq":-9223372036854775808)"))->source_seq,
            INT64_MIN);
  ExpectError(Minimal(R"(,"source_seq":1.5)"), "field \"source_seq\" must be an integer");
  ExpectError(Minimal(R"(,"source_seq":1.0)"), "field \"source_seq\" must be an integer");
  ExpectError(Minimal(R"(,"source_seq":1e3)"), "field \"source_seq\" must be an integer");
  ExpectError(Minimal(R"(,"source_seq":"7")"), "field \"source_seq\" must be an integer");
  ExpectError(Minimal(R"(,"source_seq":true)"), "field \"source_seq\" must be an integer");
  ExpectError(Minimal(R"(,"source_seq":9223372036854775808)"),
              "field \"source_seq\" must be an integer in the int64 range");
  ExpectError(Minimal(R"(,"source_seq":-9223372036854775809)"),
              "field \"source_seq\" must be an integer");
  ExpectError(Minimal(R"(,"source_seq":18446744073709551616)"),
              "field \"source_seq\" must be an integer");
}

TEST(EventCodecTest, WrongTypesNameTheField) {
  struct Case {
    const char* extra;
    const char* says;
  };
  const Case cases[] = {
      {R"(,"source_event_id":5)", "field \"source_event_id\" must be a string"},
      {R"(,"ingested_at":123)", "field \"ingested_at\" must be a string"},
      {R"(,"ingested_at":"yesterday")", "field \"ingested_at\": invalid RFC 3339 time"},
      {R"(,"start_hint":"2026-11-22T03:25:18")", "field \"start_hint\": invalid RFC 3339"},
      {R"(,"pid":"12")", "field \"pid\" must be an integer"},
      {R"(,"pid":1.5)", "field \"pid\" must be an integer"},
      {R"(,"target_id":[])", "field \"target_id\" must be a string"},
      {R"(,"pane_id":{})", "field \"pane_id\" must be a string"},
      {R"(,"action_id":false)", "field \"action_id\" must be a string"},
      {R"(,"raw_payload":{"a":1})", "field \"raw_payload\" must be a string"},
      {R"(,"health":"sick")", "field \"health\" must be ok, degraded or down"},
      {R"(,"health":1)", "field \"health\" must be a string"},
      {R"(,"signal":"running")", "field \"signal\" must be an object"},
      {R"(,"signal":{"confidence":"high"})", "missing \"signal.state\""},
      {R"(,"signal":{"state":"busy","confidence":"high"})", "unknown state \"busy\""},
      {R"(,"signal":{"state":"running"})", "missing \"signal.confidence\""},
      {R"(,"signal":{"state":"running","confidence":"sure"})", "unknown confidence \"sure\""},
      {R"(,"signal":{"state":"unknown","confidence":"low"})",
       "field \"signal.reason_code\" is required when the state is \"unknown\""},
      {R"(,"signal":{"state":"running","confidence":"low","rule_id":1})",
       "field \"signal.rule_id\" must be a string"},
      {R"(,"signal":{"state":"running","confidence":"low","evidence":[]})",
       "field \"signal.evidence\" must be a string"},
      {R"(,"signal":{"state":"running","confidence":"low","detail":[]})",
       "field \"signal.detail\" must be an object"},
      {R"(,"signal":{"state":"waiting_input","confidence":"low","detail":{"choices":"a"}})",
       "field \"signal.detail.choices\" must be an array of strings"},
      {R"(,"signal":{"state":"waiting_input","confidence":"low","detail":{"choices":["a",2]}})",
       "field \"signal.detail.choices\"[1] must be a string"},
      {R"(,"signal":{"state":"waiting_input","confidence":"low","detail":{"multi_select":1}})",
       "field \"signal.detail.multi_select\" must be true or false"},
      {R"(,"signal":{"state":"waiting_input","confidence":"low","detail":{"cursor_position":-1}})",
       "field \"signal.detail.cursor_position\" must be 0"},
      {R"(,"signal":{"state":"waiting_input","confidence":"low","detail":{"cursor_position":1.5}})",
       "field \"signal.detail.cursor_position\" must be an integer"},
      {R"(,"signal":{"state":"waiting_input","confidence":"low","detail":{"approval_type":7}})",
       "field \"signal.detail.approval_type\" must be a string"},
      {R"(,"runtime":[])", "field \"runtime\" must be an object"},
      {R"(,"runtime":{"pane_epoch":"1"})", "field \"runtime.pane_epoch\" must be an integer"},
      {R"(,"runtime":{"started_at":5})", "field \"runtime.started_at\" must be a string"},
      {R"(,"runtime":{"agent_type":null,"cwd":1})", "field \"runtime.cwd\" must be a string"},
      {R"(,"exit":{"code":"1"})", "field \"exit.code\" must be an integer"},
      {R"(,"exit":{"code":1,"signal":99999999999})", "field \"exit.signal\" must be an integer"},
      {R"(,"exit":1)", "field \"exit\" must be an object"},
  };
  for (const Case& c : cases) ExpectError(Minimal(c.extra), c.says);
}

TEST(EventCodecTest, RejectsMalformedJson) {
  ExpectError("", "invalid JSON at offset 0");
  ExpectError("{", "invalid JSON");
  ExpectError(Minimal() + " trailing", "invalid JSON");
  ExpectError("[]", "an event must be a JSON object");
  ExpectError("\"str\"", "an event must be a JSON object");
  ExpectError(Minimal(",\"raw_payload\":\"\xFF\""), "invalid JSON");  // not UTF-8
}

TEST(EventCodecTest, DecodesBatches) {
  std::string one = EncodeEvent(FullEvent());
  Result<std::vector<Event>> arr = DecodeEventBatch("[" + one + "," + Minimal() + "]");
  ASSERT_TRUE(arr.ok()) << arr.error().ToString();
  ASSERT_EQ(arr->size(), 2u);
  EXPECT_EQ((*arr)[0], FullEvent());
  EXPECT_EQ((*arr)[1].event_id, "e1");
  Result<std::vector<Event>> obj = DecodeEventBatch("{\"events\":[" + Minimal() + "]}");
  ASSERT_TRUE(obj.ok());
  EXPECT_EQ(obj->size(), 1u);
  EXPECT_TRUE(DecodeEventBatch("[]")->empty());

  Result<std::vector<Event>> bad =
      DecodeEventBatch("[" + Minimal() + "," + Minimal(R"(,"source_seq":"x")") + "]");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "event 1: field \"source_seq\" must be an integer");
  EXPECT_FALSE(DecodeEventBatch("{\"evts\":[]}").ok());
  EXPECT_FALSE(DecodeEventBatch("{\"events\":{}}").ok());
  EXPECT_FALSE(DecodeEventBatch("7").ok());
}

// POST /v1/events: one event, an array, or {"events": [...]}, parsed once.
TEST(EventCodecTest, DecodeEventsTakesOneEventOrABatch) {
  auto one = DecodeEvents(Minimal());
  ASSERT_TRUE(one.ok()) << one.error().ToString();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0], *DecodeEvent(Minimal()));
  auto arr = DecodeEvents("[" + Minimal() + "," + Minimal() + "]");
  ASSERT_TRUE(arr.ok());
  EXPECT_EQ(arr->size(), 2u);
  auto obj = DecodeEvents("{\"events\":[" + Minimal() + "]}");
  ASSERT_TRUE(obj.ok());
  EXPECT_EQ(obj->size(), 1u);
  EXPECT_TRUE(DecodeEvents("[]")->empty());

  auto bad_json = DecodeEvents("{\"event_id\":");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_EQ(bad_json.error().code, Err::kPayloadInvalid);
  EXPECT_NE(bad_json.error().message.find("invalid JSON at offset"), std::string::npos);
  auto bad_one = DecodeEvents(Minimal(R"(,"source_seq":"x")"));
  ASSERT_FALSE(bad_one.ok());
  EXPECT_NE(bad_one.error().message.find("source_seq"), std::string::npos) << bad_one.error().message;
  auto bad_second = DecodeEvents("[" + Minimal() + "," + Minimal(R"(,"source_seq":"x")") + "]");
  ASSERT_FALSE(bad_second.ok());
  EXPECT_EQ(bad_second.error().message.rfind("event 1: ", 0), 0u) << bad_second.error().message;
  EXPECT_FALSE(DecodeEvents("42").ok());
}

}  // namespace
}  // namespace agt::core
