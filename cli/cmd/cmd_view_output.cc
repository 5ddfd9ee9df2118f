// `agtmux view-output <ref>`: a bounded capture of a pane through the
// daemon (POST /v1/actions/view-output), optionally with escapes, and with
// --analyze classified by patterns/analyze.toml (success / warning /
// failure findings: build and test failures, git conflicts, panics, OOM).
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>

#include <cstdio>
#include <memory>

#include "cli/client/action_client.h"
#include "cli/command.h"
#include "cli/client/ref_resolve.h"
#include "cli/client/daemon_client.h"
#include "libagtcore/detect/log_classifier.h"
#include "libagtcore/detect/pattern_library.h"

namespace agt::cli {

namespace {

struct ViewArgs {
  std::string ref;
  int lines = 200;
  bool escapes = false, analyze = false;
  std::string patterns;
  ActionGuards guards;
};

/// analyze.toml: --patterns, else the one in the pattern directory
/// ($AGTMUX_PATTERNS_DIR, the source tree, or the installed data dir).
core::Result<detect::LogRules> LoadRules(const std::string& explicit_path) {
  std::vector<std::string> candidates;
  if (!explicit_path.empty()) candidates.push_back(explicit_path);
  candidates.push_back(detect::DefaultPatternsDir() + "/analyze.toml");
  for (const auto& p : candidates) {
    auto text = detect::ReadTextFile(p);
    if (!text) {
      if (!explicit_path.empty()) return text.error();
      continue;
    }
    return detect::ParseLogRules(*text, p);
  }
  return core::MakeError(core::Err::kPatternInvalid, "cannot find patterns/analyze.toml (use --patterns FILE)");
}

int RunView(const ViewArgs& a) {
  rapidjson::Document body = ActionBody(a.ref);
  body.AddMember("lines", a.lines, body.GetAllocator());
  if (a.escapes) body.AddMember("escapes", true, body.GetAllocator());
  auto d = PostAction("view-output", body, a.guards);
  if (!d) return ReportError(d.error());
  std::string out = ResultString(*d, "output");
  if (!a.analyze) {
    std::printf("%s\n", out.c_str());
    return 0;
  }
  auto rules = LoadRules(a.patterns);
  if (!rules) return ReportError(rules.error());
  detect::LogReport rep = detect::ClassifyLog(*rules, out);
  std::printf("verdict  %s\n", std::string(detect::LogClassName(rep.verdict)).c_str());
  for (const auto& f : rep.findings)
    std::printf("%-8s line %-5d %-28s %s\n", std::string(detect::LogClassName(f.cls)).c_str(), f.line_no,
                f.rule_id.c_str(), f.line.c_str());
  return rep.verdict == detect::LogClass::kFailure ? 1 : 0;
}

}  // namespace

CommandSpec ViewOutputCommand() {
  return {"view-output", "Show a pane's recent output (bounded), optionally classified with --analyze",
          [](CLI::App* sub) -> Runner {
            auto a = std::make_shared<ViewArgs>();
            sub->add_option("ref", a->ref, kRefHelp)->required();
            sub->add_option("--lines", a->lines, "how many lines (default 200)")->check(CLI::Range(1, 100000));
            sub->add_flag("--escapes", a->escapes, "keep the terminal escape sequences (colours)");
            sub->add_flag("--analyze", a->analyze, "classify the output (success / warning / failure findings)");
            sub->add_option("--patterns", a->patterns, "the analyze.toml to use");
            AddGuardFlags(sub, &a->guards);
            return [a] { return WithResolvedRef(&a->ref, [a] { return RunView(*a); }); };
          }};
}

}  // namespace agt::cli
