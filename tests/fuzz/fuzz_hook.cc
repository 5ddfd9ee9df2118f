// Fuzzes the hook payloads: Claude's and Gemini's hooks (stdin) and Codex's
// notify (argv), the first byte picking which. NormalizeHook gives an event
// or an error, never a crash; an event it gives has a dedupe key.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cli/hook/hook_payload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const agt::cli::HookKind kKinds[] = {agt::cli::HookKind::kClaude, agt::cli::HookKind::kGemini,
                                              agt::cli::HookKind::kCodexNotify};
  const agt::cli::HookKind kind = kKinds[data[0] % 3];
  std::string_view payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  agt::cli::HookContext ctx;
  ctx.tmux_pane = "%1";
  ctx.now = 1700000000LL * 1000000000LL;
  (void)agt::cli::TranscriptPath(payload);
  auto e = agt::cli::NormalizeHook(kind, payload, ctx);
  if (e.ok() && e->dedupe_key.empty()) std::abort();
  return 0;
}
