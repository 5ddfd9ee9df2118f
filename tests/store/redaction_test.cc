// NFR-9: no secret or unredacted payload reaches SQLite. Secrets are
// planted in every text the store persists (payloads, evidence, waiting
// details, pending inbox events, action metadata); afterwards the bytes of
// the database file and its WAL are searched for them.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "state/store/redact_fallback.h"
#include "state/store/store.h"
#include "tests/store/redact_reference.h"
#include "tests/store/store_fixtures.h"
#include "agtmux_source_paths.h"

namespace agt::state {
namespace {

using core::Source;
using storetest::AppliedEffects;
using storetest::kT0;
using storetest::MakeEvent;
using storetest::MakeRuntime;
using storetest::ReadBytes;
using storetest::TempDir;

const std::string kAnthropicKey = "sk-ant-api03-Zq9x7TQk2mPl0RfVb8yNc3Hd5Js6Wa1Ue4Io-AAAAbbbb";
const std::string kPemBody = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7secretbody";
const std::string kPem = "-----BEGIN RSA PRIVATE KEY-----\n" + kPemBody +
                         "\n-----END RSA PRIVATE KEY-----";
const std::string kPassword = "hunter2-Correct-Horse";
const std::string kGithub = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

TEST(FallbackRedactTest, RemovesKnownSecretShapes) {
  EXPECT_EQ(FallbackRedact("key " + kAnthropicKey + " end"), "key [REDACTED:anthropic_key] end");
  EXPECT_EQ(FallbackRedact("x=" + kPem + "\nnext"), "x=[REDACTED:private_key]\nnext");
  EXPECT_EQ(FallbackRedact("password=" + kPassword + " rest"), "password=[REDACTED:secret] rest");
  EXPECT_EQ(FallbackRedact(R"({"db_password": ")" + kPassword + R"("})"),
            R"({"db_password": "[REDACTED:secret]"})");
  EXPECT_EQ(FallbackRedact("Authorization: Bearer abcdefghijklmnop.qrs"),
            "Authorization: Bearer [REDACTED:bearer_token]");
  EXPECT_EQ(FallbackRedact(kGithub), "[REDACTED:github_token]");
  EXPECT_EQ(FallbackRedact("GITHUB_TOKEN=abc123"), "GITHUB_TOKEN=[REDACTED:secret]");
  EXPECT_EQ(FallbackRedact("use " + kAnthropicKey), "use [REDACTED:anthropic_key]");
  EXPECT_EQ(FallbackRedact("AKIAIOSFODNN7EXAMPLE"), "[REDACTED:aws_key]");
  // A PEM block cut short still loses everything after its header.
  EXPECT_EQ(FallbackRedact("-----BEGIN PRIVATE KEY-----\nMIIabc"), "[REDACTED:private_key]");
}

TEST(FallbackRedactTest, LeavesOrdinaryTextAlone) {
  for (std::string s : {"Do you want to run `make test`?", "task-runner sk-short",
                        "-----BEGIN CERTIFICATE-----", "passwordless login", "token count: ",
                        "mask-ant-thing", ""}) {
    EXPECT_EQ(FallbackRedact(s), s);
  }
}

TEST(FallbackRedactTest, IsIdempotent) {
  std::string once = FallbackRedact("password: " + kPassword + " and " + kAnthropicKey + kPem);
  EXPECT_EQ(FallbackRedact(once), once);
}

std::vector<std::string> Leaks(const std::string& bytes) {
  std::vector<std::string> found;
  for (const std::string& secret : {kAnthropicKey, kPemBody, kPassword, kGithub,
                                    std::string("Zq9x7TQk2mPl0RfVb8yNc3")}) {
    if (bytes.find(secret) != std::string::npos) found.push_back(secret);
  }
  return found;
}

// Plants secrets in every persisted text through a store opened with
// `opt`, and checks the database and WAL bytes. `fallback_forms` also
// checks the fallback redactor's exact output.
void PlantSecretsAndCheck(StoreOptions opt, bool fallback_forms) {
  const std::string path = opt.path;
  {
    auto s = Store::Open(opt);
    ASSERT_TRUE(s.ok());
    Store& store = **s;
    Runtime r = MakeRuntime("rt-1", "%1");
    Effects start;
    start.runtimes.push_back(r);
    ASSERT_TRUE(store.Commit(start, kT0).ok());

    core::Event e = MakeEvent("ev-1", "rt-1", Source::kHook, 1, kT0);
    e.raw_payload = R"({"tool_input":{"command":"curl -H 'x-api-key: )" + kAnthropicKey +
                    R"(' https://api"},"password":")" + kPassword + R"("})";
    e.signal->evidence = "export ANTHROPIC_API_KEY=" + kAnthropicKey;
    e.signal->detail.details = "Write file id_rsa:\n" + kPem;
    e.signal->detail.choices = {"Yes", "Yes, and use token=" + kGithub};
    Effects fx = AppliedEffects(r, e, 1);
    InboxEntry pending;
    pending.event = MakeEvent("ev-2", "", Source::kNotify, 1, kT0);
    pending.event.raw_payload = "password=" + kPassword + " " + kGithub;
    pending.event.signal->evidence = kPem;
    fx.inbox.push_back(pending);
    ASSERT_TRUE(store.Commit(fx, kT0).ok());

    ActionRow a;
    a.action_id = "act-1";
    a.action_type = "send";
    a.request_ref = "ref-1";
    a.target_id = "host";
    a.pane_id = "%1";
    a.requested_at = kT0;
    a.metadata_json = R"({"text":"my password: )" + kPassword + R"("})";
    ASSERT_TRUE(store.InsertAction(a).ok());

    // Before the checkpoint the rows live in the WAL.
    EXPECT_EQ(Leaks(ReadBytes(path + "-wal")), std::vector<std::string>{});
    if (fallback_forms) {
    // What was stored is still useful: the redacted form is there.
    auto events = store.EventsForRuntime("rt-1");
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 1u);
    EXPECT_NE((*events)[0].raw_payload.find("[REDACTED:anthropic_key]"), std::string::npos);
    EXPECT_EQ((*events)[0].signal->detail.details, "Write file id_rsa:\n[REDACTED:private_key]");
    EXPECT_EQ((*events)[0].signal->detail.choices[1], "Yes, and use token=[REDACTED:secret]");
    EXPECT_EQ(store.FindPaneState("host", "%1")->signal.evidence,
              "export ANTHROPIC_API_KEY=[REDACTED:secret]");
    }
    ASSERT_TRUE(store.Checkpoint().ok());
  }
  std::string bytes = ReadBytes(path) + ReadBytes(path + "-wal");
  ASSERT_NE(bytes.find("[REDACTED:"), std::string::npos);  // the rows are really there
  EXPECT_EQ(Leaks(bytes), std::vector<std::string>{});
}

TEST(StoreRedactionTest, SecretsNeverReachTheDatabaseFiles) {
  TempDir dir;
  // The default (fallback) redactor; synchronous NORMAL keeps the WAL around.
  PlantSecretsAndCheck(storetest::Opts(dir.File("agtmux.db"), Durability::kNormal), true);
}

TEST(StoreRedactionTest, PatternRedactorKeepsTheDatabaseClean) {
  auto r = core::Redactor::LoadFile(std::string(AGTMUX_SOURCE_PATTERNS_DIR) + "/redaction.toml");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  TempDir dir;
  StoreOptions opt = storetest::Opts(dir.File("agtmux.db"), Durability::kNormal);
  opt.redact = PatternRedactor(std::make_shared<const core::Redactor>(std::move(*r)));
  PlantSecretsAndCheck(opt, false);
}

TEST(StoreRedactionTest, InjectedRedactorIsUsed) {
  TempDir dir;
  std::vector<std::string> seen;
  StoreOptions opt = storetest::Opts(dir.File("agtmux.db"));
  opt.redact = [&](std::string_view t) {
    seen.emplace_back(t);
    return std::string("<gone>");
  };
  auto s = Store::Open(opt);
  ASSERT_TRUE(s.ok());
  Runtime r = MakeRuntime("rt-1", "%1");
  Effects start;
  start.runtimes.push_back(r);
  ASSERT_TRUE((*s)->Commit(start, kT0).ok());
  core::Event e = MakeEvent("ev-1", "rt-1", Source::kHook, 1, kT0);
  e.raw_payload = "custom-secret-format 12345";
  ASSERT_TRUE((*s)->Commit(AppliedEffects(r, e, 1), kT0).ok());
  auto events = (*s)->EventsForRuntime("rt-1");
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].raw_payload, "<gone>");
  EXPECT_EQ((*events)[0].signal->evidence, "<gone>");
  EXPECT_NE(std::find(seen.begin(), seen.end(), "custom-secret-format 12345"), seen.end());
}

// The scanner's fast path (ASCII classification, first-byte filters) must
// redact exactly as the original did: random texts built from the pieces
// it reacts to (prefixes, keys in every case, separators, PEM markers,
// UTF-8 and high bytes), compared byte for byte with the reference copy.
TEST(FallbackRedactTest, SameOutputAsTheReferenceScanner) {
  const std::vector<std::string> pieces = {
      "sk-ant-", "sk-", "github_pat_", "ghp_", "gho_", "xoxb-", "xoxp-", "AKIA", "AIza", "glpat-",
      "Bearer ", "bearer ", "BEARER ", "password", "PassWord", "passwd", "secret", "SECRET", "token",
      "Token", "api_key", "apikey", "APIKEY", "pwd", "PWD", "=", ":", " ", "\"", "'", "\\", ",", "}",
      "&", ";", "\n", "_", "-", ".", "/", "+", "-----BEGIN ", "RSA PRIVATE KEY", "-----", "-----END ",
      "abcdefghijklmnop", "ABCDEFGHIJKLMNOPQRST0123456789", "0123456789", "db_", "x", "\xc3\xa9",
      "\xe2\x80\xa6", "\xff", "{\"tool_input\":{\"command\":\"npm test\"}}"};
  std::mt19937 rng(20261122);
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    const int len = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < len; ++k) text += pieces[rng() % pieces.size()];
    ASSERT_EQ(FallbackRedact(text), storetest::ReferenceFallbackRedact(text)) << text;
  }
  // And the realistic payloads the benchmark stores.
  for (const std::string& t : {kAnthropicKey, kPem, kGithub, "password=" + kPassword,
                               std::string("Authorization: Bearer abcdefgh.ijk/lmn=")}) {
    EXPECT_EQ(FallbackRedact(t), storetest::ReferenceFallbackRedact(t)) << t;
  }
}

}  // namespace
}  // namespace agt::state
