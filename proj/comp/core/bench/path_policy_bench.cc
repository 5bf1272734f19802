// ResolvePath on an existing file DEPTH directories below a fresh root
// under /tmp, against realpath(3) of the same path (the yardstick: what a
// resolution took when it read every component with readlink(2)).
//
//   bazel run -c opt //proj/comp/core:path_policy_bench
#include <limits.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"

namespace clada::core {
namespace {

// A root with a file DEPTH directories below it; the relative path to it.
std::string MakeTree(const std::string& root, int depth) {
  std::string relative;
  for (int i = 0; i < depth; ++i) absl::StrAppend(&relative, "d", i, "/");
  if (!CreateDirectories(root + "/" + relative).ok()) return "";
  relative += "f.txt";
  if (!WriteFileAtomic(root + "/" + relative, "x\n").ok()) return "";
  return relative;
}

std::string FreshRoot() {
  char tmpl[] = "/tmp/clada-path-bench-XXXXXX";
  const char* made = ::mkdtemp(tmpl);
  return made != nullptr ? made : "";
}

void BM_ResolvePath(benchmark::State& state) {
  const std::string root = FreshRoot();
  const std::string relative = MakeTree(root, static_cast<int>(state.range(0)));
  absl::StatusOr<PathPolicy> policy = MakePathPolicy(root, {});
  if (relative.empty() || !policy.ok()) {
    state.SkipWithError("cannot set up the tree");
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<std::string> resolved = ResolvePath(*policy, relative);
    if (!resolved.ok()) state.SkipWithError("not resolved");
    benchmark::DoNotOptimize(resolved);
  }
  std::filesystem::remove_all(root);
}
BENCHMARK(BM_ResolvePath)->Arg(0)->Arg(3)->Arg(8);

void BM_Realpath(benchmark::State& state) {
  const std::string root = FreshRoot();
  const std::string path = root + "/" + MakeTree(root, static_cast<int>(state.range(0)));
  char out[PATH_MAX];
  for (auto _ : state) {
    if (::realpath(path.c_str(), out) == nullptr) state.SkipWithError("realpath failed");
    benchmark::DoNotOptimize(out);
  }
  std::filesystem::remove_all(root);
}
BENCHMARK(BM_Realpath)->Arg(0)->Arg(3)->Arg(8);

}  // namespace
}  // namespace clada::core
