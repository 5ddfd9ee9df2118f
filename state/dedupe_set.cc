// DedupeSet: interned dedupe rows behind a flat hash table. Before it, each
// stored event cost a heap string and a hash node in a per-slot
// std::unordered_set, over half of Engine::Apply's time; here a new row costs
// a copy of its key into a chunk and, at most, a write into a flat table
// (amortised growth of the table; chunks are never moved).
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
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Entry& e = table_[i];
    if (!e.used) return i;
    if (e.hash == h && e.owner == owner && e.source == source &&
        std::string_view(e.key, e.key_length) == key) {
      return i;
    }
  }
}

bool DedupeSet::Contains(OwnerId owner, core::Source source, std::string_view key) const {
  return table_[Find(HashRow(owner, source, key), owner, source, key)].used;
}

bool DedupeSet::Contains(std::string_view owner, core::Source source,
                         std::string_view key) const {
  auto it = owner_ids_.find(owner);
  return it != owner_ids_.end() && Contains(it->second, source, key);
}

bool DedupeSet::Insert(OwnerId owner, core::Source source, std::string_view key) {
  const uint64_t h = HashRow(owner, source, key);
  size_t i = Find(h, owner, source, key);
  if (table_[i].used) return false;
  AGT_CHECK(key.size() <= UINT32_MAX);
  if (2 * (size_ + 1) > table_.size()) {
    Grow();
    i = Find(h, owner, source, key);
  }
  table_[i] =
      Entry{h, StoreKey(key), static_cast<uint32_t>(key.size()), owner, source, true};
  ++size_;
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
  std::vector<Entry> old(table_.size() * 2);
  old.swap(table_);
  const size_t mask = table_.size() - 1;
  for (const Entry& e : old) {
    if (!e.used) continue;
    size_t i = e.hash & mask;
    while (table_[i].used) i = (i + 1) & mask;
    table_[i] = e;
  }
}

void DedupeSet::ForEach(const std::function<void(std::string_view row)>& fn) const {
  std::string row;
  for (const Entry& e : table_) {
    if (!e.used) continue;
    row.assign(*owner_names_[e.owner]).push_back(kSep);
    row.append(core::SourceName(e.source)).push_back(kSep);
    row.append(e.key, e.key_length);
    fn(row);
  }
}

}  // namespace agt::state
