// ReadBlocks over a 5 MB answer of replacer blocks amid prose (each block an
// explanation, a path, 10 SEARCH and 10 REPLACE lines of code), a 5 MB
// answer of OVERWRITE blocks of HTML (a `<` on every line), and 5 MB of
// prose with no block (the common answer).
//
//   bazel run -c opt //proj/comp/replacer-reader:replacer_reader_bench
#include <string>

#include "benchmark/benchmark.h"
#include "proj/comp/replacer-reader/src/replacer_reader.h"

namespace {

constexpr size_t kFiveMb = 5 * 1024 * 1024;

std::string Blocks() {
  std::string s;
  for (int b = 0; s.size() < kFiveMb; ++b) {
    s += "Here is the change to the function.\n\n<<<EXPLANATION>>>\n\nthe value must be computed from the next "
         "input\n\n<<<FILE>>>\n\n/home/me/project/src/module_" +
         std::to_string(b % 50) + ".py\n\n<<<SEARCH>>>\n";
    for (int l = 0; l < 10; ++l) s += "    value_" + std::to_string(l) + " = compute(" + std::to_string(b) + ")\n";
    s += "<<<REPLACE>>>\n";
    for (int l = 0; l < 10; ++l) s += "    value_" + std::to_string(l) + " = compute(" + std::to_string(b + 1) + ")\n";
    s += "<<<END>>>\n\n";
  }
  return s;
}

std::string HtmlOverwrites() {
  std::string s;
  for (int b = 0; s.size() < kFiveMb; ++b) {
    s += "<<<EXPLANATION>>>\nthe page\n<<<FILE>>>\nweb/page_" + std::to_string(b) + ".html\n<<<OVERWRITE>>>\n";
    for (int l = 0; l < 40; ++l) s += "<div class=\"row\"><span>item " + std::to_string(l) + "</span></div>\n";
    s += "<<<END>>>\n";
  }
  return s;
}

std::string Prose() {
  std::string s;
  while (s.size() < kFiveMb) s += "Some prose about the change, with `code` and more words.\n";
  return s;
}

void Run(benchmark::State& state, const std::string& answer) {
  size_t edits = 0;
  for (auto _ : state) {
    clada::replacer_reader::Blocks b = clada::replacer_reader::ReadBlocks(answer);
    edits = b.edits.size();
    benchmark::DoNotOptimize(b);
  }
  state.counters["edits"] = static_cast<double>(edits);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * answer.size()));
}

void BM_ReadBlocks5MB(benchmark::State& state) { Run(state, Blocks()); }
BENCHMARK(BM_ReadBlocks5MB)->Unit(benchmark::kMillisecond);

void BM_ReadHtmlOverwrites5MB(benchmark::State& state) { Run(state, HtmlOverwrites()); }
BENCHMARK(BM_ReadHtmlOverwrites5MB)->Unit(benchmark::kMillisecond);

void BM_ReadProse5MB(benchmark::State& state) { Run(state, Prose()); }
BENCHMARK(BM_ReadProse5MB)->Unit(benchmark::kMillisecond);

}  // namespace
