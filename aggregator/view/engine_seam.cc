// EngineSeam over the state engine (state/engine.h).
#include "aggregator/view/engine_seam.h"

namespace agt::agg {
namespace {

class EngineCore final : public EngineSeam {
 public:
  explicit EngineCore(const state::EngineOptions& o) : engine_(o) {}
  void ApplyInto(const core::Event& e, core::TimeNs now, state::Effects* out) override {
    engine_.ApplyInto(e, now, out);
  }
  state::Effects Tick(core::TimeNs now) override { return engine_.Tick(now); }
  std::vector<state::Engine::Demotion> DueDemotions(core::TimeNs now) const override {
    return engine_.DueDemotions(now);
  }
  std::vector<state::PaneState> AllPanes() const override { return engine_.AllPanes(); }
  const state::PaneState* FindPane(const std::string& t, const std::string& p) const override {
    return engine_.FindPane(t, p);
  }
  const state::Runtime* FindRuntime(const std::string& id) const override {
    return engine_.FindRuntime(id);
  }
  const state::Runtime* ActiveRuntime(const std::string& t, const std::string& p) const override {
    return engine_.ActiveRuntime(t, p);
  }
  state::FusionResult Explain(const std::string& target_id, const std::string& pane_id,
                              core::TimeNs now) const override {
    return engine_.Explain(target_id, pane_id, now);
  }
  std::vector<state::Candidate> Candidates(const std::string& id) const override {
    return engine_.Candidates(id);
  }
  void Restore(const state::EngineSnapshot& snapshot) override { engine_.Restore(snapshot); }
  const char* name() const override { return "engine"; }

 private:
  state::Engine engine_;
};

}  // namespace

std::unique_ptr<EngineSeam> CreateEngineSeam(const state::EngineOptions& options) {
  return std::make_unique<EngineCore>(options);
}

}  // namespace agt::agg
