// Test helper: the real hook payloads recorded by tests/hooks_e2e/hooks_e2e.py
// --save-payloads (tests/fixtures/<agent>/<version>/hooks/), and payloads
// derived from them for cases the recordings do not hold, changed only in
// the fields the case is about so that every other field stays real.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace agt::cli::testing {

inline std::string FixtureDir() {
  const char* d = std::getenv("AGTMUX_FIXTURES");
  return d ? d : "tests/fixtures";
}

inline std::string ReadFixture(const std::string& rel) {
  std::ifstream in(FixtureDir() + "/" + rel);
  EXPECT_TRUE(in.good()) << "missing fixture " << FixtureDir() << "/" << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// `payload` with the top-level members of the JSON object `changes`
/// replaced (or added).
inline std::string WithFields(const std::string& payload, const std::string& changes) {
  rapidjson::Document doc, ch;
  doc.Parse(payload.c_str());
  ch.Parse(changes.c_str());
  EXPECT_FALSE(doc.HasParseError() || ch.HasParseError() || !doc.IsObject() || !ch.IsObject());
  for (auto& m : ch.GetObject()) {
    rapidjson::Value key(m.name, doc.GetAllocator());
    rapidjson::Value val(m.value, doc.GetAllocator());
    doc.RemoveMember(key);
    doc.AddMember(key, val, doc.GetAllocator());
  }
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  doc.Accept(w);
  return out.GetString();
}

inline const char* kClaudeHooks = "claude/2.1.197/hooks/shell_approved-";

/// Claude's PermissionRequest for an AskUserQuestion (what 2.1.330 sends for
/// a question): the recorded Bash PermissionRequest with the tool and input
/// of the lab's question_single scenario.
inline std::string ClaudeQuestionPermissionRequest() {
  return WithFields(ReadFixture(std::string(kClaudeHooks) + "PermissionRequest.json"), R"({
    "tool_name": "AskUserQuestion",
    "tool_input": {"questions": [{"question": "Which test framework should I use?",
      "header": "Tests", "multiSelect": false,
      "options": [{"label": "pytest", "description": "The de-facto standard, plain asserts"},
                  {"label": "unittest", "description": "In the standard library"},
                  {"label": "doctest", "description": "Examples in docstrings"}]}]},
    "permission_suggestions": []})");
}

}  // namespace agt::cli::testing
