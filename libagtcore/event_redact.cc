// Redaction and size caps of an event's texts (see event_redact.h).
#include "libagtcore/event_redact.h"

namespace agt::core {
namespace {

// Bytes read past a cap before redacting, so that a token cut by the first
// cut is still whole (and matched) when it starts before the final cut.
constexpr size_t kMargin = 4096;

// The largest cut <= at that does not split a UTF-8 sequence.
size_t Utf8Boundary(std::string_view s, size_t at) {
  if (at >= s.size()) return s.size();
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return at;
}

std::string Marker(size_t original) { return "…[truncated, " + std::to_string(original) + " bytes in all]"; }

}  // namespace

std::string CapText(std::string_view text, size_t cap) {
  if (text.size() <= cap) return std::string(text);
  return std::string(text.substr(0, Utf8Boundary(text, cap))) + Marker(text.size());
}

std::string RedactCapped(const Redactor& redactor, std::string_view text, size_t cap) {
  if (text.size() <= cap) return redactor.Redact(text);
  const size_t scanned = Utf8Boundary(text, cap + kMargin);
  std::string out = redactor.Redact(text.substr(0, scanned));
  if (scanned == text.size() && out.size() <= cap) return out;  // redaction made it fit
  out.resize(Utf8Boundary(out, cap));
  return out + Marker(text.size());
}

void RedactEvent(const Redactor* redactor, Event* e, const EventCaps& caps) {
  if (redactor == nullptr) {
    // Nothing unredacted passes on: the texts go, the evidence says why.
    e->raw_payload.clear();
    if (e->signal) {
      if (!e->signal->evidence.empty()) e->signal->evidence = "[evidence withheld: redaction rules unavailable]";
      e->signal->detail.details.clear();
      e->signal->detail.choices.clear();
    }
    return;
  }
  ForEachSecretText(*e, [&](std::string& text) {
    if (text.empty()) return;
    text = RedactCapped(*redactor, text, &text == &e->raw_payload ? caps.raw_payload : caps.text);
  });
}

}  // namespace agt::core
