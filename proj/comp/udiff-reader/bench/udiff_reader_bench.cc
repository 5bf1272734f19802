// A diff of 1,000 hunks over a 100,000-line file: read, then applied at its
// lines (exact) and with every line number wrong (placed by context).
//
//   bazel run -c opt //proj/comp/udiff-reader:udiff_reader_bench
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"

namespace {

constexpr int kLines = 100000;
constexpr int kHunks = 1000;

std::string File() {
  std::string s;
  for (int i = 0; i < kLines; ++i) absl::StrAppend(&s, "line ", i, " of the file\n");
  return s;
}

// Hunk k changes line 100k+2 with one line of context either side.
std::string Diff(int shift) {
  std::string s = "diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n";
  for (int k = 0; k < kHunks; ++k) {
    const int line = 100 * k + 2;  // 1-based: lines line-1 .. line+1
    absl::StrAppend(&s, "@@ -", line - 1 + shift, ",3 +", line - 1 + shift, ",3 @@\n");
    absl::StrAppend(&s, " line ", line - 2, " of the file\n-line ", line - 1, " of the file\n+changed ", k, "\n");
    absl::StrAppend(&s, " line ", line, " of the file\n");
  }
  return s;
}

void BM_Read(benchmark::State& state) {
  const std::string diff = Diff(0);
  for (auto _ : state) benchmark::DoNotOptimize(clada::udiff_reader::ReadDiffs(diff));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * diff.size()));
}
BENCHMARK(BM_Read)->Unit(benchmark::kMillisecond);

void BM_ApplyAtLines(benchmark::State& state) {
  const std::string file = File();
  const clada::udiff_reader::Diffs d = clada::udiff_reader::ReadDiffs(Diff(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto r = clada::udiff_reader::ApplyFilePatch(file, d.files[0]);
    if (!r.ok()) state.SkipWithError("not applied");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ApplyAtLines)->Arg(0)->Arg(7)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
