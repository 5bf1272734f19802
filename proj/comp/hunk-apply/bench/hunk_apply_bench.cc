// ApplyHunks speed: N hunks spread over a file of L lines, each hunk three
// context lines around one replaced line (a Codex-style patch). The file has
// lookalike lines ("}", "", "return 0;") every few lines, as code does.
//
//   bazel run -c opt //proj/comp/hunk-apply:hunk_apply_bench
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"

namespace {

using clada::hunk_apply::ApplyHunks;
using clada::hunk_apply::Hunk;
using clada::hunk_apply::PatchLine;

struct Input {
  std::string content;
  std::vector<Hunk> hunks;
};

// Lines come in groups of five: a unique statement, "return 0;", "}", "" and
// a unique signature.
Input MakeInput(int lines, int hunks, bool anchored) {
  Input in;
  std::vector<std::string> file;
  file.reserve(lines);
  for (int i = 0; static_cast<int>(file.size()) < lines; ++i) {
    file.push_back(absl::StrCat("int f", i, "(int x) {"));
    file.push_back(absl::StrCat("  x += ", i, ";"));
    file.push_back("  return 0;");
    file.push_back("}");
    file.push_back("");
  }
  file.resize(lines);
  for (const std::string& l : file) absl::StrAppend(&in.content, l, "\n");
  const int groups = lines / 5;
  for (int k = 0; k < hunks; ++k) {
    const int g = static_cast<int>(static_cast<long long>(k) * groups / hunks);
    const int at = g * 5 + 1;  // the "x += g;" line
    Hunk h;
    if (anchored) h.anchors = {file[at - 1]};
    if (!anchored) h.lines.push_back({PatchLine::kContext, file[at - 1]});
    h.lines.push_back({PatchLine::kDelete, file[at]});
    h.lines.push_back({PatchLine::kAdd, absl::StrCat("  x -= ", g, ";")});
    h.lines.push_back({PatchLine::kContext, file[at + 1]});
    h.lines.push_back({PatchLine::kContext, file[at + 2]});
    in.hunks.push_back(h);
  }
  return in;
}

void BM_ApplyHunks(benchmark::State& state) {
  const Input in = MakeInput(state.range(0), state.range(1), state.range(2) != 0);
  for (auto _ : state) {
    auto r = ApplyHunks(in.content, in.hunks);
    if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * in.content.size());
}

BENCHMARK(BM_ApplyHunks)
    ->ArgNames({"lines", "hunks", "anchored"})
    ->Args({1000, 10, 0})
    ->Args({100000, 1, 0})
    ->Args({100000, 1000, 0})
    ->Args({100000, 1000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
