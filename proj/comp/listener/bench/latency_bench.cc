// Save -> write-back latency of a real listener.
//
// Each iteration saves FILE with an answer holding one new block (truncate
// and write, as most editors do), then spins until the listener has written
// the results back into FILE. The callback does nothing, so the time is the
// listener's own: inotify wake-up, debounce, read, scan, recording the state,
// the output file, the clipboard lookup and rewriting FILE (three atomic
// writes with fsync). Manual time: only save -> write-back is counted.
//
// The directory is $LATENCY_DIR when set (to measure a real disk), else a
// fresh directory under /tmp.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void SaveTruncating(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) abort();
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) abort();
  ::close(fd);
}

void BM_SaveToWriteBack(benchmark::State& state) {
  const char* base = getenv("LATENCY_DIR");
  std::string tmpl = absl::StrCat(base != nullptr ? base : "/tmp", "/clada-listen-bench-XXXXXX");
  if (mkdtemp(tmpl.data()) == nullptr) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  const std::string dir = tmpl;
  ListenOptions options;
  options.file = dir + "/answer.md";
  options.state_dir = dir + "/.clada";
  options.debounce_ms = static_cast<int>(state.range(0));
  std::atomic<bool> stop{false};
  std::atomic<bool> ready{false};
  options.should_stop = [&] { return stop.load(); };
  options.on_ready = [&] { ready = true; };
  std::atomic<int> runs{0};
  RunBlocksFn run = [&](const std::string&, int64_t) {
    int n = ++runs;
    RunReport r;
    r.summary = absl::StrCat("=== CLADA RESULTS ===\nb", n, " ✅ ls\n");
    r.full_report = r.summary + "=== END ===\n";
    r.stderr_line = "1 succeeded, 0 failed, 0 skipped";
    return r;
  };
  std::thread listener([&] { Listen(options, run).IgnoreError(); });
  while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  int i = 0;
  for (auto _ : state) {
    ++i;
    const std::string answer =
        absl::StrCat("Answer ", i, ":\n#!SHAM [@three-char-SHA-256: b", i, "]\naction = \"ls\"\n#!END_SHAM_b", i, "\n");
    const std::string done = absl::StrCat("\nb", i, " ✅ ls\n");
    auto start = std::chrono::steady_clock::now();
    SaveTruncating(options.file, answer);
    while (!absl::StrContains(ReadAll(options.file), done)) std::this_thread::sleep_for(std::chrono::microseconds(50));
    auto end = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }
  stop = true;
  listener.join();
  std::filesystem::remove_all(dir);
}

BENCHMARK(BM_SaveToWriteBack)->Arg(30)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(50);

}  // namespace
}  // namespace clada::listener
