// Kills clada (SIGKILL) at random moments while it rewrites large files in
// a git repository, many times over, and checks after every kill that each
// file is wholly old or wholly new, that the user's own change survives (in
// the tree or in the [clada:pre] snapshot), and that the repository is
// consistent (`git fsck`).
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/test/test_util.h"

namespace {

constexpr int kKills = 200;
constexpr size_t kFileBytes = 2 << 20;

using clada::testing::ReadAll;
using clada::testing::Sh;

void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

// A large file body made of one repeated line, distinct per `tag`.
std::string Body(char tag) {
  std::string line = absl::StrCat("line of version ", std::string(1, tag), " ", std::string(40, tag), "\n");
  std::string out;
  while (out.size() < kFileBytes) out += line;
  return out;
}

std::string Answer(char tag) {
  std::string a;
  for (std::string id : {"w1", "w2"}) {
    std::string name = absl::StrCat("big", id.substr(1), ".txt");
    absl::StrAppend(&a, "#!SHAM [@three-char-SHA-256: ", id, "]\naction = \"file_write\"\npath = \"", name,
                    "\"\ncontent = <<'EOT_SHAM_", id, "'\n", Body(tag), "EOT_SHAM_", id, "\n#!END_SHAM_", id,
                    "\n\n");
  }
  return a;
}

// Starts clada on `answer_path`; returns its pid.
pid_t StartClada(const std::string& binary, const std::string& root, const std::string& answer_path) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(binary.c_str(), binary.c_str(), "run", answer_path.c_str(), "--root", root.c_str(), "--quiet",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

TEST(CrashSafety, EveryFileWhollyOldOrNewAfterSigkill) {
  std::string base = clada::testing::MakeTempDir("clada_crash_");
  ASSERT_FALSE(base.empty());
  std::string root = base + "/repo";
  std::string binary = clada::testing::CladaBinary();

  ASSERT_EQ(Sh(absl::StrCat("mkdir -p ", root, " && cd ", root,
                            " && git init -q && git config user.name t && git config user.email t@t")),
            0);
  // What a heredoc of Body(tag) writes: the body without its final newline.
  std::string a = Body('a'), b = Body('b');
  a.pop_back();
  b.pop_back();
  WriteAll(root + "/big1.txt", a);
  WriteAll(root + "/big2.txt", a);
  ASSERT_EQ(Sh(absl::StrCat("cd ", root, " && git add -A && git commit -qm init")), 0);
  // The user's own uncommitted change, which must never be lost.
  const std::string user_change = "the user's own edit\n";
  WriteAll(root + "/user.txt", user_change);

  WriteAll(base + "/answer_a.md", Answer('a'));
  WriteAll(base + "/answer_b.md", Answer('b'));

  // How long one full run takes, to spread the kills over it.
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = StartClada(binary, root, base + "/answer_b.md");
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a full run must succeed first";
  int run_us = static_cast<int>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());

  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> delay(0, run_us);
  int killed_midway = 0;
  for (int i = 0; i < kKills; ++i) {
    const std::string& answer = (i % 2 == 0) ? "/answer_a.md" : "/answer_b.md";
    pid = StartClada(binary, root, base + answer);
    std::this_thread::sleep_for(std::chrono::microseconds(delay(rng)));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) ++killed_midway;
    for (const char* name : {"/big1.txt", "/big2.txt"}) {
      std::string got = ReadAll(root + name);
      ASSERT_TRUE(got == a || got == b) << "kill " << i << ": " << name << " is torn (" << got.size() << " bytes)";
    }
  }
  EXPECT_GT(killed_midway, kKills / 4) << "the kills should mostly land during runs";

  // The user's change is in the tree or in a commit.
  bool in_tree = ReadAll(root + "/user.txt") == user_change;
  bool in_history = Sh(absl::StrCat("cd ", root, " && git log --all -p -- user.txt | grep -q \"the user's own edit\"")) == 0;
  EXPECT_TRUE(in_tree || in_history);
  EXPECT_EQ(Sh(absl::StrCat("cd ", root, " && git fsck --no-progress >/dev/null 2>&1")), 0);
  // Temp files a kill left behind are never committed as the user's work.
  EXPECT_NE(Sh(absl::StrCat("cd ", root, " && git log --all --name-only --format= | grep -q clada-tmp")), 0);
  // A later run still works. A kill inside a git commit can leave one of
  // git's own lock files behind (`.git/index.lock`, or the branch's
  // `refs/heads/<branch>.lock`); clada must then refuse with a message that
  // names the file and says what to do, and work once the user has done it.
  std::string later = absl::StrCat("cd ", root, " && ", binary, " run ", base, "/answer_a.md --quiet 2>", base,
                                   "/later.err >/dev/null");
  int later_status = Sh(later);
  if (WIFEXITED(later_status) && WEXITSTATUS(later_status) == 2) {
    std::string err = ReadAll(base + "/later.err");
    size_t end = err.find(".lock' exists");
    ASSERT_NE(end, std::string::npos) << "a fatal error must name the lock file and say what to do: " << err;
    ASSERT_NE(err.find("delete that file"), std::string::npos) << err;
    size_t begin = err.rfind('\'', end);
    ASSERT_EQ(::unlink(err.substr(begin + 1, end + 5 - begin - 1).c_str()), 0) << err;
    later_status = Sh(later);
  }
  EXPECT_TRUE(WIFEXITED(later_status) && WEXITSTATUS(later_status) == 0)
      << "status " << later_status << ": " << ReadAll(base + "/later.err");
  EXPECT_TRUE(ReadAll(root + "/big1.txt") == a) << "the later run must have written version a";
}

}  // namespace
