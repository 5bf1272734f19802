// ReadBlocks over answers of N SEARCH/REPLACE blocks amid prose (each block
// a path, a fence, 10 SEARCH and 10 REPLACE lines), and over 5 MB of prose
// with no block (the common answer).
//
//   bazel run -c opt //proj/comp/aider-reader:aider_reader_bench
#include <string>

#include "benchmark/benchmark.h"
#include "proj/comp/aider-reader/src/aider_reader.h"

namespace {

std::string Answer(int blocks) {
  std::string s;
  for (int b = 0; b < blocks; ++b) {
    s += "Here is the change to the function:\n\nsrc/module_" + std::to_string(b % 50) + ".py\n```python\n";
    s += "<<<<<<< SEARCH\n";
    for (int l = 0; l < 10; ++l) s += "    value_" + std::to_string(l) + " = compute(" + std::to_string(b) + ")\n";
    s += "=======\n";
    for (int l = 0; l < 10; ++l) s += "    value_" + std::to_string(l) + " = compute(" + std::to_string(b + 1) + ")\n";
    s += ">>>>>>> REPLACE\n```\n\n";
  }
  return s;
}

void BM_ReadBlocks(benchmark::State& state) {
  const std::string answer = Answer(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(clada::aider_reader::ReadBlocks(answer));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * answer.size()));
}
BENCHMARK(BM_ReadBlocks)->Arg(1)->Arg(100)->Arg(10000);

void BM_ReadProse(benchmark::State& state) {
  std::string answer;
  while (answer.size() < 5 * 1024 * 1024) answer += "Some prose about the change, with `code` and more words.\n";
  for (auto _ : state) benchmark::DoNotOptimize(clada::aider_reader::ReadBlocks(answer));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * answer.size()));
}
BENCHMARK(BM_ReadProse);

}  // namespace

BENCHMARK_MAIN();
