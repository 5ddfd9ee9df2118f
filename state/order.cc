// The ordering rules of docs/spec.md §5, in one place so that the engine, its tests
// and the docs agree on what "newer" means.
#include "state/order.h"

#include <cstdlib>
#include <optional>
#include <string_view>

namespace agt::state {

TimeNs EffectiveTime(const Event& e, TimeNs skew_budget) {
  TimeNs diff = e.event_time - e.ingested_at;
  if (diff < 0) diff = -diff;
  return (e.event_time != 0 && diff <= skew_budget) ? e.event_time : e.ingested_at;
}

OrderKey MakeOrderKey(const Event& e, TimeNs skew_budget) {
  OrderKey k;
  AssignOrderKey(e, skew_budget, &k);
  return k;
}

void AssignOrderKey(const Event& e, TimeNs skew_budget, OrderKey* out) {
  out->source_seq = e.source_seq;
  out->effective_time = EffectiveTime(e, skew_budget);
  out->ingested_at = e.ingested_at;
  out->event_id = e.event_id;
}

namespace {

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// The fields of a key, whether held in an OrderKey or read from an event.
struct KeyView {
  const std::optional<int64_t>& source_seq;
  TimeNs effective_time;
  TimeNs ingested_at;
  std::string_view event_id;
};

KeyView View(const OrderKey& k) { return {k.source_seq, k.effective_time, k.ingested_at, k.event_id}; }

int CompareByTime(const KeyView& a, const KeyView& b) {
  if (int c = Cmp(a.effective_time, b.effective_time)) return c;
  if (int c = Cmp(a.ingested_at, b.ingested_at)) return c;
  const int c = a.event_id.compare(b.event_id);
  return c < 0 ? -1 : (c == 0 ? 0 : 1);
}

int CompareByTime(const OrderKey& a, const OrderKey& b) { return CompareByTime(View(a), View(b)); }

int CompareInStream(const KeyView& a, const KeyView& b) {
  if (a.source_seq && b.source_seq) {
    if (int c = Cmp(*a.source_seq, *b.source_seq)) return c;
  }
  return CompareByTime(a, b);
}

}  // namespace

int CompareInStream(const OrderKey& a, const OrderKey& b) { return CompareInStream(View(a), View(b)); }

int CompareInStream(const Event& e, TimeNs effective_time, const OrderKey& b) {
  return CompareInStream(KeyView{e.source_seq, effective_time, e.ingested_at, e.event_id}, View(b));
}

int CompareAcross(const OrderKey& a, const OrderKey& b) { return CompareByTime(a, b); }

}  // namespace agt::state
