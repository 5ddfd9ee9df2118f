// Result<T>: a value or an error with a code and a message.
//
// GCC 12's C++20 has no std::expected, so library code returns this small
// type instead of throwing. Error codes are the E_* names of docs/spec.md and docs/api.md
// where one applies; the rest are agtmux's own, named the same way.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace agt::core {

/// Every error agtmux reports. The spec's API codes come first.
enum class Err {
  kRefInvalid,            // E_REF_INVALID
  kRefInvalidEncoding,    // E_REF_INVALID_ENCODING
  kRefNotFound,           // E_REF_NOT_FOUND
  kRefAmbiguous,          // E_REF_AMBIGUOUS
  kRuntimeStale,          // E_RUNTIME_STALE
  kPreconditionFailed,    // E_PRECONDITION_FAILED
  kSnapshotExpired,       // E_SNAPSHOT_EXPIRED
  kIdempotencyConflict,   // E_IDEMPOTENCY_CONFLICT
  kCursorInvalid,         // E_CURSOR_INVALID
  kCursorExpired,         // E_CURSOR_EXPIRED
  kPidUnavailable,        // E_PID_UNAVAILABLE
  kTargetUnreachable,     // E_TARGET_UNREACHABLE
  // agtmux's own codes.
  kPayloadInvalid,        // E_PAYLOAD_INVALID: a malformed event or request body
  kRequestInvalid,        // E_REQUEST_INVALID: a malformed HTTP request or query
  kConfigInvalid,         // E_CONFIG_INVALID
  kPatternInvalid,        // E_PATTERN_INVALID
  kTargetInvalid,         // E_TARGET_INVALID
  kNotFound,              // E_NOT_FOUND
  kDuplicate,             // E_DUPLICATE: dedupe rejected the event
  kOutOfOrder,            // E_OUT_OF_ORDER: not newer than the cursor
  kUnbound,               // E_UNBOUND: a pending event could not be bound
  kPolicyBlocked,         // E_POLICY_BLOCKED: the send policy refused the text
  kDaemonUnreachable,     // E_DAEMON_UNREACHABLE
  kUnsupported,           // E_UNSUPPORTED
  kIo,                    // E_IO
  kStore,                 // E_STORE
  kTimeout,               // E_TIMEOUT
  kInternal,              // E_INTERNAL
};

/// The wire name of a code, e.g. "E_REF_INVALID".
std::string_view ErrName(Err code);
/// The inverse of ErrName; false when the name is unknown.
bool ParseErrName(std::string_view name, Err* out);

struct Error {
  Err code = Err::kInternal;
  std::string message;

  /// "E_CODE: message", the form the CLI prints.
  std::string ToString() const;
};

inline Error MakeError(Err code, std::string message) {
  return Error{code, std::move(message)};
}

/// Aborts with a message; used by AGT_CHECK for broken invariants.
[[noreturn]] void CheckFailed(const char* expr, const char* file, int line);

#define AGT_CHECK(cond)                                          \
  do {                                                           \
    if (!(cond)) ::agt::core::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (0)

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { AGT_CHECK(ok()); return std::get<0>(v_); }
  const T& value() const& { AGT_CHECK(ok()); return std::get<0>(v_); }
  T&& value() && { AGT_CHECK(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { AGT_CHECK(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : err_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { AGT_CHECK(!ok_); return err_; }

 private:
  Error err_;
  bool ok_ = true;
};

using Status = Result<void>;

inline Status Ok() { return Status(); }

}  // namespace agt::core
