// The engine's dedupe memory: every (owner, source, dedupe_key) it has
// stored an event for, where owner is a runtime_id or "@<target_id>" for
// target-scoped events. One event in, one lookup: this set sits on the hot
// path of Engine::Apply, so it keeps no per-key heap objects.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libagtcore/state.h"

namespace agt::state {

/// An insert-only set of dedupe rows (owner, source, key), listed in the
/// format of EngineSnapshot::dedupe_keys ("owner\x1fsource\x1fkey").
///
/// Owners are interned once into small ids (the engine keeps its runtimes'
/// and targets' ids), so a row stores and hashes only its key bytes plus two
/// integers: a runtime id is as long as a dedupe key, and carrying it in every
/// row doubled the bytes copied and hashed per event. Keys are copied into
/// fixed-size chunks that never move (growing one big string copied every
/// key again at each doubling).
///
/// The rows sit in an append-only vector; an open-addressing table (linear
/// probing, load <= 1/2) holds for each row only a 32-bit tag of its hash and
/// its index. Every new event probes a random slot, so the table is kept
/// small (8 bytes a slot) to stay in the CPU cache as long as it can; the row
/// itself is read only when the tag matches. Membership then compares the
/// owner, source and full key bytes, so a hash collision costs one extra
/// compare and can never make two different events look like duplicates.
class DedupeSet {
 public:
  /// Stands for one owner string; valid for the life of the set.
  using OwnerId = uint32_t;

  DedupeSet();

  /// The id of `owner`, interned the first time it is seen.
  OwnerId Intern(std::string_view owner);

  /// Adds the row; true when it was not there yet.
  bool Insert(OwnerId owner, core::Source source, std::string_view key);
  bool Contains(OwnerId owner, core::Source source, std::string_view key) const;

  /// The same by owner string (tests, Restore): interns it.
  bool Insert(std::string_view owner, core::Source source, std::string_view key) {
    return Insert(Intern(owner), source, key);
  }
  /// By owner string; an owner never interned has no rows.
  bool Contains(std::string_view owner, core::Source source, std::string_view key) const;

  size_t size() const { return rows_.size(); }

  /// Calls `fn` on every row ("owner\x1fsource\x1fkey"), in no particular
  /// order; the view is valid only during the call.
  void ForEach(const std::function<void(std::string_view row)>& fn) const;

 private:
  struct Row {
    uint64_t hash = 0;          // kept for Grow
    const char* key = nullptr;  // into chunks_; stable
    uint32_t key_length = 0;
    OwnerId owner = 0;
    core::Source source = core::Source::kPoller;
  };
  struct Slot {
    uint32_t tag = 0;       // the high half of the row's hash
    uint32_t row = kEmpty;  // index into rows_
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  // Heterogeneous lookup of owners by string_view (no temporary string).
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };

  static uint64_t HashRow(OwnerId owner, core::Source source, std::string_view key);
  // The slot holding the row, or the empty slot where it would go.
  size_t Find(uint64_t h, OwnerId owner, core::Source source, std::string_view key) const;
  // A stable copy of `key`'s bytes.
  const char* StoreKey(std::string_view key);
  void Grow();

  std::vector<Slot> table_;
  std::vector<Row> rows_;
  std::vector<std::unique_ptr<char[]>> chunks_;  // key bytes, back to back
  char* chunk_next_ = nullptr;                   // the free part of chunks_.back()
  size_t chunk_free_ = 0;
  std::unordered_map<std::string, OwnerId, StringHash, std::equal_to<>> owner_ids_;
  // By OwnerId: the keys of owner_ids_ (node keys do not move).
  std::vector<const std::string*> owner_names_;
};

}  // namespace agt::state
