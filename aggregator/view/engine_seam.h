// The daemon's view of the state engine: a narrow interface over
// state::Engine (state/engine.h), implemented in engine_seam.cc, so the API
// and the views need not know the engine's internals.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "state/engine.h"
#include "state/model.h"

namespace agt::agg {

class EngineSeam {
 public:
  virtual ~EngineSeam() = default;
  /// See state::Engine::ApplyInto: applies `e` into a caller-owned Effects,
  /// whose rows are overwritten in place when the caller reuses it.
  virtual void ApplyInto(const core::Event& e, core::TimeNs now, state::Effects* out) = 0;
  /// See state::Engine::Tick.
  virtual state::Effects Tick(core::TimeNs now) = 0;
  virtual std::vector<state::Engine::Demotion> DueDemotions(core::TimeNs now) const = 0;
  virtual std::vector<state::PaneState> AllPanes() const = 0;
  virtual const state::PaneState* FindPane(const std::string& target_id,
                                           const std::string& pane_id) const = 0;
  virtual const state::Runtime* FindRuntime(const std::string& runtime_id) const = 0;
  virtual const state::Runtime* ActiveRuntime(const std::string& target_id,
                                              const std::string& pane_id) const = 0;
  virtual std::vector<state::Candidate> Candidates(const std::string& runtime_id) const = 0;
  /// See state::Engine::Explain: how fusion judged each source of the
  /// pane's active runtime at `now`.
  virtual state::FusionResult Explain(const std::string& target_id, const std::string& pane_id,
                                      core::TimeNs now) const = 0;
  /// Replaces everything the engine holds (daemon start-up, from the
  /// store's LoadSnapshot). See state::Engine::Restore.
  virtual void Restore(const state::EngineSnapshot& snapshot) = 0;
  /// "engine" (reported by /v1/health).
  virtual const char* name() const = 0;
};

/// The engine this build links (state::Engine when available).
std::unique_ptr<EngineSeam> CreateEngineSeam(const state::EngineOptions& options);

}  // namespace agt::agg
