// DedupeSet: interned dedupe rows behind a flat hash table. Before it, each
// stored event cost a heap string and a hash node in a per-slot
// std::unordered_set, over half of Engine::Apply's time; here a new row costs
// an append to one arena string and, at most, a write into a flat table
// (amortised growth of both).
#include "state/dedupe_set.h"

#include "libagtcore/result.h"

namespace agt::state {

namespace {

constexpr char kSep = '\x1f';
constexpr size_t kInitialSlots = 64;  // a power of two

}  // namespace

DedupeSet::DedupeSet() : table_(kInitialSlots) {}

uint64_t DedupeSet::MakeRow(std::string_view owner, core::Source source, std::string_view key) {
  row_.clear();
  row_.append(owner).push_back(kSep);
  row_.append(core::SourceName(source)).push_back(kSep);
  row_.append(key);
  return std::hash<std::string_view>{}(row_);
}

size_t DedupeSet::Find(uint64_t h) const {
  const size_t mask = table_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Entry& e = table_[i];
    if (e.length == 0) return i;
    if (e.hash == h && std::string_view(arena_).substr(e.offset, e.length) == row_) return i;
  }
}

bool DedupeSet::Contains(std::string_view owner, core::Source source, std::string_view key) {
  return table_[Find(MakeRow(owner, source, key))].length != 0;
}

bool DedupeSet::Insert(std::string_view owner, core::Source source, std::string_view key) {
  const uint64_t h = MakeRow(owner, source, key);
  size_t i = Find(h);
  if (table_[i].length != 0) return false;
  AGT_CHECK(row_.size() <= UINT32_MAX);
  if (2 * (size_ + 1) > table_.size()) {
    Grow();
    i = Find(h);
  }
  table_[i] = Entry{h, arena_.size(), static_cast<uint32_t>(row_.size())};
  arena_.append(row_);
  ++size_;
  return true;
}

void DedupeSet::Grow() {
  std::vector<Entry> old(table_.size() * 2);
  old.swap(table_);
  const size_t mask = table_.size() - 1;
  for (const Entry& e : old) {
    if (e.length == 0) continue;
    size_t i = e.hash & mask;
    while (table_[i].length != 0) i = (i + 1) & mask;
    table_[i] = e;
  }
}

void DedupeSet::ForEach(const std::function<void(std::string_view row)>& fn) const {
  for (const Entry& e : table_) {
    if (e.length != 0) fn(std::string_view(arena_).substr(e.offset, e.length));
  }
}

}  // namespace agt::state
