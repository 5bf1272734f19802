// Concurrent writers through the public API: the store's flock must keep
// every add (without it, load-modify-save races lose entries).
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/context/src/context.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"

namespace clada::context {
namespace {

TEST(ContextStore, ConcurrentAddsLoseNothing) {
  constexpr int kThreads = 8;
  constexpr int kFilesPerThread = 25;
  std::string tmpl = absl::StrCat(
      std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp",
      "/ctxXXXXXX");
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  for (int t = 0; t < kThreads; ++t) {
    for (int f = 0; f < kFilesPerThread; ++f) {
      ASSERT_TRUE(
          core::WriteFileAtomic(absl::StrCat(tmpl, "/f", t, "_", f), "x").ok());
    }
  }
  absl::StatusOr<core::PathPolicy> policy = core::MakePathPolicy(tmpl, {});
  ASSERT_TRUE(policy.ok()) << policy.status();

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      core::ExecContext ctx;  // each thread is its own "process"
      ctx.paths = *policy;
      for (int f = 0; f < kFilesPerThread; ++f) {
        core::Action add;
        add.name = "context_add";
        add.params["path"] = absl::StrCat("f", t, "_", f);
        core::ActionOutcome out = ExecuteContextAction(add, ctx);
        EXPECT_TRUE(out.success) << out.error;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  core::ExecContext ctx;
  ctx.paths = *policy;
  core::Action list;
  list.name = "context_list";
  core::ActionOutcome out = ExecuteContextAction(list, ctx);
  ASSERT_TRUE(out.success) << out.error;
  EXPECT_EQ(out.data["totals"]["entries"].get<int>(),
            kThreads * kFilesPerThread);
}

}  // namespace
}  // namespace clada::context
