#include "libagtcore/redact.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "libagtcore/event_redact.h"
#include "tests/core/redact_adversarial.h"
#include "tests/core/secret_samples.h"
#include "agtmux_source_paths.h"

namespace agt::core {
namespace {

EnvFn MapEnv(std::map<std::string, std::string> vars) {
  auto copy = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [copy](const char* name) -> const char* {
    auto it = copy->find(name);
    return it == copy->end() ? nullptr : it->second.c_str();
  };
}

const Redactor& Builtin() {
  static Redactor* r = [] {
    Result<Redactor> loaded =
        Redactor::LoadBuiltin(MapEnv({{"AGTMUX_PATTERNS_DIR", AGTMUX_SOURCE_PATTERNS_DIR}}));
    EXPECT_TRUE(loaded.ok()) << loaded.error().ToString();
    return new Redactor(std::move(loaded).value());
  }();
  return *r;
}

struct Case {
  std::string in;
  std::string out;
};

TEST(RedactTest, RemovesRealisticSecrets) {
  const std::string ant =
      "sk-ant-api03-Xq9v2LrT8sKpWm4ZbN7cYd1eFgHjK3lM5nOpQr6StUv8WxYz0aBcDeFgHiJkLmNoPq-"
      "RsTuVwXyZ01AA";
  const std::string jwt =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwia"
      "WF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
  const Case cases[] = {
      {"export ANTHROPIC_API_KEY=" + ant, "export ANTHROPIC_API_KEY=[REDACTED:anthropic_api_key]"},
      {"key: sk-proj-4fT9xQ2mZ8vL1kR7wN3bY6cH0jD5sG", "key: [REDACTED:openai_api_key]"},
      {"OPENAI=sk-1234567890abcdefghijKLMNOP", "OPENAI=[REDACTED:openai_api_key]"},
      {"aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
       "aws_access_key_id = [REDACTED:aws_access_key_id]"},
      {"aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
       "aws_secret_access_key=[REDACTED:aws_secret_access_key]"},
      {"git clone https://ghp_R2d2C3poLuke5kywalkerHanSolo0123456789@github.com/x/y",
       "git clone https://[REDACTED:github_token]@github.com/x/y"},
      {"GH_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a", "GH_TOKEN=[REDACTED:github_token]"},
      {"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV0123",
       "[REDACTED:github_token]"},
      {"SLACK_BOT_TOKEN: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
       "SLACK_BOT_TOKEN: [REDACTED:slack_token]"},
      {"GEMINI_API_KEY=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "GEMINI_API_KEY=[REDACTED:google_api_key]"},
      {"session " + jwt + " expired", "session [REDACTED:jwt] expired"},
      {"Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED:jwt]"},
      {"-H 'Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543'",
       "-H 'Authorization: Bearer [REDACTED:bearer_token]'"},
      {"Authorization: Basic dXNlcjpodW50ZXIy", "Authorization: Basic [REDACTED:basic_auth]"},
      {"postgres://admin:S3cr3t!pw@db.internal:5432/app",
       "postgres://admin:[REDACTED:url_credentials]@db.internal:5432/app"},
      {"mysql -u root --password=hunter2 app", "mysql -u root --password=[REDACTED:password_assignment] app"},
      {"passwd: correct-horse-battery", "passwd: [REDACTED:password_assignment]"},
      {"client_secret=\"a b c\" next", "client_secret=[REDACTED:password_assignment] next"},
      {"{\"password\": \"p@ss\"}", "{\"password\": [REDACTED:password_assignment]}"},
      {"SECRET_KEY='django-insecure-xyz'", "SECRET_KEY=[REDACTED:password_assignment]"},
  };
  for (const Case& c : cases) EXPECT_EQ(Builtin().Redact(c.in), c.out) << c.in;
}

TEST(RedactTest, RemovesPrivateKeyBlocksWhole) {
  std::string pem =
      "before\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
      "QyNTUxOQAAACBkZXZlbG9wZXIta2V5LW5vdC1yZWFsAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
      "-----END OPENSSH PRIVATE KEY-----\nafter";
  EXPECT_EQ(Builtin().Redact(pem), "before\n[REDACTED:private_key]\nafter");
  std::string rsa = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----";
  EXPECT_EQ(Builtin().Redact(rsa), "[REDACTED:private_key]");
  // A block cut off by the end of a capture still goes.
  EXPECT_EQ(Builtin().Redact("x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqh"),
            "x [REDACTED:private_key]");
  // Public material stays.
  std::string cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
  EXPECT_EQ(Builtin().Redact(cert), cert);
}

TEST(RedactTest, LeavesOrdinaryTextAlone) {
  const char* keep[] = {
      "",
      "Running tests: 42 passed, 0 failed",
      "Do you want to proceed? ❯ 1. Yes  2. No",
      "pip install scikit-learn risk-assessment-framework-for-large-models",
      "task-list-with-a-very-long-hyphenated-name",
      "the password field is required",
      "Enter password:",
      "max_token=4096 tokens used",
      "git push origin main",
      "https://github.com/anthropics/claude-code",
      "ssh user@host",
      "ghp_short",
      "AKIA1234",
      "Bearer auth is configured",
      "作業 🚀 完了",
      "[REDACTED:jwt] stays as it is",
  };
  for (const char* s : keep) EXPECT_EQ(Builtin().Redact(s), s);
}

TEST(RedactTest, CountsReplacementsAndIsIdempotent) {
  size_t n = 0;
  std::string once = Builtin().Redact(
      "a=AKIAIOSFODNN7EXAMPLE b=AKIAIOSFODNN7EXAMPLF password=x", &n);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(once,
            "a=[REDACTED:aws_access_key_id] b=[REDACTED:aws_access_key_id] "
            "password=[REDACTED:password_assignment]");
  EXPECT_EQ(Builtin().Redact(once, &n), once);
  EXPECT_EQ(n, 0u);
}

// Found by fuzz_redact (tests/fuzz/corpus/redact/idempotent-long-values):
// a header or assignment value used to be cut at 512 or 4096 characters,
// and its tail, which began mid-token before, began right after the marker
// afterwards, so a second pass redacted it again. A value is now taken to
// its end, however long.
TEST(RedactTest, LongValuesAreTakenWholeSoASecondPassChangesNothing) {
  std::string run;
  for (int i = 0; i < 1500; ++i) run += "sk-";  // past the old 4096
  const std::string tail = "sk-proj-4fQ9zR2mX7bK1pL8vN3cT6wY0hJ5dG";
  const std::vector<std::string> texts = {
      "Authorization: Be" + run + tail + "\n",
      "X-Api-Key: a" + run + tail + "\n",
      "DB_PASSWORD=\"a" + run + tail + "\"\n",
      "DB_PASSWORD='a" + run + tail + "'\n",
      "--token \"a" + run + tail + "\"\n",
  };
  for (const std::string& text : texts) {
    std::string once = Builtin().Redact(text);
    EXPECT_EQ(once.find("sk-"), std::string::npos) << text.substr(0, 20);
    EXPECT_EQ(Builtin().Redact(once), once) << text.substr(0, 20);
  }
}

TEST(RedactTest, FindsSecretsAtTheEndOfLargeCaptures) {
  // A 1 MB capture (an unterminated key block near the start, lots of
  // ordinary output) must not hit a PCRE2 limit and leave the key behind.
  // The block is read up to the first character no key body has (the "_"
  // of the log line); what follows is ordinary text and stays.
  std::string big = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n";
  std::string line = "test_module.py::test_case PASSED [ 42%] password field ok\n";
  std::string lines;
  while (lines.size() < (1u << 20)) lines += line;
  big += lines + "-----END EC PRIVATE KEY-----\nkey=AKIAIOSFODNN7EXAMPLE\n";
  std::string out = Builtin().Redact(big);
  EXPECT_EQ(out, "[REDACTED:private_key]_module.py::test_case PASSED [ 42%] password field ok\n" +
                     lines.substr(line.size()) + "-----END EC PRIVATE KEY-----\nkey=[REDACTED:aws_access_key_id]\n");
  EXPECT_EQ(out.find("MHcCAQEEIB"), std::string::npos);
  std::string plain;
  while (plain.size() < (1u << 20)) plain += line;
  plain += "token=ghp_R2d2C3poLuke5kywalkerHanSolo0123456789";
  std::string redacted = Builtin().Redact(plain);
  EXPECT_EQ(redacted.substr(redacted.size() - 29), "token=[REDACTED:github_token]");
}

TEST(RedactTest, EveryFamilyInItsUsualPlace) {
  // Each sample comes out exactly as it went in, its secret replaced by the
  // marker of the rule that names its family.
  std::set<std::string> rules;
  for (const test::SecretSample& s : test::SecretSamples()) {
    const size_t at = s.text.find(s.secret);
    ASSERT_NE(at, std::string::npos) << s.text;
    const std::string want = s.text.substr(0, at) + "[REDACTED:" + s.rule + "]" + s.text.substr(at + s.secret.size());
    EXPECT_EQ(Builtin().Redact(s.text), want) << s.rule << ": " << s.text;
    rules.insert(s.rule);
  }
  // Every rule has a sample.
  for (const std::string& id : Builtin().RuleIds()) EXPECT_TRUE(rules.count(id)) << "no sample for " << id;
}

TEST(RedactTest, KeepsTextThatOnlyLooksLikeASecret) {
  // What a terminal shows all day must survive: hashes, ids, prose about
  // passwords, names that merely contain a keyword, numbers for token
  // limits, short or partial prefixes, the working directory.
  const char* keep[] = {
      "commit 3f786850e387550fdab836ed7e6dc881de23001b",
      "id 123e4567-e89b-12d3-a456-426614174000",
      "PWD=/home/user/src OLDPWD=/tmp",
      "token_count: 12, secretary: Jane, api_key_id: 7",
      "password_reset_url=https://example.com/reset",
      "Authorization required",
      "mysql -u root -p appdb",
      "mysql -h db -P 3306 -u app --port=3306",
      "curl -u admin https://example.com/",
      "sshpass -f ~/.pw ssh host",
      "mysql-proxy -p",
      "use --token-file /run/secrets/t",
      "the cookie jar is empty",
      "Bearer tokens expire",
      "max_tokens=4096 max_token=4096 token: 512",
      "pip install scikit-learn; sk-learn-style",
      "hf_hub_download(repo_id='x')",
      "AIzaShort glpat-short ghp_short npm_short",
      "eyJhbGciOiJIUzI1NiJ9 alone is only a header",
      "https://github.com/anthropics/claude-code/issues/1",
      "user@host:/path and http://host:8080/a@b",
      "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
  };
  for (const char* s : keep) EXPECT_EQ(Builtin().Redact(s), s);
}

TEST(RedactTest, EveryRuleStaysWithinItsStepBudgetOnHostileText) {
  // The interpreter counts PCRE2's steps per match attempt (one rule at one
  // start). A rule that reads far and fails at every start of a long run
  // (the old openai rule on "sk-sk-sk-...": 89.7 s for 300 KB) needs about
  // the run's length at each start: on 32 KiB texts it passes 20,000 steps
  // and fails closed, which this test sees. The bounded rules stay below
  // (the largest bound, a key block's 16 KiB body, costs about 16,400).
  RedactorOptions counted;
  counted.jit = false;
  counted.match_limit = 20000;
  Result<Redactor> r = Redactor::LoadBuiltin(MapEnv({{"AGTMUX_PATTERNS_DIR", AGTMUX_SOURCE_PATTERNS_DIR}}), counted);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  for (const test::HostileText& h : test::HostileTexts(32 * 1024, false)) {
    RedactStats stats;
    (void)r->Redact(h.text, &stats);
    EXPECT_EQ(stats.over_budget, 0u) << h.name;
  }
}

TEST(RedactTest, ASearchOverBudgetFailsClosed) {
  // A rule written without care: after its first match ("ab"), its next
  // search runs out of budget, and the text from where that search began
  // is replaced rather than kept.
  RedactorOptions tight;
  tight.jit = false;
  tight.match_limit = 10000;
  Result<Redactor> r = Redactor::Parse("[[rule]]\nid = \"slow\"\npattern = '^ab|(x+x+)+y'\n", "t.toml", tight);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  RedactStats stats;
  EXPECT_EQ(r->Redact("ab then " + std::string(30, 'x') + "z y", &stats), "[REDACTED:slow][REDACTED:slow]");
  EXPECT_EQ(stats.replaced, 1u);
  EXPECT_EQ(stats.over_budget, 1u);
}

TEST(RedactTest, EventTextsAreRedactedAndCapped) {
  core::Event e;
  const std::string key = "ghp_qREfgCE9WratP86yr3uTRjjfrMN4H3k7mWFM";
  e.raw_payload = std::string(5000, 'x') + " " + key + " " + std::string(100000, 'y');
  e.signal = core::Signal{};
  e.signal->evidence = "token " + key;
  e.signal->detail.details = std::string(10000, 'd');
  e.signal->detail.choices = {"Yes, use " + key};
  core::EventCaps caps;
  caps.raw_payload = 5011;  // the key straddles the cut: it is redacted first
  core::RedactEvent(&Builtin(), &e, caps);
  EXPECT_TRUE(e.raw_payload == std::string(5000, 'x') + " [REDACTED:…[truncated, 105042 bytes in all]")
      << e.raw_payload.substr(4990);
  EXPECT_EQ(e.raw_payload.find("ghp_"), std::string::npos);
  EXPECT_EQ(e.signal->evidence, "token [REDACTED:github_token]");
  EXPECT_EQ(e.signal->detail.details, std::string(4096, 'd') + "…[truncated, 10000 bytes in all]");
  EXPECT_EQ(e.signal->detail.choices[0], "Yes, use [REDACTED:github_token]");
  // Without rules nothing passes on unredacted.
  core::Event f;
  f.raw_payload = key;
  f.signal = core::Signal{};
  f.signal->evidence = std::string(5000, 'e');
  f.signal->detail.details = key;
  f.signal->detail.choices = {key};
  core::RedactEvent(nullptr, &f);
  EXPECT_EQ(f.raw_payload, "");
  EXPECT_EQ(f.signal->evidence, "[evidence withheld: redaction rules unavailable]");
  EXPECT_EQ(f.signal->detail.details, "");
  EXPECT_TRUE(f.signal->detail.choices.empty());
}

TEST(RedactTest, ToleratesInvalidUtf8) {
  std::string s = "\xFF\xFE key=AKIAIOSFODNN7EXAMPLE \xC0";
  EXPECT_EQ(Builtin().Redact(s), "\xFF\xFE key=[REDACTED:aws_access_key_id] \xC0");
}

TEST(RedactTest, RuleOrderIsTheFileOrder) {
  std::vector<std::string> ids = Builtin().RuleIds();
  ASSERT_GE(ids.size(), 10u);
  auto pos = [&](const char* id) { return std::find(ids.begin(), ids.end(), id) - ids.begin(); };
  EXPECT_LT(pos("anthropic_api_key"), pos("openai_api_key"));
  EXPECT_LT(pos("jwt"), pos("bearer_token"));
}

TEST(RedactTest, BrokenFilesAreErrorsNamingFileRuleAndOffset) {
  Result<Redactor> bad_regex = Redactor::Parse(
      "[[rule]]\nid = \"ok\"\npattern = 'a+'\n\n[[rule]]\nid = \"broken\"\npattern = 'ab(c'\n",
      "patterns/redaction.toml");
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_EQ(bad_regex.error().code, Err::kPatternInvalid);
  EXPECT_EQ(bad_regex.error().message,
            "patterns/redaction.toml:7: rule \"broken\": missing closing parenthesis at offset 4");

  struct Bad {
    const char* toml;
    const char* message;
  };
  const Bad bad[] = {
      {"", "f.toml:1: expected [[rule]] tables"},
      {"[[rule]]\npattern = 'x'\n", "f.toml:1: rule 1: missing string \"id\""},
      {"[[rule]]\nid = \"a\"\n", "f.toml:1: rule \"a\": missing string \"pattern\""},
      {"[[rule]]\nid = \"a\"\npattern = 'x'\n[[rule]]\nid = \"a\"\npattern = 'y'\n",
       "f.toml:4: rule \"a\": duplicate id"},
      {"[[rule]]\nid = \"a\"\npattern = 'x'\nflags = 'i'\n", "f.toml:4: rule 1: unknown key \"flags\""},
      {"rules = 1\n", "f.toml:1: unknown key \"rules\""},
  };
  for (const Bad& b : bad) {
    Result<Redactor> r = Redactor::Parse(b.toml, "f.toml");
    ASSERT_FALSE(r.ok()) << b.toml;
    EXPECT_EQ(r.error().message, b.message);
  }
  Result<Redactor> syntax = Redactor::Parse("[[rule]\n", "f.toml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().message.rfind("f.toml:1:8: TOML syntax error: ", 0), 0u) << syntax.error().message;

  Result<Redactor> missing =
      Redactor::LoadBuiltin(MapEnv({{"AGTMUX_PATTERNS_DIR", "/nonexistent-agtmux"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent-agtmux/redaction.toml"), std::string::npos);
}

TEST(RedactTest, SecretGroupKeepsContext) {
  Result<Redactor> r = Redactor::Parse(
      "[[rule]]\nid = \"pin\"\npattern = 'pin=(?<secret>\\d+)'\n", "t.toml");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->Redact("pin=1234 pin=99"), "pin=[REDACTED:pin] pin=[REDACTED:pin]");
  // A pattern that can match empty text must not loop.
  Result<Redactor> empty = Redactor::Parse("[[rule]]\nid = \"e\"\npattern = 'x*'\n", "t.toml");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->Redact("axxb"), "a[REDACTED:e]b");
}

}  // namespace
}  // namespace agt::core
