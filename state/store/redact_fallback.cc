// A small hand-written secret scanner so the store is never without a
// redactor: docs/spec.md §6 forbids unredacted payloads in SQLite in every mode, so
// the store redacts even when the daemon did not hand it a pattern-driven
// redactor. It is deliberately conservative (known key prefixes, PEM
// blocks, key=value assignments with secret-sounding keys); the pattern
// file in patterns/ is the place for the long tail.
#include "state/store/redact_fallback.h"

#include <array>

namespace agt::state {
namespace {

// ASCII classification, inline: agtmux never calls setlocale, so the
// <cctype> functions it replaces answered the same in the "C" locale, but
// through a call per byte (they were a third of the scanner's time).
constexpr bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool IsTokenChar(char c) { return IsAlnum(c) || c == '-' || c == '_'; }

size_t TokenEnd(std::string_view s, size_t from) {
  while (from < s.size() && IsTokenChar(s[from])) ++from;
  return from;
}

bool StartsWithAt(std::string_view s, size_t at, std::string_view prefix) {
  return s.substr(at, prefix.size()) == prefix;
}

bool IEqualsAt(std::string_view s, size_t at, std::string_view word) {
  if (at + word.size() > s.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (Lower(s[at + i]) != word[i]) return false;
  }
  return true;
}

struct Prefix {
  std::string_view text;
  size_t min_tail;  // token characters required after the prefix
  std::string_view kind;
};

// Longer prefixes first: sk-ant- must win over sk-.
constexpr std::array<Prefix, 10> kPrefixes = {{
    {"sk-ant-", 8, "anthropic_key"},
    {"sk-", 20, "api_key"},
    {"github_pat_", 20, "github_token"},
    {"ghp_", 20, "github_token"},
    {"gho_", 20, "github_token"},
    {"xoxb-", 10, "slack_token"},
    {"xoxp-", 10, "slack_token"},
    {"AKIA", 16, "aws_key"},
    {"AIza", 30, "google_key"},
    {"glpat-", 20, "gitlab_token"},
}};

constexpr std::array<std::string_view, 7> kSecretKeys = {
    "password", "passwd", "secret", "token", "api_key", "apikey", "pwd"};

// Whether any prefix (any secret key, lower-cased) can start with `c`: a
// byte that starts none of them skips the loops below.
constexpr bool CanStartPrefix(char c) { return c == 's' || c == 'g' || c == 'x' || c == 'A'; }
constexpr bool CanStartKey(char lower) {
  return lower == 'p' || lower == 's' || lower == 't' || lower == 'a';
}

// A PEM private key block starting at `at`; returns its end, or npos.
size_t PemEnd(std::string_view s, size_t at) {
  if (!StartsWithAt(s, at, "-----BEGIN ")) return std::string_view::npos;
  size_t hdr_end = s.find("-----", at + 11);
  if (hdr_end == std::string_view::npos) return std::string_view::npos;
  std::string_view header = s.substr(at, hdr_end - at);
  if (header.find("PRIVATE KEY") == std::string_view::npos) return std::string_view::npos;
  size_t end = s.find("-----END ", hdr_end + 5);
  if (end == std::string_view::npos) return s.size();  // truncated: drop the rest
  size_t close = s.find("-----", end + 9);
  return close == std::string_view::npos ? s.size() : close + 5;
}

}  // namespace

std::string FallbackRedact(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    bool word_start = i == 0 || !IsTokenChar(s[i - 1]);
    if (s[i] == '-') {
      size_t end = PemEnd(s, i);
      if (end != std::string_view::npos) {
        out += "[REDACTED:private_key]";
        i = end;
        continue;
      }
    }
    if (word_start && CanStartPrefix(s[i])) {
      bool matched = false;
      for (const Prefix& p : kPrefixes) {
        if (!StartsWithAt(s, i, p.text)) continue;
        size_t end = TokenEnd(s, i + p.text.size());
        if (end - (i + p.text.size()) >= p.min_tail) {
          out += "[REDACTED:";
          out += p.kind;
          out += ']';
          i = end;
          matched = true;
        }
        break;
      }
      if (matched) continue;
    }
    if (word_start && Lower(s[i]) == 'b') {
      if (IEqualsAt(s, i, "bearer ")) {
        size_t start = i + 7;
        size_t end = TokenEnd(s, start);
        while (end < s.size() && (s[end] == '.' || s[end] == '=' || s[end] == '+' ||
                                  s[end] == '/' || IsTokenChar(s[end]))) {
          ++end;
        }
        if (end - start >= 8) {
          out.append(s.substr(i, 7));
          out += "[REDACTED:bearer_token]";
          i = end;
          continue;
        }
      }
    }
    // Secret-sounding keys also match inside identifiers (db_password,
    // GITHUB_TOKEN), so only an alphanumeric neighbour blocks them.
    if ((i == 0 || !IsAlnum(s[i - 1])) && CanStartKey(Lower(s[i]))) {
      bool matched = false;
      for (std::string_view key : kSecretKeys) {
        if (!IEqualsAt(s, i, key)) continue;
        // key ["']? \s* [:=] \s* ["']? value
        size_t j = i + key.size();
        while (j < s.size() && IsTokenChar(s[j])) ++j;  // password_hash, tokens, ...
        size_t k = j;
        while (k < s.size() && (s[k] == '"' || s[k] == '\'' || s[k] == '\\' || s[k] == ' ')) ++k;
        if (k >= s.size() || (s[k] != '=' && s[k] != ':')) break;
        ++k;
        while (k < s.size() && (s[k] == ' ' || s[k] == '"' || s[k] == '\'' || s[k] == '\\')) ++k;
        size_t v = k;
        while (v < s.size() && s[v] != '"' && s[v] != '\'' && s[v] != '\\' && s[v] != ',' &&
               s[v] != '}' && s[v] != ' ' && s[v] != '\n' && s[v] != '\r' && s[v] != '&' &&
               s[v] != ';') {
          ++v;
        }
        if (v == k) break;
        out.append(s.substr(i, k - i));
        out += "[REDACTED:secret]";
        i = v;
        matched = true;
        break;
      }
      if (matched) continue;
    }
    out += s[i];
    ++i;
  }
  return out;
}

}  // namespace agt::state
