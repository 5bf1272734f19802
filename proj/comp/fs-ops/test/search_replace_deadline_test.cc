// The SEARCH/REPLACE tolerance tiers stop at the action's deadline: a
// deadline already past makes them stop with a `timeout` error (no clock is
// raced: the deadline is in the past before the call).
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/test/test_dir.h"
#include "proj/comp/fs-ops/src/fs_ops.h"
#include "proj/comp/fs-ops/src/search_replace.h"

namespace clada::fs_ops {
namespace {

using internal::EditResult;
using internal::ReplaceSearchBlock;

constexpr const char* kFile = "def f():\n    a = 1\n    b = 2\n    return a + b\n";

TEST(SearchReplaceDeadline, PassedDeadlineStopsTheIndentationTier) {
  // Matches only with its indentation changed.
  const std::string search = "a = 1\nb = 2\n";
  absl::StatusOr<EditResult> in_time = ReplaceSearchBlock(kFile, search, "a = 10\nb = 2\n", "f.py");
  ASSERT_TRUE(in_time.ok()) << in_time.status();
  EXPECT_TRUE(absl::StrContains(in_time->content, "    a = 10\n"));
  absl::StatusOr<EditResult> late =
      ReplaceSearchBlock(kFile, search, "a = 10\nb = 2\n", "f.py", absl::InfinitePast());
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded) << late.status();
  EXPECT_TRUE(absl::StrContains(late.status().message(), "time ran out while its indentation tolerance"))
      << late.status();
  EXPECT_TRUE(absl::StrContains(late.status().message(), "nothing was changed")) << late.status();
}

TEST(SearchReplaceDeadline, PassedDeadlineStopsTheDotsTierAndTheMissDiagnosis) {
  // `...` standing for the lines between: only the second tier matches.
  absl::StatusOr<EditResult> dots =
      ReplaceSearchBlock(kFile, "def f():\n...\n    return a + b\n", "def g():\n...\n    return a + b\n", "f.py",
                         absl::InfinitePast());
  ASSERT_FALSE(dots.ok());
  EXPECT_EQ(dots.status().code(), absl::StatusCode::kDeadlineExceeded) << dots.status();
  // Not in the file at all: the miss diagnosis does not run either.
  absl::StatusOr<EditResult> miss =
      ReplaceSearchBlock(kFile, "nowhere = 3\n", "here = 3\n", "f.py", absl::InfinitePast());
  ASSERT_FALSE(miss.ok());
  EXPECT_EQ(miss.status().code(), absl::StatusCode::kDeadlineExceeded) << miss.status();
}

TEST(SearchReplaceDeadline, AnExactMatchNeedsNoTier) {
  absl::StatusOr<EditResult> exact =
      ReplaceSearchBlock(kFile, "    a = 1\n", "    a = 10\n", "f.py", absl::InfinitePast());
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_TRUE(absl::StrContains(exact->content, "    a = 10\n"));
}

// Through the action: the batch's deadline (ExecContext limits) reaches the
// tiers, and the file is left as it was.
TEST(SearchReplaceDeadline, TheActionsDeadlineReachesTheTiers) {
  const std::string dir = core::testing::MakeTestDir("sr-deadline-");
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/f.py";
  {
    std::ofstream out(path, std::ios::binary);
    out << kFile;
  }
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(dir, {});
  core::Action a;
  a.name = "file_replace_text";
  a.edit_options.tolerant_match = true;
  a.params = {{"path", "f.py"}, {"old_text", "a = 1\nb = 2\n"}, {"new_text", "a = 10\nb = 2\n"}};
  ctx.limits.deadline = absl::InfinitePast();
  core::ActionOutcome late = ExecuteFileOperation(a, ctx);
  EXPECT_FALSE(late.success);
  EXPECT_TRUE(absl::StrContains(late.error, "time ran out")) << late.error;
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), kFile);
  // With time left, the same block applies.
  ctx.limits.deadline = absl::InfiniteFuture();
  core::ActionOutcome ok = ExecuteFileOperation(a, ctx);
  EXPECT_TRUE(ok.success) << ok.error;
}

}  // namespace
}  // namespace clada::fs_ops
