// LocalActionId, ParseLocalActionId and LocalNames (see remote_names.h).
// The rewriting is by token, not by pattern language: the host's texts
// name its panes only as `pane:host/<session>/@W/%P` (the session
// percent-encoded, so it holds no '/') or `host/%P`, and its actions as
// `action <ULID>` (action_service.cc), and nothing else there looks so.
#include "aggregator/federation/remote_names.h"

namespace agt::agg {
namespace {

constexpr std::string_view kHost = "host";  // the host's name for its own target
constexpr size_t kUlidSize = 26;

bool TargetChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

bool UlidChar(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'); }

/// A ULID starts at `at` and ends there (no longer word).
bool UlidAt(std::string_view text, size_t at) {
  if (text.size() < at + kUlidSize) return false;
  for (size_t i = at; i < at + kUlidSize; ++i)
    if (!UlidChar(text[i])) return false;
  return text.size() == at + kUlidSize || !TargetChar(text[at + kUlidSize]);
}

}  // namespace

std::string LocalActionId(std::string_view target, std::string_view remote_id) {
  return std::string(target) + "/" + std::string(remote_id);
}

std::optional<ForwardedActionId> ParseLocalActionId(std::string_view id) {
  const size_t slash = id.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == id.size()) return std::nullopt;
  for (size_t i = 0; i < slash; ++i)
    if (!TargetChar(id[i])) return std::nullopt;
  if (id.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  return ForwardedActionId{std::string(id.substr(0, slash)), std::string(id.substr(slash + 1))};
}

std::string LocalNames(std::string_view text, std::string_view target) {
  const std::string pane_ref = "pane:" + std::string(kHost) + "/";
  const std::string short_ref = std::string(kHost) + "/%";
  constexpr std::string_view kAction = "action ";
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const bool word_start = i == 0 || !TargetChar(text[i - 1]);
    const std::string_view rest = text.substr(i);
    if (rest.starts_with(pane_ref)) {
      out += "pane:" + std::string(target) + "/";
      i += pane_ref.size();
    } else if (word_start && rest.starts_with(short_ref)) {
      out += std::string(target) + "/%";
      i += short_ref.size();
    } else if (word_start && rest.starts_with(kAction) && UlidAt(text, i + kAction.size())) {
      out += std::string(kAction) + LocalActionId(target, text.substr(i + kAction.size(), kUlidSize));
      i += kAction.size() + kUlidSize;
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace agt::agg
