// The merge rules of `agtmux setup` on realistic settings files: user
// configuration survives byte for byte, setup is idempotent, remove takes
// out exactly what setup added, malformed files are refused with a position.
#include "cli/setup/setup_config.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <random>

#include "libagtcore/base/toml_parse.h"

namespace agt::cli {
namespace {

// A settings.json as Claude Code writes it (JSON.stringify, 2 spaces), with
// the user's own hooks and other keys.
const char* kClaudeSettings = R"JSON({
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/audit-bash.sh"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send 'Claude finished'"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "echo 日本語"
  }
})JSON";

const std::string kCmd = "/usr/local/bin/agtmux hook claude";

rapidjson::Document Parse(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  EXPECT_FALSE(d.HasParseError()) << s;
  return d;
}

int CountCommand(const rapidjson::Value& groups, const std::string& cmd) {
  int n = 0;
  for (const auto& g : groups.GetArray())
    for (const auto& h : g["hooks"].GetArray())
      if (h["command"].GetString() == cmd) ++n;
  return n;
}

TEST(SetupClaudeTest, MergeKeepsUserConfigAndAddsEveryEvent) {
  auto merged = MergeJsonHooks(JsonAgent::kClaude, kClaudeSettings, "settings.json", kCmd);
  ASSERT_TRUE(merged.ok()) << merged.error().ToString();
  auto doc = Parse(*merged);
  EXPECT_STREQ(doc["model"].GetString(), "opus");
  EXPECT_STREQ(doc["statusLine"]["command"].GetString(), "echo 日本語");
  EXPECT_STREQ(doc["permissions"]["allow"][0].GetString(), "Bash(npm test:*)");
  for (const std::string& ev : ClaudeHookEvents()) {
    ASSERT_TRUE(doc["hooks"].HasMember(ev.c_str())) << ev;
    EXPECT_EQ(CountCommand(doc["hooks"][ev.c_str()], kCmd), 1) << ev;
  }
  // The user's hooks are still there, first.
  EXPECT_EQ(CountCommand(doc["hooks"]["PreToolUse"], "~/bin/audit-bash.sh"), 1);
  EXPECT_STREQ(doc["hooks"]["PreToolUse"][0]["matcher"].GetString(), "Bash");
  EXPECT_STREQ(doc["hooks"]["PreToolUse"][1]["matcher"].GetString(), "*");
  EXPECT_EQ(CountCommand(doc["hooks"]["Stop"], "notify-send 'Claude finished'"), 1);
  EXPECT_FALSE(doc["hooks"]["Stop"][1].HasMember("matcher"));
}

TEST(SetupClaudeTest, IdempotentAndRemoveRestoresBytes) {
  auto once = MergeJsonHooks(JsonAgent::kClaude, kClaudeSettings, "s.json", kCmd);
  ASSERT_TRUE(once.ok());
  auto twice = MergeJsonHooks(JsonAgent::kClaude, *once, "s.json", kCmd);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice, *once);
  auto removed = RemoveJsonHooks(JsonAgent::kClaude, *twice, "s.json");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, kClaudeSettings);
  // Removing again changes nothing.
  auto again = RemoveJsonHooks(JsonAgent::kClaude, *removed, "s.json");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, kClaudeSettings);
}

TEST(SetupClaudeTest, MovedBinaryIsUpdatedNotDuplicated) {
  auto once = MergeJsonHooks(JsonAgent::kClaude, "{}\n", "s.json", "/old/agtmux hook claude");
  ASSERT_TRUE(once.ok());
  auto moved = MergeJsonHooks(JsonAgent::kClaude, *once, "s.json", kCmd);
  ASSERT_TRUE(moved.ok());
  auto doc = Parse(*moved);
  EXPECT_EQ(CountCommand(doc["hooks"]["Stop"], kCmd), 1);
  EXPECT_EQ(CountCommand(doc["hooks"]["Stop"], "/old/agtmux hook claude"), 0);
}

TEST(SetupClaudeTest, EmptyFileAndNoHooksRoundTrip) {
  const std::string plain = "{\n  \"theme\": \"dark\"\n}\n";
  auto merged = MergeJsonHooks(JsonAgent::kClaude, plain, "s.json", kCmd);
  ASSERT_TRUE(merged.ok());
  auto removed = RemoveJsonHooks(JsonAgent::kClaude, *merged, "s.json");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, plain);
  auto from_empty = MergeJsonHooks(JsonAgent::kClaude, "", "s.json", kCmd);
  ASSERT_TRUE(from_empty.ok());
  EXPECT_TRUE(Parse(*from_empty)["hooks"].HasMember("Stop"));
}

// A known limit, documented in docs/integrations.md: an event list that is
// empty once agtmux's entries are gone is removed, even when the user had
// created it empty before setup (nothing tells the two apart afterwards).
TEST(SetupClaudeTest, AnEventListLeftEmptyGoes) {
  const std::string with_empty = "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}";
  auto merged = MergeJsonHooks(JsonAgent::kClaude, with_empty, "s.json", kCmd);
  ASSERT_TRUE(merged.ok());
  auto removed = RemoveJsonHooks(JsonAgent::kClaude, *merged, "s.json");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, "{}");
}

TEST(SetupClaudeTest, MalformedJsonIsRefusedWithPosition) {
  auto bad = MergeJsonHooks(JsonAgent::kClaude, "{\n  \"model\": \"opus\",\n  oops\n}", "/h/.claude/settings.json", kCmd);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, core::Err::kConfigInvalid);
  EXPECT_NE(bad.error().message.find("/h/.claude/settings.json:3:"), std::string::npos)
      << bad.error().message;
  auto twice = MergeJsonHooks(JsonAgent::kClaude, "{\n  \"hooks\": {},\n  \"hooks\": {}\n}",
                              "s.json", kCmd);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("s.json:3:3: \"hooks\" appears twice"), std::string::npos)
      << twice.error().message;
  auto not_object = MergeJsonHooks(JsonAgent::kClaude, "[1]", "s.json", kCmd);
  ASSERT_FALSE(not_object.ok());
  auto bad_hooks = MergeJsonHooks(JsonAgent::kClaude, R"({"hooks": []})", "s.json", kCmd);
  ASSERT_FALSE(bad_hooks.ok());
  EXPECT_NE(bad_hooks.error().message.find("\"hooks\""), std::string::npos);
  auto trailing = MergeJsonHooks(JsonAgent::kClaude, "{} x", "s.json", kCmd);
  ASSERT_FALSE(trailing.ok());
}

// Setup's edits are insertions: deleting them gives the original back, and
// nothing outside them moved.
void ExpectOnlyInsertions(const std::string& before, const std::string& after) {
  size_t i = 0;  // before[0, i) is matched in order within after
  for (size_t j = 0; j < after.size() && i < before.size(); ++j)
    if (after[j] == before[i]) ++i;
  EXPECT_EQ(i, before.size()) << "setup changed bytes of the original:\n" << after;
}

TEST(SetupJsonTest, CommentsAndStylesAreKept) {
  const std::string gemini =
      "{\n"
      "\t// the theme I like\n"
      "\t\"ui\" : {\"theme\": \"GitHub\", \"n\": 1.50e0},\n"
      "\t\"s\": \"\\u00e9\\/\" /* trailing */\n"
      "}";
  const std::string cmd = "/usr/bin/agtmux hook gemini";
  auto merged = MergeJsonHooks(JsonAgent::kGemini, gemini, "g.json", cmd);
  ASSERT_TRUE(merged.ok()) << merged.error().ToString();
  ExpectOnlyInsertions(gemini, *merged);
  // Inserted in the file's own indentation (tabs) and colon style.
  EXPECT_NE(merged->find("\n\t\"hooks\" : {\n\t\t\"SessionStart\": [\n\t\t\t{\n"), std::string::npos)
      << *merged;
  rapidjson::Document d;
  d.Parse<rapidjson::kParseCommentsFlag>(merged->c_str());
  ASSERT_FALSE(d.HasParseError()) << *merged;
  EXPECT_EQ(CountCommand(d["hooks"]["AfterAgent"], cmd), 1);
  auto removed = RemoveJsonHooks(JsonAgent::kGemini, *merged, "g.json");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, gemini);
}

TEST(SetupJsonTest, OneLineFilesGetOneLineInsertions) {
  const std::string compact = "{\"model\":\"opus\",\"hooks\":{\"Stop\":[]}}";
  auto merged = MergeJsonHooks(JsonAgent::kClaude, compact, "s.json", kCmd);
  ASSERT_TRUE(merged.ok()) << merged.error().ToString();
  EXPECT_EQ(merged->find('\n'), std::string::npos) << *merged;
  ExpectOnlyInsertions(compact, *merged);
  EXPECT_EQ(merged->rfind("{\"model\":\"opus\",\"hooks\":{\"Stop\":[{\"hooks\":[{", 0), 0u) << *merged;
  Parse(*merged);
}

TEST(SetupJsonTest, ExistingEventsGetAnEntryAppended) {
  auto merged = MergeJsonHooks(JsonAgent::kClaude, kClaudeSettings, "s.json", kCmd);
  ASSERT_TRUE(merged.ok());
  ExpectOnlyInsertions(kClaudeSettings, *merged);
  // The user's own Stop group is followed by agtmux's, in the same layout.
  EXPECT_NE(merged->find("\"notify-send 'Claude finished'\"\n          }\n        ]\n      },\n"
                         "      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n"
                         "            \"command\": \"/usr/local/bin/agtmux hook claude\"\n"),
            std::string::npos)
      << *merged;
  // And the statusLine after hooks is where it was.
  EXPECT_NE(merged->find("  },\n  \"statusLine\": {\n"), std::string::npos);
}

TEST(SetupJsonTest, RemoveKeepsWhatTheUserAddedNextToAgtmux) {
  auto merged = MergeJsonHooks(JsonAgent::kClaude, "{\n  \"a\": 1\n}\n", "s.json", kCmd);
  ASSERT_TRUE(merged.ok());
  // The user adds a hook of their own into agtmux's Stop group and a key.
  std::string edited = *merged;
  const std::string ours = "\"command\": \"/usr/local/bin/agtmux hook claude\"\n          }";
  size_t stop = edited.find("\"Stop\"");
  size_t at = edited.find(ours, stop);
  ASSERT_NE(at, std::string::npos);
  edited.insert(at + ours.size(), ",\n          {\"type\": \"command\", \"command\": \"mine.sh\"}");
  edited.insert(edited.find("\"a\": 1") + 6, ",\n  \"b\": 2");
  auto removed = RemoveJsonHooks(JsonAgent::kClaude, edited, "s.json");
  ASSERT_TRUE(removed.ok());
  auto d = Parse(*removed);
  EXPECT_EQ(d["b"].GetInt(), 2);
  ASSERT_TRUE(d.HasMember("hooks"));
  EXPECT_EQ(d["hooks"].MemberCount(), 1u);
  EXPECT_EQ(CountCommand(d["hooks"]["Stop"], "mine.sh"), 1);
  EXPECT_EQ(removed->find("agtmux"), std::string::npos) << *removed;
}

// Generated settings files in many styles: compact or indented by 2, 4 or a
// tab, comments between tokens, odd number and escape spellings, a user's
// own hooks. For each: setup only inserts, is idempotent, installs one
// agtmux hook per event, and remove gives back the file byte for byte.
class SettingsGen {
 public:
  explicit SettingsGen(unsigned seed) : rng_(seed) {}

  std::string Document() {
    style_ = Pick(4);  // 0 compact, 1 two spaces, 2 four spaces, 3 tab
    std::vector<std::string> members;
    const int n = Pick(4);
    const int hooks_at = Pick(3) == 0 ? -1 : Pick(n + 1);
    for (int i = 0; i <= n; ++i) {
      if (i == hooks_at) members.push_back("\"hooks\"" + Colon() + Hooks(1));
      if (i < n) members.push_back(Quote("k" + std::to_string(i)) + Colon() + Value(1, 2));
    }
    return Object(members, 0) + (Pick(2) ? "\n" : "");
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string Quote(const std::string& s) { return "\"" + s + "\""; }
  std::string Colon() { return style_ == 0 ? ":" : Pick(4) == 0 ? " : " : ": "; }
  std::string Indent(int depth) {
    if (style_ == 0) return "";
    const std::string unit = style_ == 1 ? "  " : style_ == 2 ? "    " : "\t";
    std::string out;
    for (int i = 0; i < depth; ++i) out += unit;
    return out;
  }
  std::string Comment() {
    switch (Pick(6)) {
      case 0: return " /* note */";
      case 1: return style_ == 0 ? "" : " // note";
      default: return "";
    }
  }
  std::string Container(char open, char close, const std::vector<std::string>& items, int depth) {
    if (items.empty()) return std::string(1, open) + close;
    std::string out(1, open);
    for (size_t i = 0; i < items.size(); ++i) {
      if (style_ != 0) out += "\n" + Indent(depth + 1);
      out += items[i];
      if (i + 1 < items.size()) out += ",";
      out += Comment();
    }
    if (style_ != 0) out += "\n" + Indent(depth);
    return out + close;
  }
  std::string Object(const std::vector<std::string>& members, int depth) {
    return Container('{', '}', members, depth);
  }
  std::string Value(int depth, int budget) {
    switch (budget <= 0 ? Pick(4) : Pick(6)) {
      case 0: return std::vector<std::string>{"1", "1.50", "-0e1", "100000000000000000000"}[Pick(4)];
      case 1: return std::vector<std::string>{"\"caf\\u00e9\"", "\"\\/x\"", "\"日本\"", "\"\""}[Pick(4)];
      case 2: return std::vector<std::string>{"true", "false", "null"}[Pick(3)];
      case 3: return "[]";
      case 4: {
        std::vector<std::string> items;
        for (int i = Pick(3); i > 0; --i) items.push_back(Value(depth + 1, budget - 1));
        return Container('[', ']', items, depth);
      }
      default: {
        std::vector<std::string> members;
        for (int i = Pick(3); i > 0; --i)
          members.push_back(Quote("m" + std::to_string(i)) + Colon() + Value(depth + 1, budget - 1));
        return Object(members, depth);
      }
    }
  }
  std::string Hooks(int depth) {
    std::vector<std::string> events;
    const std::vector<std::string> names = {"Stop", "PreToolUse", "MyOwnEvent"};
    // Never an empty hooks object or event list: remove cannot tell those
    // from the ones setup emptied (the known limit, AnEventListLeftEmptyGoes).
    const int always = Pick(3);
    for (int k = 0; k < 3; ++k) {
      const std::string& name = names[k];
      if (k != always && Pick(2)) continue;
      std::vector<std::string> groups;
      for (int g = 1 + Pick(2); g > 0; --g)
        groups.push_back("{\"matcher\"" + Colon() + "\"Bash\", \"hooks\"" + Colon() +
                         "[{\"type\": \"command\", \"command\": \"mine.sh\"}]}");
      events.push_back(Quote(name) + Colon() + Container('[', ']', groups, depth + 1));
    }
    return Object(events, depth);
  }

  std::mt19937 rng_;
  int style_ = 0;
};

TEST(SetupJsonTest, GeneratedFilesRoundTrip) {
  SettingsGen gen(16);
  for (int i = 0; i < 400; ++i) {
    const std::string doc = gen.Document();
    SCOPED_TRACE(doc);
    auto merged = MergeJsonHooks(JsonAgent::kClaude, doc, "s.json", kCmd);
    ASSERT_TRUE(merged.ok()) << merged.error().ToString();
    ExpectOnlyInsertions(doc, *merged);
    rapidjson::Document d;
    d.Parse<rapidjson::kParseCommentsFlag>(merged->c_str());
    ASSERT_FALSE(d.HasParseError()) << *merged;
    for (const std::string& ev : ClaudeHookEvents())
      ASSERT_EQ(CountCommand(d["hooks"][ev.c_str()], kCmd), 1) << ev << "\n" << *merged;
    auto again = MergeJsonHooks(JsonAgent::kClaude, *merged, "s.json", kCmd);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *merged);
    auto removed = RemoveJsonHooks(JsonAgent::kClaude, *merged, "s.json");
    ASSERT_TRUE(removed.ok());
    ASSERT_EQ(*removed, doc) << *merged;
  }
}

TEST(SetupGeminiTest, MergeAndRemove) {
  const std::string settings =
      "{\n  \"security\": {\n    \"auth\": {\n      \"selectedType\": \"gemini-api-key\"\n    }\n  }\n}\n";
  const std::string cmd = "/usr/bin/agtmux hook gemini";
  auto merged = MergeJsonHooks(JsonAgent::kGemini, settings, "settings.json", cmd);
  ASSERT_TRUE(merged.ok());
  auto doc = Parse(*merged);
  for (const std::string& ev : GeminiHookEvents())
    EXPECT_EQ(CountCommand(doc["hooks"][ev.c_str()], cmd), 1) << ev;
  EXPECT_STREQ(doc["hooks"]["BeforeTool"][0]["matcher"].GetString(), "*");
  EXPECT_STREQ(doc["hooks"]["BeforeTool"][0]["hooks"][0]["name"].GetString(), "agtmux");
  // A Claude command is not Gemini's.
  auto removed_claude = RemoveJsonHooks(JsonAgent::kClaude, *merged, "settings.json");
  ASSERT_TRUE(removed_claude.ok());
  EXPECT_EQ(*removed_claude, *merged);
  auto removed = RemoveJsonHooks(JsonAgent::kGemini, *merged, "settings.json");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, settings);
}

// --- Codex ---------------------------------------------------------------

const char* kCodexConfig =
    "# my codex config\n"
    "model = \"gpt-5\"  # the model\n"
    "notify = [\"notify-send-wrapper\", \"--urgent\"]\n"
    "\n"
    "[model_providers.local]\n"
    "base_url = \"http://127.0.0.1:9/v1\"\n"
    "wire_api = \"responses\"\n";

const std::vector<std::string> kArgv = {"/usr/bin/agtmux", "hook", "codex-notify"};

toml::table ParseToml(const std::string& s) {
  auto t = core::ParseToml(s, "merged", core::Err::kConfigInvalid);
  if (!t.ok()) {
    ADD_FAILURE() << "not valid TOML: " << t.error().message << "\n" << s;
    return {};
  }
  return std::move(*t);
}

std::vector<std::string> Strings(const toml::node* n) {
  std::vector<std::string> out;
  if (!n || !n->as_array()) return out;
  for (const auto& v : *n->as_array()) out.push_back(v.value_or<std::string>(""));
  return out;
}

TEST(SetupCodexTest, ChainsTheUsersNotifyAndAddsTuiSettings) {
  auto merged = MergeCodexConfig(kCodexConfig, "config.toml", kArgv, nullptr);
  ASSERT_TRUE(merged.ok()) << merged.error().ToString();
  auto t = ParseToml(merged->text);
  EXPECT_EQ(Strings(t.get("notify")),
            (std::vector<std::string>{"/usr/bin/agtmux", "hook", "codex-notify", "--chain",
                                      "notify-send-wrapper", "--urgent"}));
  EXPECT_EQ(Strings(t["tui"]["notifications"].node()),
            (std::vector<std::string>{"agent-turn-complete", "approval-requested"}));
  EXPECT_EQ(t["tui"]["notification_method"].value_or<std::string>(""), "osc9");
  EXPECT_EQ(t["tui"]["notification_condition"].value_or<std::string>(""), "always");
  EXPECT_EQ(t["model_providers"]["local"]["wire_api"].value_or<std::string>(""), "responses");
  // Comments and the rest stay byte for byte.
  EXPECT_EQ(merged->text.rfind("# my codex config\nmodel = \"gpt-5\"  # the model\n", 0), 0u);
  EXPECT_NE(merged->text.find("[model_providers.local]\nbase_url = \"http://127.0.0.1:9/v1\"\n"),
            std::string::npos);
}

TEST(SetupCodexTest, IdempotentAndRemoveRestoresBytes) {
  auto once = MergeCodexConfig(kCodexConfig, "config.toml", kArgv, nullptr);
  ASSERT_TRUE(once.ok());
  auto twice = MergeCodexConfig(once->text, "config.toml", kArgv, &once->record);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->text, once->text);
  // The record survives its JSON form.
  auto record = CodexSetupRecord::FromJson(twice->record.ToJson());
  ASSERT_TRUE(record.ok());
  auto removed = RemoveCodexConfig(twice->text, "config.toml", *record);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, kCodexConfig);
}

TEST(SetupCodexTest, NoNotifyGoesBeforeTheFirstTable) {
  const std::string cfg =
      "model = \"o3\"\n\n[tui]\nnotification_method = \"bel\"\n\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n";
  auto merged = MergeCodexConfig(cfg, "c.toml", kArgv, nullptr);
  ASSERT_TRUE(merged.ok()) << merged.error().ToString();
  auto t = ParseToml(merged->text);
  EXPECT_EQ(Strings(t.get("notify")), kArgv);
  EXPECT_EQ(t["tui"]["notification_method"].value_or<std::string>(""), "osc9");
  EXPECT_EQ(t["projects"]["/w"]["trust_level"].value_or<std::string>(""), "trusted");
  auto removed = RemoveCodexConfig(merged->text, "c.toml", merged->record);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, cfg);  // "bel" is back, inserted lines gone
}

TEST(SetupCodexTest, EmptyFileRoundTrip) {
  auto merged = MergeCodexConfig("", "c.toml", kArgv, nullptr);
  ASSERT_TRUE(merged.ok());
  auto t = ParseToml(merged->text);
  EXPECT_EQ(Strings(t.get("notify")), kArgv);
  auto removed = RemoveCodexConfig(merged->text, "c.toml", merged->record);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, "");
}

TEST(SetupCodexTest, UserChangeAfterSetupIsLeftAlone) {
  auto merged = MergeCodexConfig(kCodexConfig, "c.toml", kArgv, nullptr);
  ASSERT_TRUE(merged.ok());
  std::string edited = merged->text;
  size_t at = edited.find("\"osc9\"");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, 6, "\"bel\"");
  auto removed = RemoveCodexConfig(edited, "c.toml", merged->record);
  ASSERT_TRUE(removed.ok());
  EXPECT_NE(removed->find("notification_method = \"bel\""), std::string::npos);
  EXPECT_EQ(Strings(ParseToml(*removed).get("notify")),
            (std::vector<std::string>{"notify-send-wrapper", "--urgent"}));
}

TEST(SetupCodexTest, MalformedTomlIsRefusedWithPosition) {
  auto bad = MergeCodexConfig("model = \"x\"\nnotify = [\"a\",\n[tui]\n", "/h/.codex/config.toml",
                              kArgv, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, core::Err::kConfigInvalid);
  EXPECT_NE(bad.error().message.find("/h/.codex/config.toml:"), std::string::npos)
      << bad.error().message;
  auto not_array = MergeCodexConfig("notify = \"x\"\n", "c.toml", kArgv, nullptr);
  ASSERT_FALSE(not_array.ok());
  EXPECT_NE(not_array.error().message.find("notify"), std::string::npos);
  auto inline_tui = MergeCodexConfig("tui = { notifications = false }\n", "c.toml", kArgv, nullptr);
  ASSERT_FALSE(inline_tui.ok());
  EXPECT_NE(inline_tui.error().message.find("inline"), std::string::npos);
}

TEST(SetupRecordTest, RoundTripsAndReadsTheOldCodexRecord) {
  auto merged = MergeCodexConfig(kCodexConfig, "c.toml", kArgv, nullptr);
  ASSERT_TRUE(merged.ok());
  SetupRecord r;
  r.path = "/h/.codex/config.toml";
  r.restorable = true;
  r.original_existed = true;
  r.original_sha256 = "aa";
  r.backup = "/h/.codex/config.toml.agtmux-backup-20261124T150000Z-2";
  r.written_sha256 = "bb";
  r.created_dirs = {"/h/.codex"};
  r.codex = merged->record;
  auto back = SetupRecord::FromJson(r.ToJson());
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->ToJson(), r.ToJson());
  EXPECT_EQ(back->backup, r.backup);
  EXPECT_EQ(back->created_dirs, r.created_dirs);
  // The record still undoes the Codex keys.
  auto removed = RemoveCodexConfig(merged->text, "c.toml", back->codex);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, kCodexConfig);
  // A Codex-only record of an earlier agtmux: its keys, and no restore.
  auto old = SetupRecord::FromJson(merged->record.ToJson());
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->restorable);
  EXPECT_EQ(old->codex.ToJson(), merged->record.ToJson());
  EXPECT_FALSE(SetupRecord::FromJson("{").ok());
}

}  // namespace
}  // namespace agt::cli
