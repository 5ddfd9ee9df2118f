// Store ingest rate: how many events per second the real store accepts into
// a WAL database file on disk (under $TMPDIR), one transaction per event
// (unbatched) and 256 per transaction (batched), for both durability
// levels. The Effects are produced by the real engine from a realistic
// generated stream beforehand, so the figures are the store's alone; an
// "engine+store" line shows the whole ingest path. Baseline, measured in
// the same run: bare SQLite inserting one narrow row per event through a
// single prepared statement, batched the same way.
//
// Goal (issue 2): >= 20,000 events/s batched on the 2-core machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "state/engine.h"
#include "state/store/sqlite.h"
#include "state/store/store.h"
#include "tests/store/stream.h"

namespace {

using namespace agt;         // NOLINT
using namespace agt::state;  // NOLINT
using Clock = std::chrono::steady_clock;

constexpr int kReps = 5;
constexpr size_t kBatch = 256;

struct Figures {
  double min, median, max;
};

Figures Summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

std::string FreshPath(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "agtmux-store-bench";
  std::filesystem::create_directories(dir);
  auto p = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + suffix);
  return p.string();
}

std::vector<Effects> MakeEffects(uint32_t seed, int events) {
  storetest::StreamOptions so;
  so.seed = seed;
  so.events = events;
  so.panes = 16;
  Engine engine;
  std::vector<Effects> out;
  for (const auto& e : storetest::GenerateStream(so)) {
    Effects fx = engine.Apply(e, e.ingested_at);
    if (!Store::Empty(fx)) out.push_back(std::move(fx));
  }
  return out;
}

// Events per second committing `fx` into a fresh store.
double StoreRun(const std::vector<Effects>& fx, size_t batch, Durability d, const char* name) {
  StoreOptions opt;
  opt.path = FreshPath(name);
  opt.durability = d;
  auto store = Store::Open(opt);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.error().ToString().c_str());
    std::exit(1);
  }
  auto t0 = Clock::now();
  for (size_t i = 0; i < fx.size(); i += batch) {
    size_t n = std::min(batch, fx.size() - i);
    auto st = (*store)->CommitBatch(std::span<const Effects>(fx.data() + i, n), 0);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.error().ToString().c_str());
      std::exit(1);
    }
  }
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return static_cast<double>(fx.size()) / s;
}

// The same count of narrow rows through one prepared INSERT.
double BaselineRun(size_t count, size_t batch, Durability d) {
  auto db = sql::Db::Open(FreshPath("baseline.db"), {});
  sql::Db& b = **db;
  (void)b.Exec(std::string("PRAGMA journal_mode = WAL; PRAGMA synchronous = ") +
               (d == Durability::kFull ? "FULL" : "NORMAL") +
               "; CREATE TABLE t (id TEXT PRIMARY KEY, at INTEGER NOT NULL)");
  auto t0 = Clock::now();
  for (size_t i = 0; i < count; i += batch) {
    (void)b.Exec("BEGIN IMMEDIATE");
    for (size_t k = i; k < std::min(count, i + batch); ++k) {
      auto st = b.Prepare("INSERT INTO t (id, at) VALUES (?1, ?2)");
      st->Bind(1, "event-" + std::to_string(k)).Bind(2, static_cast<int64_t>(k));
      (void)st->Run();
    }
    (void)b.Exec("COMMIT");
  }
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return static_cast<double>(count) / s;
}

double EndToEndRun(uint32_t seed, int events, size_t batch) {
  storetest::StreamOptions so;
  so.seed = seed;
  so.events = events;
  so.panes = 16;
  auto stream = storetest::GenerateStream(so);
  StoreOptions opt;
  opt.path = FreshPath("e2e.db");
  auto store = Store::Open(opt);
  Engine engine;
  std::vector<Effects> pending;
  auto t0 = Clock::now();
  for (const auto& e : stream) {
    pending.push_back(engine.Apply(e, e.ingested_at));
    if (pending.size() >= batch) {
      (void)(*store)->CommitBatch(pending, e.ingested_at);
      pending.clear();
    }
  }
  (void)(*store)->CommitBatch(pending, 0);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return static_cast<double>(stream.size()) / s;
}

void Report(const char* label, const std::vector<double>& v, double baseline_median) {
  Figures f = Summarise(v);
  std::printf("%-34s min %9.0f  median %9.0f  max %9.0f events/s", label, f.min, f.median, f.max);
  if (baseline_median > 0) std::printf("   (%.2fx bare SQLite)", f.median / baseline_median);
  std::printf("\n");
}

}  // namespace

int main() {
  const int unbatched_events = 1000;
  const int batched_events = 30000;
  std::printf("store ingest into a WAL file under %s, %d repetitions after a warm-up\n",
              std::filesystem::temp_directory_path().c_str(), kReps);
  // The machine is shared: the load average says how far to trust the
  // absolute figures; the ratios to bare SQLite are measured alongside.
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    char buf[128] = {0};
    if (std::fgets(buf, sizeof buf, f) != nullptr) std::printf("load average: %s", buf);
    std::fclose(f);
  }
  // Warm-up: page cache, allocator, the first WAL.
  (void)StoreRun(MakeEffects(999, 500), kBatch, Durability::kNormal, "warmup.db");

  struct Mode {
    const char* label;
    size_t batch;
    Durability d;
    int events;
  };
  const Mode modes[] = {
      {"unbatched, synchronous=FULL", 1, Durability::kFull, unbatched_events},
      {"unbatched, synchronous=NORMAL", 1, Durability::kNormal, unbatched_events},
      {"batched 256, synchronous=FULL", kBatch, Durability::kFull, batched_events},
      {"batched 256, synchronous=NORMAL", kBatch, Durability::kNormal, batched_events},
  };
  for (const Mode& m : modes) {
    std::vector<double> store_rates, base_rates;
    for (int r = 0; r < kReps; ++r) {
      auto fx = MakeEffects(static_cast<uint32_t>(r + 1), m.events);
      store_rates.push_back(StoreRun(fx, m.batch, m.d, "store.db"));
      base_rates.push_back(BaselineRun(fx.size(), m.batch, m.d));
    }
    Report(m.label, store_rates, Summarise(base_rates).median);
    std::string base_label = std::string("  baseline: bare SQLite, ") + (m.batch == 1 ? "unbatched" : "batched");
    Report(base_label.c_str(), base_rates, 0);
  }
  std::vector<double> e2e;
  for (int r = 0; r < kReps; ++r) e2e.push_back(EndToEndRun(static_cast<uint32_t>(r + 50), batched_events, kBatch));
  Report("engine+store, batched 256, FULL", e2e, 0);
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / "agtmux-store-bench");
  return 0;
}
