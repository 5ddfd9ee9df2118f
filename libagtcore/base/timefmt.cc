// RFC 3339 timestamps (the wire form of every time agtmux exchanges) and
// human durations (config values and CLI flags such as --timeout 30s).
//
// Both parsers are strict: a value that is not exactly of the documented
// form is an error that quotes it, never a best guess. Calendar arithmetic
// uses Howard Hinnant's days_from_civil so no libc time zone state is read.
#include "libagtcore/base/timefmt.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace agt::core {
namespace {

// 128-bit arithmetic makes overflow checks on unit * count exact.
__extension__ typedef __int128 Int128;

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// Reads exactly `n` digits at s[*pos]; false if any is not a digit.
bool ReadFixed(std::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

Error TimeError(std::string_view s, std::string_view why) {
  return MakeError(Err::kPayloadInvalid, "invalid RFC 3339 time \"" +
                                             std::string(s) + "\": " +
                                             std::string(why));
}

Error DurationError(std::string_view s, std::string_view why) {
  return MakeError(Err::kPayloadInvalid, "invalid duration \"" + std::string(s) +
                                             "\": " + std::string(why));
}

}  // namespace

std::string FormatRfc3339(TimeNs t) {
  int64_t secs = t / kNsPerSec;
  int64_t frac = t % kNsPerSec;
  if (frac < 0) {
    frac += kNsPerSec;
    --secs;
  }
  int64_t days = secs / 86400;
  int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d",
                        static_cast<long long>(y), m, d,
                        static_cast<int>(rem / 3600),
                        static_cast<int>(rem / 60 % 60),
                        static_cast<int>(rem % 60));
  std::string out(buf, static_cast<size_t>(n));
  if (frac != 0) {
    char fb[16];
    std::snprintf(fb, sizeof fb, ".%09lld", static_cast<long long>(frac));
    std::string f(fb);
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  out += 'Z';
  return out;
}

Result<TimeNs> ParseRfc3339(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.F{1,9}](Z|+hh:mm|-hh:mm); RFC 3339 §5.6 allows a
  // lower-case 't' and 'z' as well.
  size_t p = 0;
  int year, month, day, hour, minute, second;
  auto expect = [&](char c) {
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  };
  if (!ReadFixed(s, &p, 4, &year) || !expect('-') || !ReadFixed(s, &p, 2, &month) ||
      !expect('-') || !ReadFixed(s, &p, 2, &day))
    return TimeError(s, "expected a date YYYY-MM-DD");
  if (!(expect('T') || expect('t')))
    return TimeError(s, "expected 'T' between date and time");
  if (!ReadFixed(s, &p, 2, &hour) || !expect(':') || !ReadFixed(s, &p, 2, &minute) ||
      !expect(':') || !ReadFixed(s, &p, 2, &second))
    return TimeError(s, "expected a time hh:mm:ss");
  if (month < 1 || month > 12) return TimeError(s, "month out of range");
  if (day < 1 || static_cast<unsigned>(day) > DaysInMonth(year, month))
    return TimeError(s, "day out of range");
  if (hour > 23) return TimeError(s, "hour out of range");
  if (minute > 59) return TimeError(s, "minute out of range");
  if (second > 59) return TimeError(s, "second out of range (leap seconds are not accepted)");
  int64_t frac_ns = 0;
  if (expect('.')) {
    int digits = 0;
    while (p < s.size() && IsDigit(s[p])) {
      if (++digits > 9) return TimeError(s, "more than 9 fraction digits");
      frac_ns = frac_ns * 10 + (s[p] - '0');
      ++p;
    }
    if (digits == 0) return TimeError(s, "expected digits after '.'");
    for (int i = digits; i < 9; ++i) frac_ns *= 10;
  }
  int64_t offset_secs = 0;
  if (expect('Z') || expect('z')) {
    // UTC
  } else if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    int sign = s[p] == '-' ? -1 : 1;
    ++p;
    int oh, om;
    if (!ReadFixed(s, &p, 2, &oh) || !expect(':') || !ReadFixed(s, &p, 2, &om))
      return TimeError(s, "expected an offset +hh:mm or -hh:mm");
    if (oh > 23 || om > 59) return TimeError(s, "offset out of range");
    offset_secs = sign * (oh * 3600 + om * 60);
  } else {
    return TimeError(s, "expected 'Z' or an offset +hh:mm");
  }
  if (p != s.size()) return TimeError(s, "unexpected text after the time");
  int64_t secs = DaysFromCivil(year, month, day) * 86400 + hour * 3600 +
                 minute * 60 + second - offset_secs;
  // secs * 1e9 + frac, computed so the lowest representable time (whose
  // whole seconds alone would overflow) still parses.
  int64_t ns;
  if (secs < 0 && frac_ns > 0) {
    ++secs;
    frac_ns -= kNsPerSec;
  }
  if (__builtin_mul_overflow(secs, kNsPerSec, &ns) ||
      __builtin_add_overflow(ns, frac_ns, &ns))
    return TimeError(s, "outside the representable range (years 1678-2261)");
  return ns;
}

Result<TimeNs> ParseDuration(std::string_view s) {
  if (s.empty()) return DurationError(s, "empty");
  if (s[0] == '-') return DurationError(s, "negative durations are not allowed");
  struct Unit {
    std::string_view name;
    int64_t ns;
  };
  // Longest names first so "ms" is not read as "m" followed by "s".
  static constexpr Unit kUnits[] = {
      {"ns", 1},           {"us", 1000},           {"ms", kNsPerMs},
      {"s", kNsPerSec},    {"m", 60 * kNsPerSec},  {"h", 3600 * kNsPerSec},
      {"d", 86400 * kNsPerSec},
  };
  Int128 total = 0;
  constexpr Int128 kMax = INT64_MAX;
  size_t p = 0;
  bool any_unit = false;
  while (p < s.size()) {
    size_t start = p;
    Int128 whole = 0;
    while (p < s.size() && IsDigit(s[p])) {
      whole = whole * 10 + (s[p] - '0');
      if (whole > kMax) return DurationError(s, "too large");
      ++p;
    }
    int64_t frac = 0;
    int frac_digits = 0;
    if (p < s.size() && s[p] == '.') {
      ++p;
      while (p < s.size() && IsDigit(s[p])) {
        if (frac_digits < 9) {
          frac = frac * 10 + (s[p] - '0');
          ++frac_digits;
        }
        ++p;
      }
      if (frac_digits == 0) return DurationError(s, "expected digits after '.'");
    }
    if (p == start) {
      return DurationError(s, "expected a number at offset " + std::to_string(p) +
                                  " (form: 500ms, 30s, 2m, 1h30m, 7d)");
    }
    int64_t unit = 0;
    if (p == s.size()) {
      if (any_unit) return DurationError(s, "the last number has no unit");
      unit = kNsPerSec;  // a bare number is seconds
    } else {
      for (const Unit& u : kUnits) {
        if (s.substr(p, u.name.size()) == u.name) {
          unit = u.ns;
          p += u.name.size();
          break;
        }
      }
      if (unit == 0)
        return DurationError(s, "unknown unit at offset " + std::to_string(p) +
                                    " (use ns, us, ms, s, m, h or d)");
      any_unit = true;
    }
    Int128 part = whole * unit;
    Int128 scale = 1;
    for (int i = 0; i < frac_digits; ++i) scale *= 10;
    part += static_cast<Int128>(frac) * unit / scale;
    total += part;
    if (total > kMax) return DurationError(s, "too large");
  }
  return static_cast<TimeNs>(total);
}

std::string FormatAge(TimeNs d) {
  if (d < 0) d = 0;
  int64_t secs = d / kNsPerSec;
  char buf[32];
  if (secs < 60) {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(secs));
  } else if (secs < 3600) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(secs / 60),
                  static_cast<long long>(secs % 60));
  } else if (secs < 86400) {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lldd%02lldh", static_cast<long long>(secs / 86400),
                  static_cast<long long>(secs / 3600 % 24));
  }
  return buf;
}

}  // namespace agt::core
