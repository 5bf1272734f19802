// Parse speed of ParseCsl on 5 MB answers; the target is 1 GB/s
// (doc/ARCH.md has the figures).
//
//   bazel run -c opt //proj/comp/csl-parser:csl_parser_bench
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "proj/comp/csl-parser/src/csl_parser.h"

namespace {

// Prose and Markdown with a TASKS block (a WRITE of `write_lines` lines, a
// SEARCH, a RUN) and a standalone range SEARCH, over and over.
std::string MakeAnswer(size_t bytes, int write_lines) {
  std::string out;
  int n = 0;
  while (out.size() < bytes) {
    ++n;
    const std::string file = "src/file" + std::to_string(n) + ".cc";
    out += "Here is the next change. It keeps `main()` as it is and only renames the helper; ";
    out += "the tests in test/util_test.cc cover both paths.\n\n";
    out += "- first point of the plan\n- second point, with <b>markup</b> & an arrow <- here\n\n";
    out += "<---TASKS--->\n<---WRITE file=\"" + file + "\"--->\n";
    for (int i = 0; i < write_lines; ++i) out += "int f" + std::to_string(i) + "(int a) { return a < 3 && a > 1; }\n";
    out += "<---END--->\n<---SEARCH file=\"" + file + "\" count=\"2\"--->\n  return a < 3\n<---REPLACE--->\n";
    out += "  return a <= 3\n<---END--->\n<---RUN dir=\"build\"--->\nmake -j2 && ./test\n<---END--->\n<---END--->\n\n";
    out += "<---SEARCH file=\"" + file + "\"--->\nint f10(int a)\n<---TO--->\nint f12(int a)\n<---REPLACE--->\n";
    out += "// gone\n<---END--->\n\n";
  }
  return out;
}

// state.range(0): lines of each WRITE (200: whole files, an action every
// 2.3 KB; 20: an action every 350 bytes, the densest answer an LLM writes).
// `packed`: the parse `clada run` makes (ReadAnswer): each operation's
// action packed as it is read (ParseOptions::pack_actions), the blocks
// reserved from FindCsl's count; else ParseCsl's defaults, every operation
// a core::Action.
void ParseCsl5MB(benchmark::State& state, bool packed) {
  const std::string answer = MakeAnswer(5 * 1024 * 1024, static_cast<int>(state.range(0)));
  clada::csl_parser::ParseOptions options;
  options.pack_actions = packed;
  if (packed) options.expected_blocks = clada::csl_parser::FindCsl(answer).size();
  size_t blocks = 0, actions = 0;
  for (auto _ : state) {
    auto r = std::make_unique<clada::csl_parser::CslParseResult>(clada::csl_parser::ParseCsl(answer, {}, {}, options));
    blocks = r->blocks.size();
    actions = r->packed_actions.size();
    for (const auto& b : r->blocks) actions += b.operations().size();
    benchmark::DoNotOptimize(r);
    // Freeing the actions is the caller's cost, not the parser's.
    state.PauseTiming();
    r.reset();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * answer.size());
  state.counters["blocks"] = static_cast<double>(blocks);
  state.counters["actions"] = static_cast<double>(actions);
}
void BM_ParseCsl5MB(benchmark::State& state) { ParseCsl5MB(state, false); }
BENCHMARK(BM_ParseCsl5MB)->Arg(200)->Arg(20)->Unit(benchmark::kMillisecond);
void BM_ParseCslPacked5MB(benchmark::State& state) { ParseCsl5MB(state, true); }
BENCHMARK(BM_ParseCslPacked5MB)->Arg(200)->Arg(20)->Unit(benchmark::kMillisecond);

// The same answer, spans only (what the orchestrator's segmenting costs).
void BM_FindCsl5MB(benchmark::State& state) {
  const std::string answer = MakeAnswer(5 * 1024 * 1024, static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(clada::csl_parser::FindCsl(answer));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * answer.size());
}
BENCHMARK(BM_FindCsl5MB)->Arg(200)->Arg(20)->Unit(benchmark::kMillisecond);

// Prose only, with arrows and comments that are not markers: the cost of
// finding nothing.
void BM_FindCslProse5MB(benchmark::State& state) {
  std::string answer;
  while (answer.size() < 5 * 1024 * 1024) {
    answer += "Plain prose with `code`, <b>tags</b> & entities, lists and links [x](y).\n";
    answer += "<--- not a marker, an arrow in prose\n";
  }
  for (auto _ : state) benchmark::DoNotOptimize(clada::csl_parser::FindCsl(answer));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * answer.size());
}
BENCHMARK(BM_FindCslProse5MB)->Unit(benchmark::kMillisecond);

}  // namespace
