// Crash safety (docs/spec.md §6): a child process ingesting events through the real
// engine and store (store_crash_child) is SIGKILLed at random points, many
// times over the same database. After every kill the database passes
// PRAGMA integrity_check and holds every event whose ingest was
// acknowledged; each new child re-sends the whole stream from the start, so
// what was stored is deduplicated and the rest is ingested. Finally the
// store must hold every event exactly once and the same content as an
// uninterrupted run.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "state/engine.h"
#include "state/store/store.h"
#include "tests/store/dump.h"
#include "tests/store/store_fixtures.h"
#include "tests/store/stream.h"

namespace agt::state {
namespace {

using storetest::TempDir;

// A running child with its stdout on a pipe; killed and reaped on scope exit.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
  }
  ~Child() {
    Kill();
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return pid_ > 0 && fd_ >= 0; }

  /// Reads one line, waiting at most until `deadline`; false at EOF or timeout.
  bool ReadLine(std::string* line, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      if (size_t nl = buf_.find('\n'); nl != std::string::npos) {
        *line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char tmp[4096];
      ssize_t n = read(fd_, tmp, sizeof tmp);
      if (n <= 0) return false;
      buf_.append(tmp, static_cast<size_t>(n));
    }
  }

  /// SIGKILL (if still running) and reap; returns the wait status.
  int Kill() {
    if (pid_ <= 0) return status_;
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
    pid_ = -1;
    return status_;
  }
  /// Reaps a child that is exiting by itself.
  int Wait() {
    if (pid_ <= 0) return status_;
    waitpid(pid_, &status_, 0);
    pid_ = -1;
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  int status_ = 0;
  std::string buf_;
};

// The identity dedupe works on: (runtime or @target, source, dedupe_key).
std::string Identity(const core::Event& e) {
  std::string owner = e.runtime_id.empty() ? "@" + e.target_id : e.runtime_id;
  return owner + "|" + std::string(core::SourceName(e.source)) + "|" + e.dedupe_key;
}

std::multiset<std::string> StoredIdentities(Store& store) {
  std::multiset<std::string> out;
  auto st = store.db().Prepare(
      "SELECT coalesce(runtime_id, '@' || target_id) || '|' || source || '|' || dedupe_key FROM events");
  EXPECT_TRUE(st.ok());
  while (*st->Step()) out.insert(st->Text(0));
  return out;
}

// An uninterrupted in-process run, one commit per event.
storetest::Dump ReferenceDump(const std::string& path, const std::vector<core::Event>& stream) {
  auto store = Store::Open(storetest::Opts(path, Durability::kNormal));
  EXPECT_TRUE(store.ok());
  Engine engine;
  for (const auto& e : stream) {
    auto st = (*store)->Commit(engine.Apply(e, e.ingested_at), e.ingested_at);
    EXPECT_TRUE(st.ok()) << st.error().ToString();
  }
  return storetest::DumpStore((*store)->db());
}

TEST(CrashSafety, SigkillAtRandomPointsLosesNoAcknowledgedEvent) {
  const char* child_path = std::getenv("AGT_STORE_CRASH_CHILD");
  ASSERT_NE(child_path, nullptr) << "AGT_STORE_CRASH_CHILD must name store_crash_child";
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with AGT_STORE_CRASH_SEED)");
  const uint32_t run_seed =
      std::getenv("AGT_STORE_CRASH_SEED") ? static_cast<uint32_t>(std::atoll(std::getenv("AGT_STORE_CRASH_SEED"))) : seed;
  std::mt19937 rng(run_seed);
  constexpr int kEvents = 300;
  constexpr int kRounds = 30;
  const uint32_t stream_seed = rng() % 1000 + 1;

  storetest::StreamOptions so;
  so.seed = stream_seed;
  so.events = kEvents;
  const std::vector<core::Event> stream = storetest::GenerateStream(so);
  std::map<std::string, const core::Event*> by_id;
  for (const auto& e : stream) by_id[e.event_id] = &e;

  TempDir dir;
  const std::string db = dir.File("agtmux.db");
  std::set<std::string> acked;
  int killed_mid_run = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);

  for (int round = 0; round <= kRounds; ++round) {
    const bool last = round == kRounds;
    SCOPED_TRACE("round " + std::to_string(round));
    Child child({child_path, db, std::to_string(stream_seed), std::to_string(kEvents),
                 std::to_string(rng())});
    ASSERT_TRUE(child.ok());
    // Kill once this many acknowledgements have arrived, plus a random few
    // hundred microseconds. The child re-acknowledges the prefix it already
    // stored (as duplicates, quickly), so the kill point is placed a random
    // step past it: about stream/rounds new events per round, so most
    // rounds die mid-ingest rather than after the end.
    const size_t step = 2 * stream.size() / kRounds + 1;
    const size_t kill_after = acked.size() + rng() % step;
    const int extra_us = static_cast<int>(rng() % 400);
    size_t seen = 0;
    bool done = false;
    std::string line;
    while (last || seen < kill_after) {
      if (!child.ReadLine(&line, deadline)) break;
      if (line == "done") {
        done = true;
        break;
      }
      ASSERT_TRUE(by_id.contains(line)) << "child acknowledged unknown event " << line;
      acked.insert(line);
      ++seen;
    }
    if (last) {
      ASSERT_TRUE(done) << "the final run did not finish";
      int status = child.Wait();
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    } else {
      if (extra_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(extra_us));
      int status = child.Kill();
      if (WIFSIGNALED(status)) ++killed_mid_run;
      else ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child failed: " << status;
    }

    auto store = Store::Open(storetest::Opts(db));
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    ASSERT_EQ(*(*store)->IntegrityCheck(), "ok");
    const auto stored = StoredIdentities(**store);
    for (const std::string& id : acked) {
      ASSERT_TRUE(stored.contains(Identity(*by_id[id])))
          << "acknowledged event " << id << " is missing after the kill";
    }
    for (const std::string& ident : stored) ASSERT_EQ(stored.count(ident), 1u) << ident;
  }
  EXPECT_GE(killed_mid_run, kRounds / 2) << "most rounds should really be killed mid-ingest";

  // Every event of the stream is stored exactly once...
  auto store = Store::Open(storetest::Opts(db));
  ASSERT_TRUE(store.ok());
  std::set<std::string> want;
  for (const auto& e : stream) want.insert(Identity(e));
  const auto stored = StoredIdentities(**store);
  EXPECT_EQ(std::set<std::string>(stored.begin(), stored.end()), want);
  EXPECT_EQ(stored.size(), want.size());
  // ...and the store holds what an uninterrupted run gives.
  const storetest::Dump got = storetest::DumpStore((*store)->db());
  const storetest::Dump ref = ReferenceDump(dir.File("reference.db"), stream);
  for (const auto& [table, rows] : ref) EXPECT_EQ(got.at(table), rows) << "table " << table;
}

}  // namespace
}  // namespace agt::state
