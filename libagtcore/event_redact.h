// What an event may carry once it leaves its producer: the texts that can
// hold a secret (raw_payload, the signal's evidence, waiting details and
// choices) redacted and cut to a size, the same way wherever that happens
// (the hook and the wrapper before they spool, agtmuxd at ingest), so that
// no spool file or database row holds a secret and no payload makes
// redaction or storage expensive (docs/wrap.md "The spool", docs/store.md
// "Redaction").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "libagtcore/event.h"
#include "libagtcore/redact.h"

namespace agt::core {

struct EventCaps {
  size_t raw_payload = 64 * 1024;  // bytes kept of raw_payload
  size_t text = 4096;              // bytes kept of evidence, details, and each choice
};

/// `text` redacted and cut to at most `cap` bytes (at a UTF-8 boundary)
/// followed by "…[truncated, N bytes in all]" (N: the length of `text`)
/// when it was longer. Only the first
/// cap + 4 KiB are redacted and the cut comes after redaction, so a token
/// that straddles the cut is redacted whole (tokens are shorter than 4 KiB;
/// a PEM key block cut off is redacted up to the cut).
std::string RedactCapped(const Redactor& redactor, std::string_view text, size_t cap);

/// `text` cut to `cap` bytes as RedactCapped does, without redaction.
std::string CapText(std::string_view text, size_t cap);

/// Redacts and caps the event's texts (core::ForEachSecretText) in place.
/// Without a redactor (redaction.toml could not be loaded) nothing passes
/// on unredacted: the raw payload, details and choices are dropped and the
/// evidence is withheld.
void RedactEvent(const Redactor* redactor, Event* e, const EventCaps& caps = {});

}  // namespace agt::core
