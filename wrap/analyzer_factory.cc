// Chooses the analyzer behind the wrapper's screen pipeline: the detection
// engine's pattern analyzer (libagtcore/detect), which adds activity, echo
// and settle timing to the agent's pattern set and falls back to the generic
// set. wrap/activity_analyzer.h remains for tests and as a reference.
//
// A wrapper runs one agent for its whole life, so it compiles only that
// agent's set (or the generic one), not the whole library the daemon needs:
// every set compiled is heap and JIT code the wrapper would carry for
// nothing. The files are chosen as PatternLibrary::Load would merge them
// (built-in files in name order, then the user's, by each file's `agent`
// name), so the set in force is the same one.
#include "wrap/analyzer_factory.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/detect/pattern_library.h"

namespace agt::wrap {
namespace {

namespace fs = std::filesystem;

struct SetFile {
  std::string path;
  std::string text;
  std::string name;  // the set it defines: its `agent` key, else the file stem
};

/// The agent pattern files of `dir` in name order, each with the set name
/// it defines. A file that is not valid TOML defines no set (Load rejects it).
std::vector<SetFile> SetFiles(const std::string& dir) {
  std::vector<SetFile> out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".toml" &&
        !detect::IsSharedPatternFile(e.path().stem().string()))
      paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    auto text = detect::ReadTextFile(p.string());
    if (!text.ok()) continue;
    SetFile f{p.string(), std::move(*text), {}};
    try {
      const toml::table doc = toml::parse(f.text, f.path);
      if (auto agent = doc["agent"].value<std::string>()) f.name = *agent;
    } catch (const toml::parse_error&) {
      continue;
    }
    if (f.name.empty()) {
      const std::string stem = p.filename().string();
      f.name = stem.substr(0, stem.find('.'));
    }
    out.push_back(std::move(f));
  }
  return out;
}

/// The library PatternLibrary::Load would build, holding only the set `name`.
std::shared_ptr<detect::PatternLibrary> LoadOne(const std::vector<SetFile>& builtin,
                                                const std::vector<SetFile>& user,
                                                std::string_view name) {
  auto lib = std::make_shared<detect::PatternLibrary>();
  for (const SetFile& f : builtin) {
    if (f.name != name) continue;
    if (auto set = detect::ParsePatternSet(f.text, f.path); set.ok())
      lib->Put(std::move(set).value());
  }
  for (const SetFile& f : user) {
    if (f.name != name) continue;
    auto set = detect::ParsePatternSet(f.text, f.path);
    if (!set.ok()) continue;  // the built-in set stays in force
    if (const detect::PatternSet* b = lib->Find(set->name)) {
      lib->Put(detect::MergePatternSets(*b, *set));
    } else {
      lib->Put(std::move(set).value());
    }
  }
  return lib;
}

}  // namespace

std::unique_ptr<detect::Analyzer> MakeAnalyzer(std::string_view agent_type) {
  const std::vector<SetFile> builtin = SetFiles(detect::DefaultPatternsDir());
  const std::vector<SetFile> user = SetFiles(detect::DefaultUserPatternsDir());
  std::shared_ptr<detect::PatternLibrary> lib = LoadOne(builtin, user, agent_type);
  if (lib->Find(agent_type) == nullptr) lib = LoadOne(builtin, user, "generic");
  return detect::CreateAnalyzer(std::move(lib), agent_type);
}

}  // namespace agt::wrap
