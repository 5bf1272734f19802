// Parsing throughput on real-sized responses.
//
//   python3 proj/comp/sham-parser/bench/gen_input.py /tmp/sham-bench
//   bazel run //proj/comp/sham-parser:sham_parser_bench --
//       /tmp/sham-bench/clean.txt /tmp/sham-bench/errors.txt   (one line)
//
// Each file becomes two benchmarks: ParseBlocks alone, and ParseBlocks plus
// the JSON rendering `clada parse` prints. Throughput is reported as
// bytes_per_second of input. On a busy machine add
// --benchmark_repetitions=20 --benchmark_report_aggregates_only=true and read
// the medians.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace {

using clada::sham_parser::ParseBlocks;
using clada::sham_parser::ParseResultToJson;

void BM_ParseBlocks(benchmark::State& state, const std::string* input) {
  size_t errors = 0;
  for (auto _ : state) {
    clada::sham_parser::ParseResult r = ParseBlocks(*input);
    errors = r.errors.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * input->size()));
  state.counters["errors"] = static_cast<double>(errors);
}

void BM_ParseAndRender(benchmark::State& state, const std::string* input) {
  for (auto _ : state) {
    std::string json = ParseResultToJson(ParseBlocks(*input)).dump(2);
    benchmark::DoNotOptimize(json);
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * input->size()));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc < 2) {
    std::cerr << "usage: sham_parser_bench [benchmark flags] INPUT_FILE...\n"
                 "  (make inputs with bench/gen_input.py)\n";
    return 2;
  }
  std::vector<std::string*> inputs;  // live until the process exits
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << argv[i] << "\n";
      return 2;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    auto* input = new std::string(buffer.str());
    inputs.push_back(input);
    std::string name = argv[i];
    name = name.substr(name.find_last_of('/') + 1);
    benchmark::RegisterBenchmark(absl::StrCat("ParseBlocks/", name).c_str(),
                                 BM_ParseBlocks, input)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(absl::StrCat("ParseAndRender/", name).c_str(),
                                 BM_ParseAndRender, input)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
