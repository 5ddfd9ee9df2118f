// The engine's dedupe memory: every (owner, source, dedupe_key) it has
// stored an event for, where owner is a runtime_id or "@<target_id>" for
// target-scoped events. One event in, one lookup: this set sits on the hot
// path of Engine::Apply, so it keeps no per-key heap objects.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/state.h"

namespace agt::state {

/// An insert-only set of dedupe rows "owner\x1fsource\x1fkey" (the format of
/// EngineSnapshot::dedupe_keys). The rows are interned back to back in one
/// arena string; an open-addressing table (linear probing, load <= 1/2) holds
/// each row's 64-bit hash, offset and length. Membership compares the full
/// row bytes after a hash match, so a hash collision costs one extra compare
/// and can never make two different events look like duplicates.
class DedupeSet {
 public:
  DedupeSet();

  /// Adds the row; true when it was not there yet.
  bool Insert(std::string_view owner, core::Source source, std::string_view key);
  /// Not const: it builds the row in a scratch buffer (the engine is
  /// single-threaded).
  bool Contains(std::string_view owner, core::Source source, std::string_view key);
  size_t size() const { return size_; }

  /// Calls `fn` on every row, in no particular order.
  void ForEach(const std::function<void(std::string_view row)>& fn) const;

 private:
  struct Entry {
    uint64_t hash = 0;
    uint64_t offset = 0;
    uint32_t length = 0;  // 0 = empty slot (a row is never empty)
  };

  // Builds the row in `row_` and returns its hash.
  uint64_t MakeRow(std::string_view owner, core::Source source, std::string_view key);
  // The slot holding row_ (hash h), or the empty slot where it would go.
  size_t Find(uint64_t h) const;
  void Grow();

  std::vector<Entry> table_;
  std::string arena_;         // every row, back to back
  size_t size_ = 0;
  std::string row_;           // scratch for the row being looked up
};

}  // namespace agt::state
