// Choosing the options `respond` was asked for, and the keys that reach
// them (see respond_plan.h).
#include "aggregator/actions/respond_plan.h"

#include <algorithm>
#include <cctype>

namespace agt::agg {
namespace {

/// Lower-case ASCII, runs of spaces made one, ends trimmed: how labels are
/// compared (the screen may pad or re-wrap them).
std::string Fold(std::string_view s) {
  std::string out;
  bool space = false;
  for (unsigned char c : s) {
    if (std::isspace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

std::string FirstWord(const std::string& folded) {
  size_t end = folded.find_first_of(" ,.:;!");
  return folded.substr(0, end);
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

core::Error Invalid(const std::string& wanted, const std::string& why) {
  return core::MakeError(core::Err::kRequestInvalid, "choice '" + wanted + "': " + why);
}

std::string Listing(const detect::Menu& menu) {
  std::string out;
  for (size_t i = 0; i < menu.choices.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += std::to_string(menu.first_number + static_cast<int>(i)) + ". " + menu.choices[i];
  }
  return out;
}

/// The option number for one entry of `wanted`.
core::Result<int> ResolveOne(const detect::Menu& menu, const std::string& wanted) {
  const int first = menu.first_number;
  const int last = first + static_cast<int>(menu.choices.size()) - 1;
  if (!wanted.empty() && std::all_of(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isdigit(c); })) {
    int n = wanted.size() > 4 ? -1 : std::stoi(wanted);
    // A scrolled list hides the options above `first`; their numbers are
    // still valid (the arrows scroll), but nothing below 1 or past the last.
    if (n < 1 || n > last)
      return Invalid(wanted, "no option " + wanted + " (the menu shows " + std::to_string(first) + " to " +
                                 std::to_string(last) + ")");
    return n;
  }
  std::string want = Fold(wanted);
  if (want.empty()) return Invalid(wanted, "empty");
  std::vector<std::string> folded;
  for (const auto& c : menu.choices) folded.push_back(Fold(c));

  if (want == "y") want = "yes";
  if (want == "n") want = "no";
  if (want == "yes" || want == "no") {
    static const std::vector<std::string> kYes = {"yes", "allow", "approve", "proceed"};
    static const std::vector<std::string> kNo = {"no", "deny", "reject"};
    const auto& words = want == "yes" ? kYes : kNo;
    for (size_t i = 0; i < folded.size(); ++i)
      if (std::find(words.begin(), words.end(), FirstWord(folded[i])) != words.end())
        return first + static_cast<int>(i);
    // Not an approval-style menu: "yes" may still be an option's text.
  }
  std::vector<int> exact, prefix;
  for (size_t i = 0; i < folded.size(); ++i) {
    if (folded[i] == want) exact.push_back(first + static_cast<int>(i));
    else if (StartsWith(folded[i], want)) prefix.push_back(first + static_cast<int>(i));
  }
  if (exact.size() == 1) return exact[0];
  if (exact.empty() && prefix.size() == 1) return prefix[0];
  if (exact.size() + prefix.size() > 1)
    return Invalid(wanted, "matches several options (" + Listing(menu) + "); give its number");
  return Invalid(wanted, "matches no option (" + Listing(menu) + ")");
}

}  // namespace

core::Result<std::vector<int>> ResolveChoices(const detect::Menu& menu, const std::vector<std::string>& wanted) {
  if (wanted.empty()) return core::MakeError(core::Err::kRequestInvalid, "no choice given");
  if (menu.choices.empty()) return core::MakeError(core::Err::kRequestInvalid, "the menu has no options");
  if (!menu.multi_select && wanted.size() > 1)
    return core::MakeError(core::Err::kRequestInvalid,
                           "the menu takes one choice, " + std::to_string(wanted.size()) + " were given");
  std::vector<int> out;
  for (const auto& w : wanted) {
    auto n = ResolveOne(menu, w);
    if (!n) return n.error();
    if (std::find(out.begin(), out.end(), *n) != out.end())
      return Invalid(w, "option " + std::to_string(*n) + " was already chosen");
    out.push_back(*n);
  }
  return out;
}

std::string ChoiceLabel(const detect::Menu& menu, int number) {
  int i = number - menu.first_number;
  if (i < 0 || i >= static_cast<int>(menu.choices.size())) return "";
  return menu.choices[static_cast<size_t>(i)];
}

std::vector<std::string> ArrowsTo(int cursor, int number) {
  std::vector<std::string> keys;
  for (int i = cursor; i < number; ++i) keys.emplace_back("Down");
  for (int i = cursor; i > number; --i) keys.emplace_back("Up");
  return keys;
}

bool SameChoices(const std::vector<std::string>& seen, const detect::Menu& menu) {
  if (seen.size() != menu.choices.size()) return false;
  for (size_t i = 0; i < seen.size(); ++i) {
    std::string a = Fold(seen[i]), b = Fold(menu.choices[i]);
    if (a.empty() || b.empty()) return false;
    if (!StartsWith(a, b) && !StartsWith(b, a)) return false;
  }
  return true;
}

}  // namespace agt::agg
