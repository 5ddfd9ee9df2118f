// Names of the error codes, and the one place where a broken invariant aborts.
#include "libagtcore/base/result.h"

#include <array>
#include <cstdio>

namespace agt::core {
namespace {

struct NamedErr {
  Err code;
  std::string_view name;
};

constexpr std::array<NamedErr, 28> kNames = {{
    {Err::kRefInvalid, "E_REF_INVALID"},
    {Err::kRefInvalidEncoding, "E_REF_INVALID_ENCODING"},
    {Err::kRefNotFound, "E_REF_NOT_FOUND"},
    {Err::kRefAmbiguous, "E_REF_AMBIGUOUS"},
    {Err::kRuntimeStale, "E_RUNTIME_STALE"},
    {Err::kPreconditionFailed, "E_PRECONDITION_FAILED"},
    {Err::kSnapshotExpired, "E_SNAPSHOT_EXPIRED"},
    {Err::kIdempotencyConflict, "E_IDEMPOTENCY_CONFLICT"},
    {Err::kCursorInvalid, "E_CURSOR_INVALID"},
    {Err::kCursorExpired, "E_CURSOR_EXPIRED"},
    {Err::kPidUnavailable, "E_PID_UNAVAILABLE"},
    {Err::kTargetUnreachable, "E_TARGET_UNREACHABLE"},
    {Err::kPayloadInvalid, "E_PAYLOAD_INVALID"},
    {Err::kRequestInvalid, "E_REQUEST_INVALID"},
    {Err::kConfigInvalid, "E_CONFIG_INVALID"},
    {Err::kPatternInvalid, "E_PATTERN_INVALID"},
    {Err::kTargetInvalid, "E_TARGET_INVALID"},
    {Err::kNotFound, "E_NOT_FOUND"},
    {Err::kDuplicate, "E_DUPLICATE"},
    {Err::kOutOfOrder, "E_OUT_OF_ORDER"},
    {Err::kUnbound, "E_UNBOUND"},
    {Err::kPolicyBlocked, "E_POLICY_BLOCKED"},
    {Err::kDaemonUnreachable, "E_DAEMON_UNREACHABLE"},
    {Err::kUnsupported, "E_UNSUPPORTED"},
    {Err::kIo, "E_IO"},
    {Err::kStore, "E_STORE"},
    {Err::kTimeout, "E_TIMEOUT"},
    {Err::kInternal, "E_INTERNAL"},
}};

}  // namespace

std::string_view ErrName(Err code) {
  for (const auto& n : kNames)
    if (n.code == code) return n.name;
  return "E_INTERNAL";
}

bool ParseErrName(std::string_view name, Err* out) {
  for (const auto& n : kNames) {
    if (n.name == name) {
      *out = n.code;
      return true;
    }
  }
  return false;
}

std::string Error::ToString() const {
  std::string s(ErrName(code));
  if (!message.empty()) {
    s += ": ";
    s += message;
  }
  return s;
}

void CheckFailed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "agtmux: internal error: check failed: %s (%s:%d)\n",
               expr, file, line);
  std::abort();
}

}  // namespace agt::core
