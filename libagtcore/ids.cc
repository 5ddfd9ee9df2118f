// Identifiers and hashes. ULIDs name events and actions: they sort by time,
// so ids made later in one process always compare greater (the engine uses
// event_id as its last ordering tie-break). runtime_id and dedupe_key are
// derived from SHA-256 exactly as ids.h documents, so every part of agtmux
// computes the same values.
//
// SHA-256 comes from libcrypto's direct SHA256_* functions, not from EVP, and
// the ULID randomness from getrandom(2), not RAND_bytes. Both EVP and
// RAND_bytes initialise OpenSSL 3's provider store and DRBG on first use,
// which costs every process about 2 MB of resident memory; `agtmux wrap`
// runs once per agent and has a 10 MB budget (bench/wrap, idle mode). The
// SHA256_* functions are deprecated in OpenSSL 3.0 but present and stable, so
// this file asks for the 1.1.1 API level to use them without warnings.
#define OPENSSL_API_COMPAT 10101
#include "libagtcore/ids.h"

#include <errno.h>
#include <openssl/sha.h>
#include <sys/random.h>

#include <array>
#include <mutex>

#include "libagtcore/base/result.h"

namespace agt::core {
namespace {

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The last ULID handed out in this process, for monotonicity.
struct UlidState {
  std::mutex mu;
  uint64_t last_ms = 0;
  std::array<uint8_t, 10> last_rand{};
  bool have_last = false;
};

UlidState& GetUlidState() {
  static UlidState state;
  return state;
}

/// Adds one to a big-endian 80-bit number; false on wrap-around.
bool Increment(std::array<uint8_t, 10>& r) {
  for (int i = 9; i >= 0; --i) {
    if (++r[i] != 0) return true;
  }
  return false;
}

std::string EncodeUlid(uint64_t ms, const std::array<uint8_t, 10>& rand) {
  // 128 bits: 48 of time then 80 of randomness, written as 26 base32 digits
  // (the first digit holds only 3 bits).
  std::array<uint8_t, 16> b{};
  for (int i = 0; i < 6; ++i) b[i] = static_cast<uint8_t>(ms >> (8 * (5 - i)));
  for (int i = 0; i < 10; ++i) b[6 + i] = rand[i];
  std::string out(26, '0');
  // Walk the 130-bit big-endian string (2 leading zero bits) 5 bits at a time.
  for (int c = 0; c < 26; ++c) {
    int value = 0;
    for (int k = 0; k < 5; ++k) {
      int bit = c * 5 + k - 2;  // index into the 128 bits
      int v = 0;
      if (bit >= 0) v = (b[bit / 8] >> (7 - bit % 8)) & 1;
      value = (value << 1) | v;
    }
    out[c] = kCrockford[value];
  }
  return out;
}

/// Fills `out` from the kernel's CSPRNG (blocks only before the pool is
/// first seeded, at early boot).
void FillRandom(std::array<uint8_t, 10>& out) {
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = getrandom(out.data() + got, out.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    AGT_CHECK(n > 0);
    got += static_cast<size_t>(n);
  }
}

std::string Hex(const unsigned char* data, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kHex[data[i] >> 4];
    out[2 * i + 1] = kHex[data[i] & 0xf];
  }
  return out;
}

}  // namespace

std::string NewUlid(TimeNs now) {
  uint64_t ms = now > 0 ? static_cast<uint64_t>(now / kNsPerMs) : 0;
  ms &= (uint64_t{1} << 48) - 1;
  UlidState& st = GetUlidState();
  std::lock_guard<std::mutex> lock(st.mu);
  std::array<uint8_t, 10> rand{};
  if (st.have_last && ms <= st.last_ms) {
    // Same millisecond (or the clock stepped back): keep the last time and
    // count up, so the new id still sorts after the previous one.
    ms = st.last_ms;
    rand = st.last_rand;
    if (!Increment(rand)) {
      ++ms;  // 2^80 ids in one ms cannot happen; move on rather than repeat
      FillRandom(rand);
    }
  } else {
    FillRandom(rand);
  }
  st.last_ms = ms;
  st.last_rand = rand;
  st.have_last = true;
  return EncodeUlid(ms, rand);
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256_CTX ctx;
  AGT_CHECK(SHA256_Init(&ctx) == 1);
  AGT_CHECK(SHA256_Update(&ctx, data.data(), data.size()) == 1);
  AGT_CHECK(SHA256_Final(digest, &ctx) == 1);
  return Hex(digest, sizeof digest);
}

std::string DeriveRuntimeId(std::string_view target_id, std::string_view boot_id,
                            std::string_view pane_id, int64_t pane_epoch,
                            std::string_view agent_type, TimeNs started_at_ns) {
  constexpr char kSep = '\x1f';
  std::string in;
  in.append(target_id).push_back(kSep);
  in.append(boot_id).push_back(kSep);
  in.append(pane_id).push_back(kSep);
  in.append(std::to_string(pane_epoch)).push_back(kSep);
  in.append(agent_type).push_back(kSep);
  in.append(std::to_string(started_at_ns));
  return Sha256Hex(in);
}

std::string DeriveDedupeKey(Source source, std::string_view source_event_id,
                            std::string_view payload_hash,
                            std::string_view event_type) {
  std::string in(SourceName(source));
  in.push_back(':');
  in.append(source_event_id).push_back(':');
  in.append(payload_hash).push_back(':');
  in.append(event_type);
  return Sha256Hex(in);
}

}  // namespace agt::core
