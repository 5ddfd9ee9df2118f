// Hostile texts for the redactor: each rule's own start (a key prefix, a
// keyword, a header) repeated, or followed by runs of the characters the
// rule reads, with and without separators; plus long runs of one class
// (letters, base64, spaces, dashes, multibyte and broken UTF-8). A rule
// that reads far before failing, once per start, is quadratic on one of
// these. Shared by tests/core/redact_test.cc (a step budget, any size) and
// bench/core/redact_bench.cc (the time for 1 MB).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace agt::test {

struct HostileText {
  std::string name;
  std::string text;
};

/// Every hostile text, each `size` bytes long (the last repetition cut).
/// `all_runs` false: each start alone, with a space, and before its longest
/// run only (a third of the texts, for a quick test).
inline std::vector<HostileText> HostileTexts(size_t size, bool all_runs = true) {
  const char* starts[] = {
      "-----BEGIN PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\n", "-----END PRIVATE KEY-----",
      "-----BEGIN A B C D PRIVATE KEY BLOCK-----", "sk-", "sk-ant-", "sk-ant-a-", "sk_live_", "rk_test_",
      "whsec_", "AKIA", "aws_secret_access_key=", "ghp_", "github_pat_", "glpat-", "GR1348941", "xoxb-",
      "xoxe.xoxp-", "xapp-1-", "https://hooks.slack.com/services/", "npm_", "hf_", "api_org_", "AIza",
      "GOCSPX-", "ya29.", "dop_v1_", "dckr_pat_", "pypi-AgE", "SG.", "glsa_", "hvs.", "sntrys_", "dp.pt.",
      "AGE-SECRET-KEY-1", "ATATT3", "eyJ", "eyJa.", "eyJaaaaaaaaa.eyJaaaaaaaaa.", "a://", "a://b:",
      "https://user:", "x+y.z://", "bearer ", "Bearer\t", "authorization: ", "Authorization: Basic ",
      "proxy-authorization=", "cookie: ", "x-api-key:", "password=", "password=\"", "password='",
      "password: ", "\"password\": \"", "DB_PASSWORD=", "max_token=1", "a_a_", "a.", "a-", "--password ",
      "--a-b-c-password ", "-p", "token ", "secret_key=", "MYSQL_PWD="};
  // Runs that follow a start: what most rules read after their prefix.
  const std::string runs[] = {"", std::string(16, 'a'), std::string(255, 'a'), std::string(4095, 'a'),
                              std::string(300, '-'), std::string(64, 'x') + " ", "0123456789abcdef"};
  std::vector<HostileText> out;
  auto fill = [&](const std::string& name, const std::string& unit) {
    if (unit.empty()) return;
    std::string t;
    t.reserve(size + unit.size());
    while (t.size() < size) t += unit;
    t.resize(size);
    out.push_back({name, std::move(t)});
  };
  for (const char* s : starts) {
    for (const std::string& r : runs) {
      if (!all_runs && !r.empty() && r.size() != 4095) continue;
      const std::string what = std::string("\"") + s + "\" + " + std::to_string(r.size()) + " run";
      fill(what, s + r);
      if (r.empty()) fill(what + ", space", std::string(s) + " ");
    }
  }
  fill("letters", "a");
  fill("base64", "QWxhZGRpbjpvcGVuIHNlc2FtZQ+/");
  fill("spaces", " ");
  fill("dashes", "-");
  fill("newlines", "\n");
  fill("multibyte", "é漢🚀");
  fill("broken UTF-8", "\xff\xfe\xc0");
  fill("quotes", "\"'");
  fill("a log line", "2026-11-24T10:00:00Z INFO test_module.py::test_case PASSED [ 42%] password field ok\n");
  return out;
}

}  // namespace agt::test
