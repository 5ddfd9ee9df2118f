// The daemon's persistence end to end: the real agtmuxd on its SQLite store
// (<state_dir>/agtmux.db). A daemon restarted after SIGTERM or SIGKILL
// serves the same /v1/panes (states, state_version, evidence) as before,
// deduplicates re-sent events, and then behaves like a daemon that was
// never stopped; SIGKILL under load loses no acknowledged event and leaves
// a database that passes PRAGMA integrity_check; the retention timer
// deletes old events; an old events.journal is ignored.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "state/engine.h"
#include "state/store/store.h"
#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

rapidjson::Document Parse(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  return d;
}

// A 26-character id in the daemon's accepted form.
std::string Id(const std::string& prefix, int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%022d", prefix.c_str(), n);
  return std::string(buf).substr(0, 26);
}

std::string Runtime(int pane) { return "rt-persist" + std::string(6, static_cast<char>('a' + pane)); }

std::string HookEvent(const std::string& id, const std::string& runtime, const std::string& pane,
                      const std::string& state) {
  return "{\"event_id\":\"" + id +
         "\",\"event_type\":\"state_changed\",\"source\":\"hook\",\"dedupe_key\":\"hook-" + id +
         "\",\"event_time\":\"2026-11-22T04:00:00Z\",\"runtime_id\":\"" + runtime +
         "\",\"target_id\":\"host\",\"pane_id\":\"" + pane + "\",\"signal\":{\"state\":\"" + state +
         "\",\"confidence\":\"high\",\"rule_id\":\"test.hook\",\"evidence\":\"tool\"},"
         "\"raw_payload\":\"{\\\"hook_event_name\\\":\\\"PreToolUse\\\"}\"}";
}

std::string Batch(const std::vector<std::string>& events) {
  std::string body = "{\"events\":[";
  for (size_t i = 0; i < events.size(); ++i) body += (i ? "," : "") + events[i];
  return body + "]}";
}

// Three agents on three panes, wrapper and hook opinions, a stale mark.
std::vector<std::string> Workload(int round) {
  std::vector<std::string> ev;
  int n = round * 1000;
  for (int p = 1; p <= 3; ++p) {
    const std::string pane = "%" + std::to_string(p);
    if (round == 0) ev.push_back(Started(Id("01JD", ++n), Runtime(p), pane));
    for (int k = 1; k <= 6; ++k) {
      const char* st[] = {"running", "waiting_input", "waiting_approval", "completed"};
      ev.push_back(StateEvent(Id("01JD", ++n), Runtime(p), pane, st[(k + p + round) % 4], round * 10 + k));
      if (k % 3 == 0) ev.push_back(HookEvent(Id("01JD", ++n), Runtime(p), pane, st[(k + round) % 4]));
    }
  }
  ev.push_back(EventJson(Id("01JD", ++n), "stale_detected", Runtime(2), "%2", ""));
  return ev;
}

// /v1/panes items without the one field that depends on the wall clock.
std::string Panes(const Daemon& d) {
  auto r = d.Call("GET", "/v1/panes");
  if (!r.ok() || r->status != 200) return "ERROR";
  rapidjson::Document doc = Parse(r->body);
  rapidjson::Value& items = doc["items"];
  for (auto& item : items.GetArray()) item.RemoveMember("age_seconds");
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  items.Accept(w);
  return buf.GetString();
}

std::vector<std::string> Dispositions(const net::HttpResponse& r) {
  std::vector<std::string> out;
  auto d = Parse(r.body);
  if (!d.IsObject() || !d.HasMember("results")) return {"ERROR " + r.body};
  for (const auto& res : d["results"].GetArray()) out.push_back(res["disposition"].GetString());
  return out;
}

std::unique_ptr<state::Store> OpenReader(const TestEnv& env) {
  state::StoreOptions o;
  o.path = env.state_dir() + "/agtmux.db";
  o.read_only = true;
  auto s = state::Store::Open(o);
  EXPECT_TRUE(s.ok()) << s.error().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

std::string DaemonLog(const TestEnv& env) {
  std::ifstream log(env.state_dir() + "/agtmuxd.log");
  return std::string((std::istreambuf_iterator<char>(log)), {});
}

class PersistenceTest : public ::testing::Test {
 protected:
  std::unique_ptr<Daemon> Start(TestEnv& env) {
    auto d = std::make_unique<Daemon>(env, std::vector<std::string>{"--no-observe"});
    EXPECT_TRUE(d->WaitReady()) << "agtmuxd did not answer /v1/health";
    return d;
  }
  net::HttpResponse Post(const Daemon& d, const std::string& body) {
    auto r = d.Call("POST", "/v1/events", body);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    EXPECT_EQ(r.ok() ? r->status : 0, 200) << (r.ok() ? r->body : "");
    return r.ok() ? *r : net::HttpResponse{};
  }
};

TEST_F(PersistenceTest, RestartAfterSigtermAndSigkillKeepsPanesAndDedupes) {
  TestEnv env, reference_env;
  auto d = Start(env);
  auto reference = Start(reference_env);  // never restarted
  const std::string first = Batch(Workload(0));
  Post(*d, first);
  Post(*reference, first);
  const std::string before = Panes(*d);
  ASSERT_NE(before.find("\"state_version\""), std::string::npos) << before;
  ASSERT_NE(before.find("%3"), std::string::npos) << before;
  auto health = Parse(d->Call("GET", "/v1/health")->body);
  EXPECT_STREQ(health["persistence"].GetString(), "sqlite");

  for (int sig : {SIGTERM, SIGKILL}) {
    SCOPED_TRACE(sig == SIGTERM ? "after SIGTERM" : "after SIGKILL");
    const int status = d->Stop(sig);
    EXPECT_EQ(status, sig == SIGTERM ? 0 : 128 + SIGKILL);
    d = Start(env);
    EXPECT_EQ(Panes(*d), before);
    // Every event is remembered: re-sending the batch changes nothing.
    EXPECT_EQ(Dispositions(Post(*d, first)), std::vector<std::string>(Workload(0).size(), "duplicate"));
    EXPECT_EQ(Panes(*d), before);
  }
  // New events move the restarted daemon exactly like the reference.
  const std::string second = Batch(Workload(1));
  auto got = Dispositions(Post(*d, second));
  auto want = Dispositions(Post(*reference, second));
  EXPECT_EQ(got, want);
  // Both stamp ingested_at from their own clocks, and state_version is
  // derived from it: compare all but those. The restarted daemon's versions
  // must have moved past the ones before the restart.
  auto versions = [](const std::string& s) {
    std::map<std::string, int64_t> out;
    rapidjson::Document doc = Parse(s);
    for (const auto& item : doc.GetArray())
      out[item["identity"]["pane_id"].GetString()] = item["state_version"].GetInt64();
    return out;
  };
  auto strip = [](std::string s) {
    rapidjson::Document doc = Parse(s);
    for (auto& item : doc.GetArray()) {
      item.RemoveMember("updated_at");
      item.RemoveMember("last_seen_at");
      item.RemoveMember("state_version");
    }
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    doc.Accept(w);
    return std::string(buf.GetString());
  };
  const std::string after = Panes(*d);
  EXPECT_NE(strip(after), strip(before));
  EXPECT_EQ(strip(after), strip(Panes(*reference)));
  const auto v_before = versions(before), v_after = versions(after);
  ASSERT_EQ(v_after.size(), 3u);
  for (const auto& [pane, v] : v_after) EXPECT_GT(v, v_before.at(pane)) << pane;

  EXPECT_EQ(d->Stop(SIGKILL), 128 + SIGKILL);
  auto reader = OpenReader(env);
  ASSERT_TRUE(reader);
  EXPECT_EQ(*reader->IntegrityCheck(), "ok");
}

TEST_F(PersistenceTest, Sigkill9UnderLoadLosesNoAcknowledgedEvent) {
  TestEnv env;
  auto d = Start(env);
  Post(*d, Batch({Started(Id("01JE", 1), Runtime(7), "%7")}));
  std::vector<std::string> acked_bodies;
  std::set<std::string> acked_ids;
  std::mt19937 rng(std::random_device{}());
  int n = 10;
  int seq = 0;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const size_t acked_before = acked_bodies.size();
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::thread writer([&] {
      while (!stop) {
        std::vector<std::string> ev;
        std::vector<std::string> ids;
        for (int k = 0; k < 8; ++k) {
          std::lock_guard<std::mutex> l(mu);
          ids.push_back(Id("01JE", ++n));
          ev.push_back(StateEvent(ids.back(), Runtime(7), "%7", k % 2 ? "running" : "waiting_input", ++seq));
        }
        const std::string body = Batch(ev);
        auto r = d->Call("POST", "/v1/events", body);
        if (!r.ok() || r->status != 200) break;  // killed mid-request: not acknowledged
        std::lock_guard<std::mutex> l(mu);
        acked_bodies.push_back(body);
        acked_ids.insert(ids.begin(), ids.end());
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 400));
    const pid_t pid = d->pid();
    kill(pid, SIGKILL);
    stop = true;
    writer.join();
    EXPECT_EQ(d->Stop(SIGKILL), 128 + SIGKILL);
    ASSERT_GT(acked_bodies.size(), acked_before) << "round " << round << " acknowledged nothing";
    {
      auto reader = OpenReader(env);
      ASSERT_TRUE(reader);
      EXPECT_EQ(*reader->IntegrityCheck(), "ok");
      auto events = reader->EventsForRuntime(Runtime(7));
      ASSERT_TRUE(events.ok()) << events.error().ToString();
      std::set<std::string> stored;
      for (const auto& e : *events) stored.insert(e.event_id);
      for (const std::string& id : acked_ids) EXPECT_TRUE(stored.count(id)) << "acknowledged " << id << " lost";
    }
    d = Start(env);
    // Re-sent acknowledged events are duplicates.
    for (size_t b = 0; b < acked_bodies.size(); b += 1 + acked_bodies.size() / 8) {
      EXPECT_EQ(Dispositions(Post(*d, acked_bodies[b])), std::vector<std::string>(8, "duplicate"));
    }
  }
}

// The store written before the daemon starts holds events 20 and 10 days
// old; the daemon restores from it and its retention timer deletes the
// first and clears the payload of the second.
TEST_F(PersistenceTest, RetentionTimerDeletesOldEventsAndClearsOldPayloads) {
  TestEnv env;
  env.vars.push_back("AGTMUX_RETENTION_INTERVAL_MS=100");
  std::filesystem::create_directories(env.state_dir());
  const core::TimeNs now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const core::TimeNs day = 24 * 3600 * core::kNsPerSec;
  {
    state::StoreOptions o;
    o.path = env.state_dir() + "/agtmux.db";
    auto store = state::Store::Open(o);
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    state::Engine engine;
    auto make = [&](const std::string& id, const std::string& type, core::TimeNs at) {
      core::Event e;
      e.event_id = id;
      e.event_type = type;
      e.source = core::Source::kWrapper;
      e.dedupe_key = "dk-" + id;
      e.event_time = at;
      e.ingested_at = at;
      e.runtime_id = "rt-old";
      e.target_id = "host";
      e.pane_id = "%9";
      e.raw_payload = "{\"old\":true}";
      return e;
    };
    core::Event start = make("ev-start", "wrapper_started", now - 20 * day);
    start.runtime = core::RuntimeInfo{"claude", "/tmp", "h", "", "boot", now - 20 * day, 0, ""};
    core::Event mid = make("ev-mid", "state_changed", now - 10 * day);
    mid.source_seq = 1;
    mid.signal = core::Signal{core::State::kRunning, "", core::Confidence::kHigh, "r", "ev", {}};
    core::Event fresh = make("ev-new", "state_changed", now - 3600 * core::kNsPerSec);
    fresh.source_seq = 2;
    fresh.signal = core::Signal{core::State::kWaitingInput, "", core::Confidence::kHigh, "r", "ev", {}};
    for (const auto& e : {start, mid, fresh}) {
      ASSERT_TRUE((*store)->Commit(engine.Apply(e, e.ingested_at), e.ingested_at).ok());
    }
  }
  auto d = Start(env);
  EXPECT_NE(Panes(*d).find("waiting_input"), std::string::npos) << "not restored from the store";
  auto reader = OpenReader(env);
  ASSERT_TRUE(reader);
  auto stored = [&] {
    std::map<std::string, bool> out;  // event_id -> has payload
    auto events = reader->EventsForRuntime("rt-old");
    if (events.ok()) {
      for (const auto& e : *events) out[e.event_id] = !e.raw_payload.empty();
    }
    return out;
  };
  EXPECT_TRUE(PollUntil([&] { return stored().size() == 2 && !stored()["ev-mid"]; }, 15000)) << DaemonLog(env);
  auto left = stored();
  EXPECT_FALSE(left.count("ev-start"));  // 20 days: deleted
  EXPECT_TRUE(left.count("ev-mid"));     // 10 days: kept, payload cleared
  EXPECT_FALSE(left["ev-mid"]);
  EXPECT_TRUE(left["ev-new"]);           // 1 hour: untouched
  // The daemon's panes are unchanged by retention.
  EXPECT_NE(Panes(*d).find("waiting_input"), std::string::npos);
}

TEST_F(PersistenceTest, AnOldJournalIsIgnoredWithAWarning) {
  TestEnv env;
  std::filesystem::create_directories(env.state_dir());
  std::ofstream(env.state_dir() + "/events.journal") << "{\"not\":\"an event the store knows\"}\n";
  auto d = Start(env);
  EXPECT_EQ(Panes(*d), "[]");
  const std::string text = DaemonLog(env);
  EXPECT_NE(text.find("ignoring " + env.state_dir() + "/events.journal"), std::string::npos) << text;
  EXPECT_TRUE(std::filesystem::exists(env.state_dir() + "/events.journal"));  // left untouched
}

}  // namespace
}  // namespace agt::test
