// Event ordering (docs/spec.md §5): the key every event is compared by, and the two
// comparisons the engine needs: within one (runtime, source) stream, where
// source_seq decides when both sides carry one, and across sources, where
// only time can.
#pragma once

#include "state/model.h"

namespace agt::state {

/// event_time when it lies within `skew_budget` of ingested_at, else
/// ingested_at: a source with a wrong clock cannot jump ahead of the others.
TimeNs EffectiveTime(const Event& e, TimeNs skew_budget);

/// The ordering key of `e`.
OrderKey MakeOrderKey(const Event& e, TimeNs skew_budget);

/// The same, assigned into `*out`, reusing its event_id's capacity (the
/// engine's hot path keeps one scratch key).
void AssignOrderKey(const Event& e, TimeNs skew_budget, OrderKey* out);

/// Three-way comparison of two keys from the same (runtime, source) stream:
/// source_seq when both have one, then effective time, ingested_at, event_id.
/// A source should either always or never number its events: mixing the two
/// within one stream makes the order depend on which rule applies.
int CompareInStream(const OrderKey& a, const OrderKey& b);

/// The same with `e`'s key on the left, read from the event (its effective
/// time passed in) instead of built in an OrderKey: no copy of its event_id.
int CompareInStream(const Event& e, TimeNs effective_time, const OrderKey& b);

/// Three-way comparison of keys from different sources: sequence numbers of
/// different sources mean nothing to each other, so time decides, then
/// ingested_at, then event_id.
int CompareAcross(const OrderKey& a, const OrderKey& b);

/// A point in time a stale mark or a freshness check compares against:
/// (effective time, ingested_at), newest wins.
struct TimeMark {
  TimeNs effective_time = 0;
  TimeNs ingested_at = 0;
  bool operator==(const TimeMark&) const = default;
  auto operator<=>(const TimeMark&) const = default;
  bool empty() const { return effective_time == 0 && ingested_at == 0; }
};

inline TimeMark MarkOf(const OrderKey& k) { return {k.effective_time, k.ingested_at}; }

}  // namespace agt::state
