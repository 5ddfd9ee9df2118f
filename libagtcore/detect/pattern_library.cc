// Loading the pattern sets from disk: the only file I/O of the detection
// engine. Parsing itself (pattern_set.cc) works on strings.
#include "libagtcore/detect/pattern_library.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "agtmux_source_paths.h"

namespace agt::detect {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> TomlFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".toml" && !IsSharedPatternFile(e.path().stem().string()))
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool IsSharedPatternFile(std::string_view stem) {
  for (std::string_view s : {"identify", "analyze", "redaction", "exfil", "send_policy"})
    if (stem == s) return true;
  return false;
}

core::Result<std::string> ReadTextFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return core::MakeError(core::Err::kIo,
                           path + ": cannot read: " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string DefaultPatternsDir() {
  if (const char* d = std::getenv("AGTMUX_PATTERNS_DIR"); d != nullptr && *d != '\0')
    return d;
  std::error_code ec;
  if (fs::is_directory(AGTMUX_SOURCE_PATTERNS_DIR, ec)) return AGTMUX_SOURCE_PATTERNS_DIR;
  return "/usr/local/share/agtmux/patterns";
}

std::string DefaultUserPatternsDir() {
  if (const char* d = std::getenv("AGTMUX_CONFIG_DIR"); d != nullptr && *d != '\0')
    return std::string(d) + "/patterns";
  if (const char* d = std::getenv("XDG_CONFIG_HOME"); d != nullptr && *d != '\0')
    return std::string(d) + "/agtmux/patterns";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.config/agtmux/patterns";
  return {};
}

std::shared_ptr<const PatternLibrary> PatternLibrary::Load(
    const LibraryOptions& options) {
  auto lib = std::make_shared<PatternLibrary>();
  lib->builtin_dir_ =
      options.builtin_dir.empty() ? DefaultPatternsDir() : options.builtin_dir;
  lib->user_dir_ = options.user_dir;
  // With `only`, a file of another set is skipped before its rules are
  // compiled; a file whose name cannot be read is parsed, so that its
  // problem is reported as without the filter.
  auto wanted = [&options](const std::string& text, const std::string& path) {
    if (options.only.empty()) return true;
    auto name = PatternSetName(text, path);
    return !name.ok() ||
           std::find(options.only.begin(), options.only.end(), *name) != options.only.end();
  };
  for (const auto& path : TomlFiles(lib->builtin_dir_)) {
    auto text = ReadTextFile(path);
    if (!text.ok()) {
      lib->problems_.push_back(text.error().message);
      continue;
    }
    if (!wanted(*text, path)) continue;
    auto set = ParsePatternSet(*text, path, options.regex);
    if (!set.ok()) {
      lib->problems_.push_back(set.error().message);
      continue;
    }
    lib->Put(std::move(set).value());
  }
  for (const auto& path : TomlFiles(lib->user_dir_)) {
    auto text = ReadTextFile(path);
    if (!text.ok()) {
      lib->problems_.push_back(text.error().message);
      continue;
    }
    if (!wanted(*text, path)) continue;
    auto set = ParsePatternSet(*text, path, options.regex);
    if (!set.ok()) {
      lib->problems_.push_back(set.error().message +
                               " (user file rejected; the built-in set stays in force)");
      continue;
    }
    const PatternSet* builtin = lib->Find(set->name);
    if (builtin != nullptr) {
      lib->Put(MergePatternSets(*builtin, *set));
    } else {
      lib->Put(std::move(set).value());
    }
  }
  return lib;
}

const PatternSet* PatternLibrary::Find(std::string_view name) const {
  auto it = sets_.find(name);
  return it == sets_.end() ? nullptr : &it->second;
}

const PatternSet* PatternLibrary::ForAgent(std::string_view agent_type) const {
  const PatternSet* set = Find(agent_type);
  return set != nullptr ? set : Find("generic");
}

std::vector<std::string> PatternLibrary::Names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : sets_) out.push_back(k);
  return out;
}

void PatternLibrary::Put(PatternSet set) {
  std::string name = set.name;
  sets_.insert_or_assign(std::move(name), std::move(set));
}

}  // namespace agt::detect
