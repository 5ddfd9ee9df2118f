// The pure part of `respond`: which option the user meant and the keys
// that reach it (aggregator/actions/respond_plan.h).
#include "aggregator/actions/respond_plan.h"

#include <gtest/gtest.h>

namespace agt::agg {
namespace {

detect::Menu MenuOf(std::vector<std::string> choices, int cursor = 1, int first = 1, bool multi = false) {
  detect::Menu m;
  m.choices = std::move(choices);
  m.cursor_position = cursor;
  m.first_number = first;
  m.multi_select = multi;
  return m;
}

const detect::Menu kClaude = MenuOf({"Yes", "Yes, and don't ask again for mkdir commands", "No"});
const detect::Menu kCodex = MenuOf({"Yes, proceed", "Yes, and don't ask again for commands that start with `mkdir`",
                                    "No, and tell Codex what to do differently"});
const detect::Menu kGemini = MenuOf({"Allow once", "Allow for this session", "No, suggest changes"});

int One(const detect::Menu& m, const std::string& wanted) {
  auto r = ResolveChoices(m, {wanted});
  EXPECT_TRUE(r.ok()) << wanted << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() && r->size() == 1 ? (*r)[0] : -1;
}

std::string Why(const detect::Menu& m, std::vector<std::string> wanted) {
  auto r = ResolveChoices(m, wanted);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, core::Err::kRequestInvalid);
  return r.error().message;
}

TEST(RespondPlan, YesAndNoFindEachAgentsApprovalOptions) {
  EXPECT_EQ(One(kClaude, "yes"), 1);
  EXPECT_EQ(One(kClaude, "NO"), 3);
  EXPECT_EQ(One(kCodex, "yes"), 1);
  EXPECT_EQ(One(kCodex, "n"), 3);
  EXPECT_EQ(One(kGemini, "y"), 1);  // "Allow once"
  EXPECT_EQ(One(kGemini, "no"), 3);
}

TEST(RespondPlan, NumbersAndText) {
  EXPECT_EQ(One(kClaude, "2"), 2);
  EXPECT_EQ(One(kClaude, "yes, and don't"), 2);           // the start of one option
  EXPECT_EQ(One(kCodex, "  YES,   proceed "), 1);         // case and spacing do not matter
  auto q = MenuOf({"pytest (Recommended)", "unittest", "doctest", "None of the above"});
  EXPECT_EQ(One(q, "pytest"), 1);
  EXPECT_EQ(One(q, "Unittest"), 2);
  // An exact label wins over options it is the start of.
  auto exact = MenuOf({"Lint", "Lint and format"});
  EXPECT_EQ(One(exact, "lint"), 1);
}

TEST(RespondPlan, WhatMatchesNothingOrTooMuchIsRefused) {
  EXPECT_NE(Why(kClaude, {"maybe"}).find("matches no option (1. Yes, 2. Yes, and"), std::string::npos);
  EXPECT_NE(Why(kClaude, {"Ye"}).find("several options"), std::string::npos);
  EXPECT_NE(Why(kClaude, {"4"}).find("no option 4 (the menu shows 1 to 3)"), std::string::npos);
  EXPECT_NE(Why(kClaude, {"0"}).find("no option 0"), std::string::npos);
  EXPECT_NE(Why(kClaude, {"99999999999"}).find("no option"), std::string::npos);
  EXPECT_NE(Why(kClaude, {"1", "3"}).find("takes one choice, 2 were given"), std::string::npos);
  EXPECT_NE(Why(kClaude, {""}).find("empty"), std::string::npos);
  EXPECT_NE(Why(kClaude, {}).find("no choice given"), std::string::npos);
  // "yes" on a menu without an approval option is looked up as text.
  EXPECT_NE(Why(MenuOf({"pytest", "unittest"}), {"yes"}).find("matches no option"), std::string::npos);
}

TEST(RespondPlan, MultiSelectTakesSeveralOnceEach) {
  auto m = MenuOf({"Unit tests", "Lint", "Type check"}, 1, 1, true);
  auto r = ResolveChoices(m, {"type check", "1"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<int>{3, 1}));
  EXPECT_NE(Why(m, {"1", "unit tests"}).find("already chosen"), std::string::npos);
}

TEST(RespondPlan, ScrolledListsUseTheNumbersShown) {
  // Gemini scrolls long lists: options 4..6 are visible.
  auto m = MenuOf({"four", "five", "six"}, 5, 4);
  EXPECT_EQ(One(m, "six"), 6);
  EXPECT_EQ(One(m, "2"), 2);  // hidden above: reachable with the arrows
  EXPECT_EQ(ChoiceLabel(m, 6), "six");
  EXPECT_EQ(ChoiceLabel(m, 2), "");
  EXPECT_NE(Why(m, {"7"}).find("the menu shows 4 to 6"), std::string::npos);
}

TEST(RespondPlan, ArrowsGoFromTheCursor) {
  EXPECT_EQ(ArrowsTo(1, 3), (std::vector<std::string>{"Down", "Down"}));
  EXPECT_EQ(ArrowsTo(3, 1), (std::vector<std::string>{"Up", "Up"}));
  EXPECT_TRUE(ArrowsTo(2, 2).empty());
}

TEST(RespondPlan, SameChoicesToleratesWrappingButNotAnotherDialog) {
  EXPECT_TRUE(SameChoices({"Yes", "Yes, and don't ask again for mkdir commands", "No"}, kClaude));
  // The state's reader cut a long label where the screen wrapped it.
  EXPECT_TRUE(SameChoices({"Yes", "Yes, and don't ask again", "no"}, kClaude));
  EXPECT_FALSE(SameChoices({"Yes", "No"}, kClaude));
  EXPECT_FALSE(SameChoices({"Yes", "Yes, allow all edits during this session", "No"}, kClaude));
  EXPECT_FALSE(SameChoices({"Yes", "", "No"}, kClaude));
}

}  // namespace
}  // namespace agt::agg
