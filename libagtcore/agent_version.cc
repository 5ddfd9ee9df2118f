// Finds an agent CLI's version from its files (see agent_version.h for the
// places looked at and why). Nothing here starts a process or blocks on
// more than a few small local files.
#include "libagtcore/agent_version.h"

#include <rapidjson/document.h>

#include <cctype>
#include <filesystem>
#include <system_error>

#include "libagtcore/os/file.h"
#include "libagtcore/base/json.h"

namespace agt::core {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxParents = 3;
constexpr size_t kMaxPackageJson = 256 * 1024;

std::string Basename(std::string_view p) {
  const size_t slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

// "version" of a package.json that also has a "name", else "".
std::string PackageVersion(const fs::path& file) {
  auto text = ReadWholeFile(file.string());
  if (!text.ok() || text->size() > kMaxPackageJson) return "";
  rapidjson::Document doc;
  if (!ParseJson(*text, &doc) || !doc.IsObject()) return "";
  auto name = doc.FindMember("name");
  auto version = doc.FindMember("version");
  if (name == doc.MemberEnd() || !name->value.IsString()) return "";
  if (version == doc.MemberEnd() || !version->value.IsString()) return "";
  std::string v(version->value.GetString(), version->value.GetStringLength());
  return LooksLikeVersion(v) ? v : "";
}

bool IsInterpreter(std::string_view name) {
  return name == "node" || name == "nodejs" || name == "bun" || name == "deno";
}

// The NUL-separated fields of /proc/<pid>/cmdline.
std::vector<std::string> SplitCmdline(const std::string& raw) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    out.emplace_back(raw, start, end - start);
    start = end + 1;
  }
  return out;
}

}  // namespace

bool LooksLikeVersion(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > from;
  };
  if (!digits() || i >= s.size() || s[i] != '.') return false;
  ++i;
  if (!digits()) return false;
  while (i < s.size()) {
    const char c = s[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+'))
      return false;
    ++i;
  }
  return true;
}

std::optional<AgentVersion> AgentVersionFromProgram(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) real = fs::path(path);
  for (const fs::path& p : {fs::path(path), real}) {
    if (LooksLikeVersion(p.filename().string())) {
      return AgentVersion{p.filename().string(), "file name " + p.string()};
    }
  }
  fs::path dir = real.parent_path();
  for (int i = 0; i <= kMaxParents && !dir.empty(); ++i) {
    const fs::path pkg = dir / "package.json";
    if (std::string v = PackageVersion(pkg); !v.empty()) return AgentVersion{v, pkg.string()};
    if (dir.filename() == "node_modules" || dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

std::optional<AgentVersion> AgentVersionFromProcess(int64_t pid, const std::string& proc_root) {
  if (pid <= 0) return std::nullopt;
  const std::string base = proc_root + "/" + std::to_string(pid);
  std::error_code ec;
  const fs::path exe = fs::read_symlink(base + "/exe", ec);
  if (ec) return std::nullopt;
  if (!IsInterpreter(Basename(exe.string()))) return AgentVersionFromProgram(exe.string());
  auto raw = ReadWholeFile(base + "/cmdline");
  if (!raw.ok()) return std::nullopt;
  const std::vector<std::string> args = SplitCmdline(*raw);
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].empty() || args[i][0] == '-') continue;  // interpreter options
    fs::path script(args[i]);
    if (script.is_relative()) {
      const fs::path cwd = fs::read_symlink(base + "/cwd", ec);
      if (ec) return std::nullopt;
      script = cwd / script;
    }
    return AgentVersionFromProgram(script.string());
  }
  return std::nullopt;
}

}  // namespace agt::core
