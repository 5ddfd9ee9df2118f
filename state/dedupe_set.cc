// DedupeSet: interned dedupe rows behind a flat hash table. Before it, each
// stored event cost a heap string and a hash node in a per-slot
// std::unordered_set, over half of Engine::Apply's time; here a new row costs
// a copy of its key into a chunk, an append to the row vector and a write
// into a flat table (amortised growth of the table; chunks are never moved).
#include "state/dedupe_set.h"

#include <algorithm>
#include <cstring>

#include "libagtcore/result.h"

namespace agt::state {

namespace {

constexpr char kSep = '\x1f';
constexpr size_t kInitialSlots = 64;       // a power of two
constexpr size_t kChunkBytes = 64 * 1024;  // a longer key gets a chunk of its own

}  // namespace

DedupeSet::DedupeSet() : table_(kInitialSlots) {}

DedupeSet::OwnerId DedupeSet::Intern(std::string_view owner) {
  if (auto it = owner_ids_.find(owner); it != owner_ids_.end()) return it->second;
  AGT_CHECK(owner_names_.size() < UINT32_MAX);
  const auto id = static_cast<OwnerId>(owner_names_.size());
  auto [it, inserted] = owner_ids_.emplace(std::string(owner), id);
  owner_names_.push_back(&it->first);
  return id;
}

uint64_t DedupeSet::HashRow(OwnerId owner, core::Source source, std::string_view key) {
  // The key's hash, with owner and source folded in through an odd
  // multiplier and a final avalanche (splitmix64's), so that the same key
  // under two owners lands in unrelated slots.
  uint64_t h = std::hash<std::string_view>{}(key);
  h ^= ((static_cast<uint64_t>(owner) << 8) | static_cast<uint64_t>(source)) *
       0x9e3779b97f4a7c15ULL;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

size_t DedupeSet::Find(uint64_t h, OwnerId owner, core::Source source,
                       std::string_view key) const {
  const size_t mask = table_.size() - 1;
  const auto tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = table_[i];
    if (slot.row == kEmpty) return i;
    if (slot.tag != tag) continue;
    const Row& r = rows_[slot.row];
    if (r.hash == h && r.owner == owner && r.source == source &&
        std::string_view(r.key, r.key_length) == key) {
      return i;
    }
  }
}

bool DedupeSet::Contains(OwnerId owner, core::Source source, std::string_view key) const {
  return table_[Find(HashRow(owner, source, key), owner, source, key)].row != kEmpty;
}

bool DedupeSet::Contains(std::string_view owner, core::Source source,
                         std::string_view key) const {
  auto it = owner_ids_.find(owner);
  return it != owner_ids_.end() && Contains(it->second, source, key);
}

bool DedupeSet::Insert(OwnerId owner, core::Source source, std::string_view key) {
  const uint64_t h = HashRow(owner, source, key);
  size_t i = Find(h, owner, source, key);
  if (table_[i].row != kEmpty) return false;
  AGT_CHECK(key.size() <= UINT32_MAX && rows_.size() < kEmpty);
  if (2 * (rows_.size() + 1) > table_.size()) {
    Grow();
    i = Find(h, owner, source, key);
  }
  table_[i] = Slot{static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(rows_.size())};
  rows_.push_back(
      Row{h, StoreKey(key), static_cast<uint32_t>(key.size()), owner, source});
  return true;
}

const char* DedupeSet::StoreKey(std::string_view key) {
  if (key.size() > chunk_free_) {
    // The rest of the current chunk is left unused: at most one key's worth.
    const size_t bytes = std::max(kChunkBytes, key.size());
    chunks_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
    chunk_next_ = chunks_.back().get();
    chunk_free_ = bytes;
  }
  char* dst = chunk_next_;
  if (!key.empty()) std::memcpy(dst, key.data(), key.size());
  chunk_next_ += key.size();
  chunk_free_ -= key.size();
  return dst;
}

void DedupeSet::Grow() {
  std::vector<Slot> bigger(table_.size() * 2);
  const size_t mask = bigger.size() - 1;
  for (size_t r = 0; r < rows_.size(); ++r) {
    const uint64_t h = rows_[r].hash;
    size_t i = h & mask;
    while (bigger[i].row != kEmpty) i = (i + 1) & mask;
    bigger[i] = Slot{static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(r)};
  }
  table_.swap(bigger);
}

void DedupeSet::ForEach(const std::function<void(std::string_view row)>& fn) const {
  std::string row;
  for (const Row& r : rows_) {
    row.assign(*owner_names_[r.owner]).push_back(kSep);
    row.append(core::SourceName(r.source)).push_back(kSep);
    row.append(r.key, r.key_length);
    fn(row);
  }
}

}  // namespace agt::state
