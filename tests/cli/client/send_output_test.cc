// NewOutput (cli/client/action_client.h): what `send --wait` matches its patterns
// against. Seen in CI: right after a send, the screen was not redrawn yet
// and the previous command's "DONE" (its last line) was taken for new
// output, so `--match DONE --fail-match FAIL` succeeded on a failure.
#include <gtest/gtest.h>

#include "cli/client/action_client.h"

namespace agt::cli {
namespace {

TEST(NewOutput, NothingWhenTheScreenDidNotChange) {
  EXPECT_EQ(NewOutput("$ run\nDONE", "$ run\nDONE"), "");
  EXPECT_EQ(NewOutput("$ run\nDONE\n", "$ run\nDONE\n"), "");
}

TEST(NewOutput, ALineThatWasWholeBeforeIsNotNew) {
  EXPECT_EQ(NewOutput("GOT x\nDONE", "GOT x\nDONE\nexplode now"), "explode now");
  EXPECT_EQ(NewOutput("GOT x\nDONE\n", "GOT x\nDONE\nexplode now\nFAIL"), "explode now\nFAIL");
}

TEST(NewOutput, APromptLineTheAgentAppendedToCountsWhole) {
  EXPECT_EQ(NewOutput("ok\n> ", "ok\n> hello\nworld"), "> hello\nworld");
}

TEST(NewOutput, AScreenThatScrolledIsNewFromTheFirstDifference) {
  EXPECT_EQ(NewOutput("a\nb\nc", "b\nc\nd"), "b\nc\nd");
}

}  // namespace
}  // namespace agt::cli
