// The engine's private records (not part of the interface): one record per
// runtime, pane and target, linked by pointers into node-based hash maps so
// that the hot path does one hash lookup per event.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "state/dedupe_set.h"
#include "state/engine.h"
#include "state/hash_bytes.h"

namespace agt::state {

struct PaneRec;
struct TargetRec;

/// One source's view of one runtime.
struct Slot {
  bool has_candidate = false;
  Candidate candidate;         // latest opinion; also the (runtime, source) cursor
  TimeMark stale;              // newest stale_detected aimed at this source
};

struct RuntimeRec {
  // What every event for the runtime reads, kept together at the front of
  // the record beside rt.runtime_id (the record is ~1.5 KB; these fields at
  // its end cost a cache miss of their own per event).
  DedupeSet::OwnerId dedupe_owner = 0;  // rt.runtime_id interned in Impl::dedupe
  TimeNs max_ingested = 0;
  PaneRec* pane = nullptr;     // null for a pane-less runtime (outside tmux)
  int64_t demoted_version = -1;
  TimeNs demoted_at = 0;
  FusionMarks marks;           // has the screen seen the dialog a hook reports
  Runtime rt;
  std::array<Slot, core::kSourceCount> slots;
};

struct PaneRec {
  std::string target_id, pane_id;
  std::vector<RuntimeRec*> history;  // every runtime of the pane, by (started_at, runtime_id)
  RuntimeRec* active = nullptr;
  TargetRec* target = nullptr;
  TimeNs max_ingested = 0;           // max over history's max_ingested
  bool has_state = false;
  PaneState state;
  // The runtime whose id state.runtime_id holds (null: none, or not known
  // after a Restore). Runtime ids never change, so while the active runtime
  // is this one Resolve need not compare the 64-byte id again.
  const RuntimeRec* shown_runtime = nullptr;
  // Where this pane's row sits in the Effects being filled: valid while
  // fx_gen equals Impl::fx_gen (saves scanning fx.states per Resolve, which
  // was quadratic when a target's health resolved all its panes).
  uint64_t fx_gen = 0;
  size_t fx_row = 0;
};

struct TargetRec {
  TargetBook book;
  std::vector<PaneRec*> panes;
  DedupeSet::OwnerId dedupe_owner = 0;  // "@<target_id>" interned: the owner of its dedupe rows
};

/// What one Apply of a runtime-scoped event did, before it becomes a
/// Disposition.
struct Outcome {
  bool changed = false;      // a candidate, lifecycle fact or mark changed
  bool out_of_order = false; // not newer than its cursor
  bool runtime_ended = false;
};

/// How ApplyInto reuses the caller's Effects: the rows its previous call
/// left in each vector are overwritten in place by this call's rows (their
/// strings keep their capacity, so the steady state does not allocate), and
/// whatever this call did not overwrite is cut off when it ends. Taking the
/// rows out into a pool and back cost two moves of every row per call.
/// Bounded by the largest Effects seen (one row per pane of a target).
struct RowPool {
  // Rows of each vector that belong to the current call (the rest are the
  // previous call's, waiting to be overwritten).
  size_t states = 0;
  size_t cursors = 0;
  size_t candidates = 0;
  size_t inbox = 0;
  std::optional<Event> event;  // a spare stored_event

  /// Resets fx's other fields to a fresh Effects' values (vectors keep their
  /// capacity) and starts the row counts at zero. fx.stored_event is left
  /// for StoreEvent to assign into.
  void Start(Effects& fx);
  /// Cuts each row vector to this call's rows.
  void Finish(Effects& fx);
};

/// runtime_id -> record, for the one lookup nearly every event makes.
/// std::unordered_map spent it on a division by a prime bucket count and a
/// walk through the node (its cached hash sits past the ~1.5 KB record);
/// this table of (hash, record) pairs is small enough to stay in cache (16
/// bytes a slot, load <= 1/2), so a lookup costs the id's hash, usually one
/// probe, and one compare with the record's own runtime_id. Insert-only, like
/// the engine's runtimes; the records live in Impl::runtimes.
class RuntimeIndex {
 public:
  RuntimeIndex() : slots_(kInitialSlots) {}
  RuntimeRec* Find(std::string_view runtime_id) const {
    return Find(runtime_id, HashBytes(runtime_id));
  }
  /// The same with hash == HashBytes(runtime_id) (which is
  /// DedupeSet::OwnerHash(runtime_id)) computed by the caller.
  RuntimeRec* Find(std::string_view runtime_id, uint64_t hash) const;
  /// Adds `r` under r->rt.runtime_id, which must not be there yet.
  void Insert(RuntimeRec* r);

 private:
  struct Slot {
    uint64_t hash = 0;
    RuntimeRec* rec = nullptr;  // null = empty
  };
  static constexpr size_t kInitialSlots = 64;  // a power of two
  void Grow();

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

/// Lets a map keyed by std::string be searched with a std::string_view (a
/// key built in a reused buffer) without making a string of it.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return HashBytes(s); }
};
template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;
using StringSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;

struct Engine::Impl {
  EngineOptions opt;
  std::unordered_map<std::string, RuntimeRec> runtimes;
  RuntimeIndex runtime_index;                          // the same records, for ApplyInto
  StringMap<PaneRec> panes;                            // PaneKey(target, pane)
  std::unordered_map<std::string, TargetRec> targets;
  /// Dedupe rows of every stored event, runtime- and target-scoped.
  DedupeSet dedupe;
  /// Inbox entries still pending_bind, by (ingested_at, event_id) so that
  /// retries and expiry run in one deterministic order.
  std::map<std::pair<TimeNs, std::string>, InboxEntry> pending;
  StringSet pending_keys;                              // PendingKey(event) of those entries
  Signal demoted_signal;                               // reused by Resolve (no allocation per event)
  Signal answered_signal;                              // the same, for row 1b
  Signal lent_signal;                                  // the same, for a hook wait with the screen's detail
  // Reused by BindOrPark, which runs for every event without a runtime_id.
  std::string scratch_pending_key;
  std::string scratch_pane_key;
  std::vector<const Runtime*> scratch_runtimes;
  uint64_t fx_gen = 0;                                 // bumped for every Effects filled
  bool event_stored = false;                           // StoreEvent ran in this ApplyInto
  RowPool pool;

  explicit Impl(EngineOptions o) : opt(std::move(o)) {}

  // engine.cc: the event paths.
  /// Fills fx, reusing what it holds (see RowPool); Engine::Apply passes a
  /// fresh one.
  void ApplyInto(const Event& e, TimeNs now, Effects& fx);
  /// What ApplyInto does between setting fx up and finishing it.
  void Dispatch(const Event& e, TimeNs now, Effects& fx);
  /// fx.stored_event = e, built in the pool's spare event when there is one;
  /// sets event_stored.
  void StoreEvent(Effects& fx, const Event& e);
  /// `dedupe_hash` is dedupe.RowHash(r.dedupe_owner, e.source, e.dedupe_key).
  Disposition ApplyToRuntime(const Event& e, RuntimeRec& r, uint64_t dedupe_hash, TimeNs now,
                             Effects& fx, std::string* error_code);
  Disposition ApplyTargetScoped(const Event& e, TimeNs now, Effects& fx);

  // engine_lifecycle.cc: runtimes, binding and the inbox.
  Disposition StartRuntime(const Event& e, TimeNs now, Effects& fx);
  bool EndRuntime(RuntimeRec& r, TimeNs end, Effects& fx);
  Disposition BindOrPark(const Event& e, TimeNs now, Effects& fx);
  void RetryPending(const RuntimeRec& created, TimeNs now, Effects& fx);
  Effects Tick(TimeNs now);
  PaneRec& PaneFor(const std::string& target_id, const std::string& pane_id);
  TargetRec& TargetFor(const std::string& target_id);
  /// The runtimes of `p`'s history, for MatchRuntime (in a reused vector,
  /// valid until the next call).
  const std::vector<const Runtime*>& PaneRuntimes(const PaneRec& p);
  /// The record of `rt`, one of `p`'s runtimes (as MatchRuntime returned it).
  RuntimeRec& RecordOf(const PaneRec& p, const Runtime* rt);
  /// PaneKey(target_id, pane_id) built in a reused buffer, for lookups; valid
  /// until the next call.
  std::string_view ScratchPaneKey(const std::string& target_id, const std::string& pane_id);

  // engine_resolve.cc: resolution and views.
  void Resolve(PaneRec& p, TimeNs now, Effects& fx);
  FusionResult FuseRuntime(const RuntimeRec& r, const TargetRec* t, TimeNs now) const;
  bool IsMarkedStale(const RuntimeRec& r, const TargetRec* t, Source s) const;
};

/// "target\x1fpane": the key of `panes`.
std::string PaneKey(const std::string& target_id, const std::string& pane_id);
/// The key of `pending_keys`: runtime or pane, source, dedupe_key.
std::string PendingKey(const Event& e);
/// The same, assigned into `*out` (reusing its capacity).
void BuildPendingKey(const Event& e, std::string* out);

/// Effects helpers: replace the row with the same identity, else append.
/// Those taking a RowPool look only at this call's rows and append by
/// overwriting a leftover row when there is one.
void UpsertRuntime(Effects& fx, const Runtime& rt);
/// Appends without looking for an existing row (the caller knows there is none).
void AppendState(Effects& fx, const PaneState& s, RowPool& pool);
void UpsertCursor(Effects& fx, const std::string& runtime_id, Source s, const OrderKey& k,
                  RowPool& pool);
void UpsertCandidate(Effects& fx, const std::string& runtime_id, const Candidate& c, RowPool& pool);
/// Sets the inbox row of `event` (found by event_id) to (event, status,
/// reason); a new row comes from `pool` when it has one. Returns the row.
InboxEntry& UpsertInbox(Effects& fx, const Event& event, InboxStatus status,
                        std::string_view reason, RowPool& pool);

}  // namespace agt::state
