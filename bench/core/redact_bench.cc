// The redactor's time on the worst text we can build (issue 14: a 300 KB
// run of "sk-" once took 89.7 s): every hostile text of
// tests/core/redact_adversarial.h at 1 MiB, redacted by the built-in rules
// as agtmuxd runs them (JIT, the production step budget). Prints the five
// slowest (min/median/max of 7 runs each), the worst against the 100 ms
// goal, and the baseline: 1 MiB of an ordinary test log, in the same run.
//   redact_bench [RULES.toml [BYTES]]   (defaults: the built-in rules, 1 MiB)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "libagtcore/redact.h"
#include "tests/core/redact_adversarial.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  double min, median, max;
};

Stats Time(const agt::core::Redactor& r, const std::string& text, int runs, size_t* over_budget) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    agt::core::RedactStats st;
    const auto t0 = Clock::now();
    std::string out = r.Redact(text, &st);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    *over_budget += st.over_budget;
    if (out.empty() && !text.empty()) std::abort();  // keep the work
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2], ms.back()};
}

}  // namespace

int main(int argc, char** argv) {
  auto loaded = argc > 1 ? agt::core::Redactor::LoadFile(argv[1]) : agt::core::Redactor::LoadBuiltin();
  if (!loaded) {
    std::fprintf(stderr, "redact_bench: %s\n", loaded.error().ToString().c_str());
    return 1;
  }
  const agt::core::Redactor& r = *loaded;
  const size_t size = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : size_t{1} << 20;
  std::printf("redact_bench: %zu rules, texts of %zu bytes\n", r.RuleIds().size(), size);

  size_t over = 0;
  std::string ordinary;
  const std::string line = "2026-11-24T10:00:00Z INFO test_module.py::test_case PASSED [ 42%] password field ok\n";
  while (ordinary.size() < size) ordinary += line;
  ordinary.resize(size);
  (void)Time(r, ordinary, 1, &over);  // warm-up
  const Stats base = Time(r, ordinary, 7, &over);

  // One timed run of each hostile text, then the five slowest again.
  std::vector<agt::test::HostileText> texts = agt::test::HostileTexts(size);
  std::vector<std::pair<double, size_t>> first;
  for (size_t i = 0; i < texts.size(); ++i) first.push_back({Time(r, texts[i].text, 1, &over).median, i});
  std::sort(first.rbegin(), first.rend());
  std::printf("%zu hostile texts; the five slowest, ms over 7 runs (min / median / max):\n", texts.size());
  double worst = 0;
  std::string worst_name;
  for (size_t k = 0; k < 5 && k < first.size(); ++k) {
    const agt::test::HostileText& h = texts[first[k].second];
    const Stats s = Time(r, h.text, 7, &over);
    std::printf("  %8.1f / %8.1f / %8.1f  %s\n", s.min, s.median, s.max, h.name.c_str());
    if (s.median > worst) {
      worst = s.median;
      worst_name = h.name;
    }
  }
  std::printf("baseline, an ordinary test log: %.1f / %.1f / %.1f ms\n", base.min, base.median, base.max);
  std::printf("worst case: %s: %.1f ms median for %zu bytes (%.1fx the baseline); goal < 100 ms: %s\n",
              worst_name.c_str(), worst, size, worst / base.median, worst < 100 ? "met" : "NOT met");
  std::printf("searches that failed closed (over budget): %zu\n", over);
  return 0;
}
