// The ordering rules of spec §5, in one place so that the engine, its tests
// and the docs agree on what "newer" means.
#include "state/order.h"

#include <cstdlib>

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

int CompareByTime(const OrderKey& a, const OrderKey& b) {
  if (int c = Cmp(a.effective_time, b.effective_time)) return c;
  if (int c = Cmp(a.ingested_at, b.ingested_at)) return c;
  return a.event_id.compare(b.event_id) < 0 ? -1 : (a.event_id == b.event_id ? 0 : 1);
}

}  // namespace

int CompareInStream(const OrderKey& a, const OrderKey& b) {
  if (a.source_seq && b.source_seq) {
    if (int c = Cmp(*a.source_seq, *b.source_seq)) return c;
  }
  return CompareByTime(a, b);
}

int CompareAcross(const OrderKey& a, const OrderKey& b) { return CompareByTime(a, b); }

}  // namespace agt::state
