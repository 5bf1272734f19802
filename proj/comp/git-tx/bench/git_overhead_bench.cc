// Git overhead of one `clada run` on a repository of 10,000 files:
// BeginBatch (status, the snapshot tree, the journal) plus Finish (status,
// blob, tree, for a dirty tree the snapshot commit, the AI commit, index
// update) with one changed file. The
// action's own file write is not timed.
//
//   bazel run -c opt //proj/comp/git-tx:git_overhead_bench
//
// The repository is built once in a temporary directory with the git CLI
// (100 directories x 100 files, committed) and removed at exit.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "proj/comp/git-tx/src/git_tx.h"

namespace clada::git_tx {
namespace {

constexpr int kDirs = 100;
constexpr int kFilesPerDir = 100;

void Sh(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "failed: %s\n", cmd.c_str());
    std::exit(1);
  }
}

// A committed repository of kDirs * kFilesPerDir small files.
const std::string& Repo() {
  static const std::string* const repo = [] {
    char tmpl[] = "/tmp/clada_gittx_bench_XXXXXX";
    auto* dir = new std::string(::mkdtemp(tmpl));
    for (int d = 0; d < kDirs; ++d) {
      std::string sub = absl::StrCat(*dir, "/src/d", d);
      Sh("mkdir -p " + sub);
      for (int f = 0; f < kFilesPerDir; ++f) {
        std::ofstream(absl::StrCat(sub, "/f", f, ".txt"))
            << "line " << d << " " << f << "\n";
      }
    }
    // The pauses keep index entries from being "racily clean" (written in
    // the same second as the index), which would make every status re-read
    // all 10,000 files: a repository whose files were not all written within
    // the last second, as in real use.
    Sh(absl::StrCat("cd ", *dir,
                    " && sleep 1.1 && git init -q -b main && git add -A && git "
                    "-c gc.auto=0 "
                    "-c user.name=bench -c user.email=bench@localhost commit "
                    "-qm init && sleep 1.1 "
                    "&& git status -s >/dev/null"));
    std::atexit([] { Sh("rm -rf " + Repo()); });
    return dir;
  }();
  return *repo;
}

// Gives `path` content it never had before (benchmark functions are run
// several times, so the counter is global).
void WriteNewContent(const std::string& path) {
  static int64_t n = 0;
  std::ofstream(path, std::ios::trunc) << "changed " << ++n << "\n";
}

// Milliseconds since `start`.
double MsSince(absl::Time start) {
  return absl::ToDoubleMilliseconds(absl::Now() - start);
}

// Reports the mean BeginBatch and Finish times beside the total.
void SetPhaseCounters(benchmark::State& state, double begin_ms,
                      double finish_ms) {
  state.counters["begin_ms"] =
      benchmark::Counter(begin_ms, benchmark::Counter::kAvgIterations);
  state.counters["finish_ms"] =
      benchmark::Counter(finish_ms, benchmark::Counter::kAvgIterations);
}

// Clean tree: no snapshot; the batch changes one file.
void BM_BatchOneChangedFile(benchmark::State& state) {
  const std::string& repo = Repo();
  const std::string target = repo + "/src/d42/f7.txt";
  double begin_ms = 0, finish_ms = 0;
  for (auto _ : state) {
    absl::Time start = absl::Now();
    auto tx = BeginBatch(repo, GitOptions(), BatchPlan{{target}, false});
    begin_ms += MsSince(start);
    if (!tx.ok()) {
      state.SkipWithError(std::string(tx.status().message()).c_str());
      break;
    }
    state.PauseTiming();
    WriteNewContent(target);
    ActionRecord record{"b1", "file_write", target, true, {}, false};
    record.touched_paths.mut() = {target};
    state.ResumeTiming();
    start = absl::Now();
    auto result = (*tx)->Finish({record});
    tx->reset();
    finish_ms += MsSince(start);
    if (!result.ok() || !result->commit_id) {
      state.SkipWithError(result.ok()
                              ? result->summary.c_str()
                              : std::string(result.status().message()).c_str());
      break;
    }
  }
  SetPhaseCounters(state, begin_ms, finish_ms);
}
BENCHMARK(BM_BatchOneChangedFile)->Unit(benchmark::kMillisecond)->UseRealTime();

// Dirty tree: the user changed one file, so Finish also commits the
// `[clada:pre]` snapshot.
void BM_BatchWithSnapshot(benchmark::State& state) {
  const std::string& repo = Repo();
  const std::string user_file = repo + "/src/d3/f3.txt";
  const std::string target = repo + "/src/d42/f8.txt";
  double begin_ms = 0, finish_ms = 0;
  for (auto _ : state) {
    state.PauseTiming();
    WriteNewContent(user_file);
    state.ResumeTiming();
    absl::Time start = absl::Now();
    auto tx = BeginBatch(repo, GitOptions(), BatchPlan{{target}, false});
    begin_ms += MsSince(start);
    if (!tx.ok()) {
      state.SkipWithError(std::string(tx.status().message()).c_str());
      break;
    }
    state.PauseTiming();
    WriteNewContent(target);
    ActionRecord record{"b1", "file_write", target, true, {}, false};
    record.touched_paths.mut() = {target};
    state.ResumeTiming();
    start = absl::Now();
    auto result = (*tx)->Finish({record});
    tx->reset();
    finish_ms += MsSince(start);
    if (!result.ok() || !result->commit_id) {
      state.SkipWithError(result.ok()
                              ? result->summary.c_str()
                              : std::string(result.status().message()).c_str());
      break;
    }
  }
  SetPhaseCounters(state, begin_ms, finish_ms);
}
BENCHMARK(BM_BatchWithSnapshot)->Unit(benchmark::kMillisecond)->UseRealTime();

// The run lock alone (acquire + release), for completeness.
void BM_RunLock(benchmark::State& state) {
  const std::string& repo = Repo();
  for (auto _ : state) {
    auto lock = RunLock::Acquire(repo, absl::Seconds(1));
    if (!lock.ok()) {
      state.SkipWithError(std::string(lock.status().message()).c_str());
      break;
    }
  }
}
BENCHMARK(BM_RunLock)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace clada::git_tx
