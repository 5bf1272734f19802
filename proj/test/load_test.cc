// Load: 10,000 blocks in one answer, a 50 MB answer, and 1,000 clada runs
// in a row on one repository with git on. Peak memory of each clada process
// (from wait4's rusage) must stay under 3x the input size plus 50 MB.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/test/test_util.h"

namespace {

struct RunStats {
  int exit_code = -1;
  int64_t peak_rss_bytes = 0;
};

using clada::testing::Sh;

std::string TempDir() { return clada::testing::MakeTempDir("clada_load_"); }

// Runs `clada run ANSWER --root ROOT [extra]` with output discarded.
RunStats RunClada(const std::string& root, const std::string& answer, const std::string& extra = "") {
  pid_t pid = ::fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    std::string b = clada::testing::CladaBinary();
    if (extra.empty()) {
      ::execl(b.c_str(), b.c_str(), "run", answer.c_str(), "--root", root.c_str(), "--quiet", nullptr);
    } else {
      ::execl(b.c_str(), b.c_str(), "run", answer.c_str(), "--root", root.c_str(), "--quiet", extra.c_str(),
              nullptr);
    }
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage;
  ::wait4(pid, &status, 0, &usage);
  RunStats stats;
  stats.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  stats.peak_rss_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  return stats;
}

int64_t MemoryBound(int64_t input_bytes) { return 3 * input_bytes + (50 << 20); }

TEST(Load, TenThousandBlocksInOneAnswer) {
  std::string dir = TempDir();
  std::string root = dir + "/root";
  ASSERT_EQ(Sh("mkdir -p " + root), 0);
  std::string answer;
  for (int i = 0; i < 10000; ++i) {
    absl::StrAppend(&answer, "Block ", i, ":\n#!SHAM [@three-char-SHA-256: b", i, "]\naction = \"file_write\"\npath = \"d",
                    i % 100, "/f", i, ".txt\"\ncontent = \"value ", i, "\"\n#!END_SHAM_b", i, "\n\n");
  }
  std::ofstream(dir + "/answer.md") << answer;
  RunStats stats = RunClada(root, dir + "/answer.md", "--no-git");
  EXPECT_EQ(stats.exit_code, 0);
  std::ifstream last(root + "/d99/f9999.txt");
  std::string content((std::istreambuf_iterator<char>(last)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "value 9999");
  EXPECT_EQ(Sh("test $(find " + root + " -name 'f*.txt' | wc -l) -eq 10000"), 0);
  std::cout << "10,000 blocks (" << answer.size() << " bytes): peak RSS " << (stats.peak_rss_bytes >> 20) << " MB\n";
  EXPECT_LT(stats.peak_rss_bytes, MemoryBound(static_cast<int64_t>(answer.size())));
}

TEST(Load, FiftyMegabyteAnswer) {
  std::string dir = TempDir();
  std::string root = dir + "/root";
  ASSERT_EQ(Sh("mkdir -p " + root), 0);
  std::string line(99, 'x');
  line += '\n';
  std::string body;
  body.reserve(49 << 20);
  while (body.size() < (49u << 20)) body += line;
  std::string answer = absl::StrCat("#!SHAM [@three-char-SHA-256: big]\naction = \"file_write\"\npath = \"big.txt\"\n",
                                    "content = <<'EOT_SHAM_big'\n", body, "EOT_SHAM_big\n#!END_SHAM_big\n");
  ASSERT_LT(answer.size(), 50u << 20);
  std::ofstream(dir + "/answer.md") << answer;
  RunStats stats = RunClada(root, dir + "/answer.md", "--no-git");
  EXPECT_EQ(stats.exit_code, 0);
  EXPECT_EQ(Sh(absl::StrCat("test $(stat -c %s ", root, "/big.txt) -eq ", body.size())), 0);
  std::cout << "50 MB answer: peak RSS " << (stats.peak_rss_bytes >> 20) << " MB\n";
  EXPECT_LT(stats.peak_rss_bytes, MemoryBound(static_cast<int64_t>(answer.size())));

  // One byte more than the limit is refused, not parsed.
  std::ofstream(dir + "/too_big.md") << std::string((50u << 20) + 1, 'x');
  EXPECT_EQ(RunClada(root, dir + "/too_big.md", "--no-git").exit_code, 2);
}

TEST(Load, ThousandRunsOnOneRepositoryWithGit) {
  std::string dir = TempDir();
  std::string root = dir + "/repo";
  ASSERT_EQ(Sh(absl::StrCat("mkdir -p ", root, " && cd ", root,
                            " && git init -q && git config user.name t && git config user.email t@t && "
                            "echo base > base.txt && git add -A && git commit -qm base")),
            0);
  for (int v = 0; v < 2; ++v) {
    std::ofstream(absl::StrCat(dir, "/answer", v, ".md"))
        << "#!SHAM [@three-char-SHA-256: r01]\naction = \"file_write\"\npath = \"state.txt\"\ncontent = \"version " << v
        << "\"\n#!END_SHAM_r01\n";
  }
  constexpr int kRuns = 1000;
  int64_t peak = 0;
  for (int i = 0; i < kRuns; ++i) {
    RunStats stats = RunClada(root, absl::StrCat(dir, "/answer", i % 2, ".md"));
    ASSERT_EQ(stats.exit_code, 0) << "run " << i;
    peak = std::max(peak, stats.peak_rss_bytes);
  }
  // Every run changed state.txt, so every run made exactly one AI commit.
  EXPECT_EQ(Sh(absl::StrCat("cd ", root, " && test $(git log --oneline | grep -c 'AI: ') -eq ", kRuns)), 0);
  EXPECT_EQ(Sh(absl::StrCat("cd ", root, " && git fsck --no-progress >/dev/null 2>&1")), 0);
  EXPECT_EQ(Sh(absl::StrCat("cd ", root, " && test -z \"$(git status --porcelain)\"")), 0);
  EXPECT_NE(Sh(absl::StrCat("test -e ", root, "/.git/index.lock")), 0) << "no leaked git lock";
  std::cout << kRuns << " runs with git: peak RSS " << (peak >> 20) << " MB\n";
  EXPECT_LT(peak, 50 << 20);
}

}  // namespace
