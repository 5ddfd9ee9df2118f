// DedupeSet: interned dedupe rows behind a flat hash table. Before it, each
// stored event cost a heap string and a hash node in a per-slot
// std::unordered_set, over half of Engine::Apply's time; here a new row costs
// a copy of its head and key into a chunk and a write into a flat table
// (amortised growth of the table; chunks are never moved).
#include "state/dedupe_set.h"

#include <algorithm>
#include <cstring>

#include "libagtcore/base/result.h"

namespace agt::state {

namespace {

constexpr char kSep = '\x1f';
constexpr size_t kInitialSlots = 64;  // a power of two
constexpr int kInitialShift = 32 - 6;
constexpr size_t kChunkBytes = size_t{1} << (14 + 2);  // 64 KiB; a longer row gets a chunk of its own
constexpr size_t kMaxChunks = (size_t{1} << (32 - 14)) - 1;

constexpr size_t RoundUp4(size_t n) { return (n + 3) & ~size_t{3}; }

/// A row's head, as StoreRow writes it: owner (4 bytes), key length (4),
/// source (1), padding (3); the key follows.
struct RowHead {
  DedupeSet::OwnerId owner = 0;
  uint32_t length = 0;
  core::Source source = core::Source::kPoller;
};

RowHead ReadHead(const char* row) {
  RowHead h;
  std::memcpy(&h.owner, row, 4);
  std::memcpy(&h.length, row + 4, 4);
  std::memcpy(&h.source, row + 8, 1);
  return h;
}

}  // namespace

DedupeSet::DedupeSet() : table_(kInitialSlots), shift_(kInitialShift) {
  static_assert(size_t{1} << (32 - kInitialShift) == kInitialSlots);
  static_assert(kChunkBytes == size_t{4} << kOffsetBits);
}

DedupeSet::OwnerId DedupeSet::Intern(std::string_view owner) {
  if (auto it = owner_ids_.find(owner); it != owner_ids_.end()) return it->second;
  AGT_CHECK(owner_names_.size() < UINT32_MAX);
  const auto id = static_cast<OwnerId>(owner_names_.size());
  auto [it, inserted] = owner_ids_.emplace(std::string(owner), id);
  owner_names_.push_back(&it->first);
  owner_hashes_.push_back(OwnerHash(owner));
  return id;
}

uint64_t DedupeSet::RowHash(uint64_t owner_hash, core::Source source, std::string_view key) {
  // The key's hash, with the owner's and the source folded in through odd
  // multipliers and a final avalanche (splitmix64's), so that the same key
  // under two owners lands in unrelated slots.
  uint64_t h = HashBytes(key);
  h ^= (owner_hash ^ static_cast<uint64_t>(source)) * 0x9e3779b97f4a7c15ULL;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

void DedupeSet::Prefetch(uint64_t h) const {
  __builtin_prefetch(&table_[Home(static_cast<uint32_t>(h >> 32))]);
}

const char* DedupeSet::RowAt(RowRef ref) const {
  return chunks_[ref >> kOffsetBits].bytes.get() + (size_t{ref & ((1u << kOffsetBits) - 1)} << 2);
}

size_t DedupeSet::Find(uint64_t h, OwnerId owner, core::Source source,
                       std::string_view key) const {
  const size_t mask = table_.size() - 1;
  const auto tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = Home(tag);; i = (i + 1) & mask) {
    const Slot& slot = table_[i];
    if (slot.row == kEmpty) return i;
    if (slot.tag != tag) continue;
    const char* row = RowAt(slot.row);
    const RowHead head = ReadHead(row);
    if (head.owner == owner && head.source == source && head.length == key.size() &&
        (key.empty() || std::memcmp(row + kHeadBytes, key.data(), key.size()) == 0)) {
      return i;
    }
  }
}

bool DedupeSet::Contains(OwnerId owner, core::Source source, std::string_view key) const {
  return table_[Find(RowHash(owner, source, key), owner, source, key)].row != kEmpty;
}

bool DedupeSet::Contains(std::string_view owner, core::Source source,
                         std::string_view key) const {
  auto it = owner_ids_.find(owner);
  return it != owner_ids_.end() && Contains(it->second, source, key);
}

bool DedupeSet::Insert(uint64_t h, OwnerId owner, core::Source source, std::string_view key) {
  size_t i = Find(h, owner, source, key);
  if (table_[i].row != kEmpty) return false;
  AGT_CHECK(key.size() <= UINT32_MAX - kHeadBytes);
  if (2 * (size_ + 1) > table_.size()) {
    Grow();
    i = Find(h, owner, source, key);
  }
  table_[i] = Slot{static_cast<uint32_t>(h >> 32), StoreRow(owner, source, key)};
  ++size_;
  return true;
}

DedupeSet::RowRef DedupeSet::StoreRow(OwnerId owner, core::Source source, std::string_view key) {
  const size_t bytes = RoundUp4(kHeadBytes + key.size());
  if (chunks_.empty() || chunks_.back().used + bytes > chunk_capacity_) {
    // The rest of the current chunk is left unused: at most one row's worth.
    AGT_CHECK(chunks_.size() < kMaxChunks);
    chunk_capacity_ = std::max(kChunkBytes, bytes);
    chunks_.push_back(Chunk{std::make_unique_for_overwrite<char[]>(chunk_capacity_), 0});
  }
  Chunk& c = chunks_.back();
  char* dst = c.bytes.get() + c.used;
  const auto length = static_cast<uint32_t>(key.size());
  std::memcpy(dst, &owner, 4);
  std::memcpy(dst + 4, &length, 4);
  std::memset(dst + 8, 0, 4);
  std::memcpy(dst + 8, &source, 1);
  if (!key.empty()) std::memcpy(dst + kHeadBytes, key.data(), key.size());
  const auto ref = static_cast<RowRef>(((chunks_.size() - 1) << kOffsetBits) | (c.used >> 2));
  c.used += bytes;
  return ref;
}

void DedupeSet::Grow() {
  // One more bit of the tag picks the slot: walking the old table in order
  // visits the rows nearly in the order of their new home slots.
  AGT_CHECK(shift_ > 0);
  std::vector<Slot> bigger(table_.size() * 2);
  const int shift = shift_ - 1;
  const size_t mask = bigger.size() - 1;
  for (const Slot& s : table_) {
    if (s.row == kEmpty) continue;
    size_t i = s.tag >> shift;
    while (bigger[i].row != kEmpty) i = (i + 1) & mask;
    bigger[i] = s;
  }
  table_.swap(bigger);
  shift_ = shift;
}

void DedupeSet::ForEach(const std::function<void(std::string_view row)>& fn) const {
  std::string row;
  for (const Chunk& c : chunks_) {
    for (size_t at = 0; at < c.used;) {
      const char* p = c.bytes.get() + at;
      const RowHead head = ReadHead(p);
      row.assign(*owner_names_[head.owner]).push_back(kSep);
      row.append(core::SourceName(head.source)).push_back(kSep);
      row.append(p + kHeadBytes, head.length);
      fn(row);
      at += RoundUp4(kHeadBytes + head.length);
    }
  }
}

}  // namespace agt::state
