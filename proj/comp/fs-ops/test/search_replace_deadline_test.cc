// The SEARCH/REPLACE tolerance tiers stop at the action's deadline: a
// deadline already past makes them stop with a `timeout` error, and so does
// one that passes while a tier runs (a fake clock, which passes after a
// given number of reads: no clock is raced).
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/error_code.h"
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

// A clock for the tiers that reads as before `deadline` until its
// `passes_at`-th read (1-based; 0: never), and after it from then on; it
// counts its reads.
struct FakeClock {
  absl::Time deadline = absl::FromUnixSeconds(1000);
  int passes_at = 0;
  int reads = 0;
  absl::Time Now() {
    ++reads;
    return passes_at > 0 && reads >= passes_at ? deadline + absl::Seconds(1) : deadline - absl::Seconds(1);
  }
};

// 300,000 lines, then two indented ones that a SEARCH written without their
// indentation matches (the indentation tier, after an exact miss).
std::string LargeFile() {
  std::string text;
  for (int i = 0; i < 300000; ++i) absl::StrAppend(&text, "x", i, " = 0\n");
  return text + "    target = 1\n    more = 2\n";
}
constexpr int kLargeLines = 300002;
constexpr int kReadEvery = 65536;  // lines of work per clock read (WorkClock::kEvery)

// The deadline passes while the indentation tier walks a large file: the
// tier stops there (not at the next tier's boundary) with `timeout`, and
// returns no content. The clock's reads prove where it was checked: read 1
// is before the tiers, so read 2 is inside the indentation tier, after
// 65,536 lines.
TEST(SearchReplaceDeadline, DeadlinePassingMidTierStopsTheIndentationTier) {
  const std::string file = LargeFile();
  const std::string search = "target = 1\nmore = 2\n";
  const std::string replace = "target = 10\nmore = 2\n";
  // In time, the tier reads the clock once per 65,536 lines it walks.
  FakeClock in_time;
  auto in_time_now = [&in_time] { return in_time.Now(); };
  absl::StatusOr<EditResult> done = ReplaceSearchBlock(file, search, replace, "big.py", in_time.deadline, in_time_now);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_TRUE(absl::EndsWith(done->content, "    target = 10\n    more = 2\n"));
  EXPECT_GE(in_time.reads, 1 + kLargeLines / kReadEvery);
  for (int passes_at : {2, 3}) {
    FakeClock late;
    late.passes_at = passes_at;
    auto late_now = [&late] { return late.Now(); };
    absl::StatusOr<EditResult> stopped = ReplaceSearchBlock(file, search, replace, "big.py", late.deadline, late_now);
    ASSERT_FALSE(stopped.ok()) << "passes at read " << passes_at;
    EXPECT_EQ(core::ErrorCode(stopped.status()), "timeout") << stopped.status();
    EXPECT_TRUE(absl::StrContains(stopped.status().message(), "time ran out while its indentation tolerance"))
        << stopped.status();
    EXPECT_TRUE(absl::StrContains(stopped.status().message(), "nothing was changed")) << stopped.status();
    // Stopped at the read that saw the deadline passed, before the end of the
    // file: no read after it.
    EXPECT_EQ(late.reads, passes_at);
    EXPECT_LT(late.reads, in_time.reads);
  }
}

// The `...` tier reads the clock as it goes too: passing at its last read
// (which, in time, is inside that tier) stops it there.
TEST(SearchReplaceDeadline, DeadlinePassingInTheDotsTierStopsIt) {
  const std::string file = LargeFile();
  const std::string search = "x0 = 0\n...\n    more = 2\n";
  const std::string replace = "x0 = 5\n...\n    more = 2\n";
  FakeClock in_time;
  auto in_time_now = [&in_time] { return in_time.Now(); };
  absl::StatusOr<EditResult> done = ReplaceSearchBlock(file, search, replace, "big.py", in_time.deadline, in_time_now);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_TRUE(absl::StartsWith(done->content, "x0 = 5\nx1 = 0\n"));
  FakeClock late;
  late.passes_at = in_time.reads;
  auto late_now = [&late] { return late.Now(); };
  absl::StatusOr<EditResult> stopped = ReplaceSearchBlock(file, search, replace, "big.py", late.deadline, late_now);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(core::ErrorCode(stopped.status()), "timeout") << stopped.status();
  EXPECT_TRUE(absl::StrContains(stopped.status().message(), "`...` tolerance")) << stopped.status();
  EXPECT_EQ(late.reads, in_time.reads);
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
