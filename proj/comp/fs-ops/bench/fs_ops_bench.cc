// In-process benchmarks of fs-ops (run by bench/bench.sh; inputs are
// generated under $CLADA_BENCH_DIR, default /tmp/clada-fsops-bench):
//   ReplaceAllText10MB   file_replace_all_text, 10,000 occurrences in 10 MB,
//                        the whole action (read, checks, replace, atomic
//                        write with fsync)
//   CpProcess10MB        `cp` of the same file, as a process spawned
//                        directly, without a shell (the yardstick)
//   DurableCopy10MB      read + core::WriteFileAtomic of the same bytes: the
//                        floor for any crash-safe edit
//   ReplaceEvery10MB     the pure replacement alone, in memory
//   DiagnoseMiss2MB/*    the miss diagnosis on a 2 MB source file
//   ReplaceTextMiss2MB   a whole file_replace_text miss on 2 MB (read,
//                        checks, search, diagnosis)
//   GrepTree             grep over the generated tree (if present)
//   SearchBlock100kLines/T  a SEARCH/REPLACE block's replace on a
//                        100,000-line Python file (2.5 MB), in memory, the
//                        SEARCH (3 lines near the end) matching at tier T:
//                        0 exact, 1 indentation, 2 `...`, 3 nowhere
//   Diff200kLines/N      the unified diff of a 200,000-line file (3.4 MB)
//                        with every Nth line changed (0: one line), in
//                        memory; past the work bound it gives up
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/fs-ops/src/fs_ops.h"
#include "proj/comp/fs-ops/src/unified_diff.h"
#include "proj/comp/fs-ops/src/miss_diagnosis.h"
#include "proj/comp/fs-ops/src/search_replace.h"
#include "proj/comp/fs-ops/src/text_edit.h"

extern char** environ;  // the environment passed on to cp

namespace clada::fs_ops {
namespace {

std::string BenchDir() {
  const char* d = std::getenv("CLADA_BENCH_DIR");
  return d != nullptr ? d : "/tmp/clada-fsops-bench";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

core::ExecContext ContextFor(const std::string& root) {
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(root, {});
  return ctx;
}

// big.txt (10 MB, "old_name" 10,000 times) copied into rep/ by bench.sh.
void ReplaceAllText10MB(benchmark::State& state) {
  std::string dir = BenchDir() + "/rep";
  std::string orig = Slurp(dir + "/orig.txt");
  if (orig.empty()) {
    state.SkipWithError("run bench/bench.sh first to generate the inputs");
    return;
  }
  core::ExecContext ctx = ContextFor(dir);
  core::Action action;
  action.name = "file_replace_all_text";
  bool forward = true;
  (void)core::WriteFileAtomic(dir + "/big.txt", orig);
  for (auto _ : state) {
    // Alternate directions so every iteration is a real 10,000-occurrence edit.
    action.params = {{"path", "big.txt"},
                     {"old_text", forward ? "old_name" : "new_name"},
                     {"new_text", forward ? "new_name" : "old_name"},
                     {"count", 10000}};
    core::ActionOutcome out = ExecuteFileOperation(action, ctx);
    if (!out.success) state.SkipWithError(out.error.c_str());
    forward = !forward;
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(orig.size()));
}
BENCHMARK(ReplaceAllText10MB)->Unit(benchmark::kMillisecond)->UseRealTime();

// Runs `cp from to` as a child process, spawned directly (no shell), as
// hyperfine -N runs it: the yardstick is cp itself, not sh -c plus cp.
bool RunCp(const std::string& from, const std::string& to) {
  char* argv[] = {const_cast<char*>("cp"), const_cast<char*>(from.c_str()), const_cast<char*>(to.c_str()), nullptr};
  pid_t pid = 0;
  if (::posix_spawnp(&pid, "cp", nullptr, nullptr, argv, environ) != 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void CpProcess10MB(benchmark::State& state) {
  std::string dir = BenchDir() + "/rep";
  std::string from = dir + "/orig.txt";
  std::string to = dir + "/copy.txt";
  for (auto _ : state) {
    if (!RunCp(from, to)) state.SkipWithError("cp failed");
  }
}
BENCHMARK(CpProcess10MB)->Unit(benchmark::kMillisecond)->UseRealTime();

void DurableCopy10MB(benchmark::State& state) {
  std::string dir = BenchDir() + "/rep";
  for (auto _ : state) {
    absl::StatusOr<std::string> text = core::ReadFileToString(dir + "/orig.txt");
    if (!text.ok() || !core::WriteFileAtomic(dir + "/copy.txt", *text).ok()) state.SkipWithError("copy failed");
  }
}
BENCHMARK(DurableCopy10MB)->Unit(benchmark::kMillisecond)->UseRealTime();

void ReplaceEvery10MB(benchmark::State& state) {
  std::string orig = Slurp(BenchDir() + "/rep/orig.txt");
  for (auto _ : state) {
    auto r = internal::ReplaceEvery(orig, "old_name", "new_name", 10000, "big.txt");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(orig.size()));
}
BENCHMARK(ReplaceEvery10MB)->Unit(benchmark::kMillisecond);

void Diff200kLines(benchmark::State& state) {
  const int every = static_cast<int>(state.range(0));
  std::string before, after;
  for (int i = 1; i <= 200000; ++i) {
    const std::string n = std::to_string(i);
    before += "row " + n + "\n";
    after += (every == 0 ? i == 100000 : i % every == 0) ? "changed " + n + "\n" : "row " + n + "\n";
  }
  bool computed = true;
  for (auto _ : state) {
    internal::UnifiedDiff d = internal::DiffTexts(before, after, "big.txt");
    computed = d.computed;
    benchmark::DoNotOptimize(d);
  }
  state.counters["computed"] = computed ? 1 : 0;
}
BENCHMARK(Diff200kLines)->Arg(0)->Arg(1000)->Arg(100)->Arg(10)->Unit(benchmark::kMillisecond);

// Needles for the 2 MB miss: a re-indented copy of real lines (normalised
// match), lines with one word changed (close match), and unrelated text.
std::string SourceLines(const std::string& text, size_t line, size_t count) {
  size_t pos = 0;
  for (size_t i = 0; i < line && pos != std::string::npos; ++i) pos = text.find('\n', pos) + 1;
  size_t end = pos;
  for (size_t i = 0; i < count; ++i) end = text.find('\n', end) + 1;
  return text.substr(pos, end - pos);
}

void DiagnoseMiss2MB(benchmark::State& state) {
  std::string text = Slurp(BenchDir() + "/src2mb.txt");
  if (text.empty()) {
    state.SkipWithError("run bench/bench.sh first to generate the inputs");
    return;
  }
  std::string needle = SourceLines(text, 30000, 4);  // near the end
  if (state.range(0) == 0) {
    // Indentation changed: tabs for the leading spaces.
    std::string tabbed;
    for (size_t i = 0; i < needle.size(); ++i) {
      if ((i == 0 || needle[i - 1] == '\n') && needle.compare(i, 4, "    ") == 0) {
        tabbed += '\t';
        i += 3;
      } else {
        tabbed += needle[i];
      }
    }
    needle = tabbed + "x";  // and never an exact match
    state.SetLabel("normalised (indentation)");
  } else if (state.range(0) == 1) {
    size_t word = needle.find("handler_");
    needle.replace(word, 8, "handlr_");
    state.SetLabel("close match");
  } else {
    needle = "completely unrelated words that occur nowhere at all\nand a second line of them\n";
    state.SetLabel("nothing close");
  }
  for (auto _ : state) {
    internal::MissDiagnosis d = internal::DiagnoseMiss(text, needle, "old_text");
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(DiagnoseMiss2MB)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void ReplaceTextMiss2MB(benchmark::State& state) {
  std::string dir = BenchDir();
  std::string text = Slurp(dir + "/src2mb.txt");
  core::ExecContext ctx = ContextFor(dir);
  core::Action action;
  action.name = "file_replace_text";
  std::string needle = SourceLines(text, 30000, 3);
  needle.replace(needle.find("handler_"), 8, "handlr_");
  action.params = {{"path", "src2mb.txt"}, {"old_text", needle}, {"new_text", "x"}};
  for (auto _ : state) {
    core::ActionOutcome out = ExecuteFileOperation(action, ctx);
    if (out.success) state.SkipWithError("expected a miss");
  }
}
BENCHMARK(ReplaceTextMiss2MB)->Unit(benchmark::kMillisecond);

void SearchBlock100kLines(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 50000; ++i) {
    absl::StrAppend(&text, "    def handler_", i, "(self):\n        return ", i, "\n");
  }
  std::string search, replace;
  switch (state.range(0)) {
    case 0:
      search = "    def handler_49000(self):\n        return 49000\n";
      state.SetLabel("exact");
      break;
    case 1:
      search = "def handler_49000(self):\n    return 49000\n";
      state.SetLabel("indentation");
      break;
    case 2:
      search = "    def handler_49000(self):\n...\n    def handler_49002(self):\n";
      state.SetLabel("dots");
      break;
    default:
      search = "def handler_49000(self):\n    return 1\n";
      state.SetLabel("nowhere");
      break;
  }
  replace = search;
  replace.replace(replace.find("49000"), 5, "x");
  for (auto _ : state) {
    absl::StatusOr<internal::EditResult> r = internal::ReplaceSearchBlock(text, search, replace, "f.py");
    if (r.ok() != (state.range(0) != 3)) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(SearchBlock100kLines)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

void GrepTree(benchmark::State& state) {
  std::string root = BenchDir() + "/tree";
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) {
    state.SkipWithError("run bench/bench.sh first to generate the tree");
    return;
  }
  core::ExecContext ctx = ContextFor(root);
  core::Action action;
  action.name = "grep";
  action.params = {{"pattern", state.range(0) == 0 ? "TODO\\(fsops\\)" : "handler_1234[0-9]\\b"}, {"path", "."}};
  state.SetLabel(state.range(0) == 0 ? "literal" : "regex");
  for (auto _ : state) {
    core::ActionOutcome out = ExecuteFileOperation(action, ctx);
    if (!out.success) state.SkipWithError(out.error.c_str());
  }
}
BENCHMARK(GrepTree)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace clada::fs_ops
