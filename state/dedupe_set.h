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

#include "libagtcore/vocabulary.h"
#include "state/hash_bytes.h"

namespace agt::state {

/// An insert-only set of dedupe rows (owner, source, key), listed in the
/// format of EngineSnapshot::dedupe_keys ("owner\x1fsource\x1fkey").
///
/// Owners are interned once into small ids (the engine keeps its runtimes'
/// and targets' ids), so a row stores and hashes only its key bytes plus two
/// integers: a runtime id is as long as a dedupe key, and carrying it in every
/// row doubled the bytes copied and hashed per event.
///
/// Each row (a 12-byte head: owner, key length, source; then the key bytes)
/// is appended to fixed-size chunks that never move: no row vector to grow
/// and copy, and a lookup that finds the row reads one place. An
/// open-addressing table (linear probing, load <= 1/2) holds for each row
/// only the high 32 bits of its hash and where the row sits. The slot index
/// is the top bits of those 32, so growing the table walks the old one in
/// order and writes the new one nearly in order, without reading any row.
/// Every new event probes a random slot, so the table is kept small (8 bytes
/// a slot), and the engine prefetches the slot (RowHash, Prefetch) before
/// the other work of an event. Membership compares the owner, source and full
/// key bytes, so a hash collision costs one extra compare and can never make
/// two different events look like duplicates.
class DedupeSet {
 public:
  /// Stands for one owner string; valid for the life of the set.
  using OwnerId = uint32_t;

  DedupeSet();

  /// The id of `owner`, interned the first time it is seen.
  OwnerId Intern(std::string_view owner);

  /// The hash of an owner string (HashBytes of it, which the engine's
  /// runtime index computes anyway).
  static uint64_t OwnerHash(std::string_view owner) { return HashBytes(owner); }
  /// The hash of a row, from its owner's OwnerHash: the engine computes it
  /// from an event's runtime_id before it has found the runtime, to prefetch
  /// the row's slot early.
  static uint64_t RowHash(uint64_t owner_hash, core::Source source, std::string_view key);
  /// The same for an interned owner.
  uint64_t RowHash(OwnerId owner, core::Source source, std::string_view key) const {
    return RowHash(owner_hashes_[owner], source, key);
  }
  /// Asks the CPU to fetch the table slot of a row with hash `h` (a hint; no
  /// effect on the contents).
  void Prefetch(uint64_t h) const;

  /// Adds the row; true when it was not there yet.
  bool Insert(OwnerId owner, core::Source source, std::string_view key) {
    return Insert(RowHash(owner, source, key), owner, source, key);
  }
  /// The same with h == RowHash(owner, source, key) computed by the caller.
  bool Insert(uint64_t h, OwnerId owner, core::Source source, std::string_view key);
  bool Contains(OwnerId owner, core::Source source, std::string_view key) const;

  /// The same by owner string (tests, Restore): interns it.
  bool Insert(std::string_view owner, core::Source source, std::string_view key) {
    return Insert(Intern(owner), source, key);
  }
  /// By owner string; an owner never interned has no rows.
  bool Contains(std::string_view owner, core::Source source, std::string_view key) const;

  size_t size() const { return size_; }

  /// Calls `fn` on every row ("owner\x1fsource\x1fkey"), in no particular
  /// order; the view is valid only during the call.
  void ForEach(const std::function<void(std::string_view row)>& fn) const;

 private:
  // A row in a chunk: owner (4 bytes), key length (4), source (1), 3 bytes
  // of padding, then the key bytes; rows start on 4-byte boundaries.
  static constexpr size_t kHeadBytes = 12;
  // Where a row sits: chunk index << kOffsetBits | (offset in the chunk / 4).
  using RowRef = uint32_t;
  static constexpr int kOffsetBits = 14;  // 64 KiB chunks
  struct Slot {
    uint32_t tag = 0;       // the high half of the row's hash; also its home slot
    RowRef row = kEmpty;
  };
  static constexpr RowRef kEmpty = UINT32_MAX;

  // Heterogeneous lookup of owners by string_view (no temporary string).
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };

  size_t Home(uint32_t tag) const { return tag >> shift_; }
  const char* RowAt(RowRef ref) const;
  // The slot holding the row, or the empty slot where it would go.
  size_t Find(uint64_t h, OwnerId owner, core::Source source, std::string_view key) const;
  // Appends the row to the chunks; returns where it went.
  RowRef StoreRow(OwnerId owner, core::Source source, std::string_view key);
  void Grow();

  std::vector<Slot> table_;
  int shift_ = 0;  // 32 - log2(table_.size())
  size_t size_ = 0;
  struct Chunk {
    std::unique_ptr<char[]> bytes;
    size_t used = 0;
  };
  std::vector<Chunk> chunks_;  // rows, back to back; never moved
  size_t chunk_capacity_ = 0;  // of chunks_.back()
  std::unordered_map<std::string, OwnerId, StringHash, std::equal_to<>> owner_ids_;
  // By OwnerId: the keys of owner_ids_ (node keys do not move).
  std::vector<const std::string*> owner_names_;
  std::vector<uint64_t> owner_hashes_;  // by OwnerId: OwnerHash of its name
};

}  // namespace agt::state
