// The string hash of the engine's own tables (runtime index, dedupe set,
// pane and pending-key maps). Every event hashes a 64-byte runtime_id and a
// 64-byte dedupe key; std::hash (MurmurHash2 in libstdc++) spends a
// multiply chain on every 8 bytes, this one (wyhash's construction: 16 bytes
// per 64x64->128-bit multiply) about a third of that. Not for anything
// persisted or compared across processes: only where rows sit in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace agt::state {

namespace hash_detail {

__extension__ typedef unsigned __int128 U128;

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const U128 r = static_cast<U128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace hash_detail

/// A 64-bit hash of `s`'s bytes, well mixed in all bits.
inline uint64_t HashBytes(std::string_view s) {
  using namespace hash_detail;  // NOLINT: the helpers above
  constexpr uint64_t k0 = 0xa0761d6478bd642fULL;
  constexpr uint64_t k1 = 0xe7037ed1a0b428dbULL;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t seed = k0 ^ n;
  uint64_t a = 0;
  uint64_t b = 0;
  if (n <= 16) {
    if (n >= 4) {
      const size_t mid = (n >> 3) << 2;
      a = (Load32(p) << 32) | Load32(p + mid);
      b = (Load32(p + n - 4) << 32) | Load32(p + n - 4 - mid);
    } else if (n > 0) {
      a = (static_cast<uint64_t>(static_cast<uint8_t>(p[0])) << 16) |
          (static_cast<uint64_t>(static_cast<uint8_t>(p[n >> 1])) << 8) |
          static_cast<uint64_t>(static_cast<uint8_t>(p[n - 1]));
    }
  } else {
    size_t left = n;
    while (left > 16) {
      seed = Mix(Load64(p) ^ k1, Load64(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    a = Load64(p + left - 16);
    b = Load64(p + left - 8);
  }
  return Mix(k1 ^ n, Mix(a ^ k1, b ^ seed));
}

}  // namespace agt::state
