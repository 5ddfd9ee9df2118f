// Usage errors in agtmux's words (see usage.h): unknown commands found by
// walking argv along the command table, CLI11's parse errors given their
// command, a suggestion and the --help to read.
#include "cli/usage.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/suggest.h"

namespace agt::cli {
namespace {

bool IsOption(const std::string& word) { return !word.empty() && word[0] == '-'; }

const CLI::App* FindSubcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : AllSubcommands(app))
    if (sub->check_name(name)) return sub;
  return nullptr;
}

std::string JoinNames(const std::vector<const CLI::App*>& apps) {
  std::string out;
  for (const CLI::App* a : apps) {
    if (!out.empty()) out += ", ";
    out += a->get_name();
  }
  return out;
}

// "--stat" against the options of `app` (long names with "--", short with
// "-"), and, for a bare word, its subcommands.
std::string SuggestFor(const CLI::App& app, const std::string& typed) {
  std::vector<std::string> names;
  if (IsOption(typed)) {
    for (const CLI::Option* opt : app.get_options()) {
      for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
      for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
    }
  } else {
    for (const CLI::App* sub : VisibleSubcommands(app)) names.push_back(sub->get_name());
  }
  std::vector<std::string_view> views(names.begin(), names.end());
  std::string word = typed.substr(0, typed.find('='));  // "--stat=x" names "--stat"
  if (auto near = core::ClosestName(word, views)) return *near;
  // Too short to judge by edits ("ad"): the one name it begins, if only one.
  std::string only;
  for (const std::string& n : names) {
    if (n.compare(0, word.size(), word) != 0 || word.size() < 2) continue;
    if (!only.empty()) return "";
    only = n;
  }
  return only;
}

}  // namespace

std::vector<const CLI::App*> AllSubcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<const CLI::App*> VisibleSubcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); });
}

std::string CommandPath(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* p = app.get_parent(); p != nullptr; p = p->get_parent())
    path = p->get_name() + " " + path;
  return path;
}

const CLI::App& DeepestCommand(const CLI::App& root, const std::vector<std::string>& words) {
  const CLI::App* cur = &root;
  for (size_t i = 1; i < words.size(); ++i) {
    if (IsOption(words[i])) continue;
    const CLI::App* sub = FindSubcommand(*cur, words[i]);
    if (sub == nullptr) break;
    cur = sub;
  }
  return *cur;
}

bool ReportUnknownCommand(const CLI::App& root, const std::vector<std::string>& words) {
  const CLI::App* cur = &root;
  for (size_t i = 1; i < words.size(); ++i) {
    // An option before the subcommand may take the next word as its value:
    // from there on, CLI11 judges.
    if (IsOption(words[i])) return false;
    if (const CLI::App* sub = FindSubcommand(*cur, words[i])) {
      cur = sub;
      continue;
    }
    if (cur->get_require_subcommand_min() == 0 || AllSubcommands(*cur).empty()) return false;
    std::string where = CommandPath(*cur);
    std::fprintf(stderr, "%s: unknown command '%s'", where.c_str(), words[i].c_str());
    std::string near = SuggestFor(*cur, words[i]);
    if (!near.empty()) std::fprintf(stderr, " (did you mean '%s'?)", near.c_str());
    std::fprintf(stderr, "\n%s commands: %s\nRun '%s --help' for more.\n", where.c_str(),
                 JoinNames(VisibleSubcommands(*cur)).c_str(), where.c_str());
    return true;
  }
  return false;
}

void ReportParseError(const CLI::App& root, const CLI::ParseError& error,
                      const std::vector<std::string>& words) {
  const CLI::App& cmd = DeepestCommand(root, words);
  std::string where = CommandPath(cmd);
  std::fprintf(stderr, "%s: %s", where.c_str(), error.what());
  // The first option word the command does not know, if any.
  for (size_t i = 1; i < words.size(); ++i) {
    if (!IsOption(words[i]) || words[i] == "--") continue;
    std::string name = words[i].substr(0, words[i].find('='));
    bool known = false;
    for (const CLI::Option* opt : cmd.get_options())
      if (opt->check_name(name)) known = true;
    if (known) continue;
    std::string near = SuggestFor(cmd, words[i]);
    if (!near.empty()) std::fprintf(stderr, " (did you mean '%s'?)", near.c_str());
    break;
  }
  std::fprintf(stderr, "\nRun '%s --help' for usage.\n", where.c_str());
}

}  // namespace agt::cli
