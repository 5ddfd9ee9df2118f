// The crash-safety test's child: ingests a generated event stream through
// the real engine and store, exactly as agtmuxd does (restore the engine
// from the store, Apply, Commit), and after each committed batch writes the
// ids of the events it acknowledged to stdout, one per line. The parent
// kills it with SIGKILL at random points and checks the database.
//
// Usage: store_crash_child DB SEED EVENTS BATCH_SEED
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "state/engine.h"
#include "state/store/store.h"
#include "tests/store/stream.h"

namespace {

void WriteAll(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(STDOUT_FILENO, s.data() + off, s.size() - off);
    if (n <= 0) std::_Exit(3);
    off += static_cast<size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace agt::state;  // NOLINT
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s DB SEED EVENTS BATCH_SEED\n", argv[0]);
    return 2;
  }
  StoreOptions opt;
  opt.path = argv[1];
  opt.durability = Durability::kFull;
  auto store = Store::Open(opt);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.error().ToString().c_str());
    return 1;
  }
  auto snap = (*store)->LoadSnapshot();
  if (!snap.ok()) {
    std::fprintf(stderr, "snapshot: %s\n", snap.error().ToString().c_str());
    return 1;
  }
  Engine engine;
  engine.Restore(*snap);

  storetest::StreamOptions so;
  so.seed = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  so.events = std::atoi(argv[3]);
  const std::vector<agt::core::Event> stream = storetest::GenerateStream(so);
  std::mt19937 rng(static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10)));

  size_t i = 0;
  while (i < stream.size()) {
    const size_t n = std::min<size_t>(1 + rng() % 16, stream.size() - i);
    std::vector<Effects> batch;
    std::string acks;
    for (size_t k = 0; k < n; ++k) {
      const auto& e = stream[i + k];
      batch.push_back(engine.Apply(e, e.ingested_at));
      acks += e.event_id + "\n";
    }
    auto st = (*store)->CommitBatch(batch, stream[i + n - 1].ingested_at);
    if (!st.ok()) {
      std::fprintf(stderr, "commit: %s\n", st.error().ToString().c_str());
      return 1;
    }
    WriteAll(acks);  // acknowledged only once the commit returned
    i += n;
  }
  WriteAll("done\n");
  return 0;
}
