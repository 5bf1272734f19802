// Kills clada (SIGKILL) at random moments while it rewrites large files in
// a git repository, until at least 200 kills have ended a run, and checks
// after every kill that:
// - each rewritten file is wholly old or wholly new;
// - the user's edit made just before that run (fresh bytes every time) is
//   never lost: it is still in the work tree or in a `[clada:pre]` snapshot;
// - every commit that run made (a `[clada:pre]` snapshot, or the `AI:`
//   commit on top of it) holds exactly that edit, byte for byte; a batch
//   a killed run left in its journal is recorded by the next run as
//   `AI: interrupted batch` (over its own snapshot), holding that earlier
//   run's edit;
// - a lock file the kill left in `.git` stops the next run before anything
//   runs, with a message naming the file and what to do.
// At the end every snapshot is still in the branch history, `git fsck` is
// clean and a normal run works.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "proj/test/test_util.h"

namespace {

constexpr int kKillsNeeded = 200;
// Bounds the loop: most kills land in a run; this many would mean they do not.
constexpr int kMaxIterations = 800;
// Every this many iterations the run is left to finish: its commits are
// checked like the others, and its time spreads the next kills over a
// whole run however the machine's load changes.
constexpr int kFinishEvery = 8;
constexpr size_t kFileBytes = 2 << 20;

using clada::testing::ReadAll;
using clada::testing::Sh;
using clada::testing::ShellQuote;

void WriteAll(const std::string& path, const std::string& data) { std::ofstream(path, std::ios::binary) << data; }

// Standard output of `cmd` run by /bin/sh.
std::string Capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = ::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
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
                    "\"\ncontent = <<'EOT_SHAM_", id, "'\n", Body(tag), "EOT_SHAM_", id, "\n#!END_SHAM_", id, "\n\n");
  }
  return a;
}

// Starts clada on `answer_path`, stderr to `err_path`; returns its pid.
pid_t StartClada(const std::string& binary, const std::string& root, const std::string& answer_path,
                 const std::string& err_path) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_RDWR);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(devnull, 1);
    ::dup2(err >= 0 ? err : devnull, 2);
    ::execl(binary.c_str(), binary.c_str(), "run", answer_path.c_str(), "--root", root.c_str(), "--quiet",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

TEST(CrashSafety, SigkillNeverTearsAFileNorLosesTheUsersEdit) {
  std::string base = clada::testing::MakeTempDir("clada_crash_");
  ASSERT_FALSE(base.empty());
  std::string root = base + "/repo";
  std::string binary = clada::testing::CladaBinary();
  const std::string git = absl::StrCat("cd ", ShellQuote(root), " && git ");

  ASSERT_EQ(Sh(absl::StrCat("mkdir -p ", root, " && cd ", root,
                            " && git init -q -b main && git config user.name t && git config user.email t@t")),
            0);
  // What a heredoc of Body(tag) writes: the body, its lines each ending in a newline.
  std::string a = Body('a'), b = Body('b');
  WriteAll(root + "/big1.txt", a);
  WriteAll(root + "/big2.txt", a);
  WriteAll(root + "/user.txt", "committed before the test\n");
  ASSERT_EQ(Sh(git + "add -A && git commit -qm init"), 0);

  WriteAll(base + "/answer_a.md", Answer('a'));
  WriteAll(base + "/answer_b.md", Answer('b'));
  const std::string err_path = base + "/run.err";
  // The lock files git-tx refuses to run over (repo.cc).
  const std::vector<std::string> git_locks = {root + "/.git/index.lock", root + "/.git/HEAD.lock",
                                              root + "/.git/refs/heads/main.lock"};

  auto micros_since = [](std::chrono::steady_clock::time_point t0) {
    return static_cast<int>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
  };
  // How long one full run takes, to spread the kills over it.
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = StartClada(binary, root, base + "/answer_b.md", err_path);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a full run must succeed first: " << ReadAll(err_path);
  int run_us = micros_since(t0);

  std::mt19937 rng(12345);
  int kills = 0, finished = 0, snapshots = 0, ai_commits = 0, locks_left = 0, iterations = 0;
  int interrupted_commits = 0;
  std::vector<std::string> snapshot_ids;
  std::vector<std::string> earlier_edits;
  for (int i = 0; i < kMaxIterations && kills < kKillsNeeded; ++i) {
    iterations = i + 1;
    // The user's fresh edit, different bytes every time (size too).
    const std::string edit = absl::StrCat("user edit ", i, " ", rng(), "\n", std::string(i % 97, 'u'), "\n");
    WriteAll(root + "/user.txt", edit);
    const std::string before = Capture(git + "rev-parse HEAD");
    ASSERT_EQ(before.size(), 41u) << "iteration " << i << ": " << before;

    const std::string& answer = (i % 2 == 0) ? "/answer_a.md" : "/answer_b.md";
    const bool let_finish = i % kFinishEvery == kFinishEvery - 1;
    t0 = std::chrono::steady_clock::now();
    pid = StartClada(binary, root, base + answer, err_path);
    if (!let_finish) {
      // A random moment of a run, a little past its usual end at times.
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % (run_us + run_us / 5 + 1)));
      ::kill(pid, SIGKILL);
    }
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    if (let_finish) run_us = micros_since(t0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
      ++kills;
    } else {
      ++finished;
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "iteration " << i << ": a run that was not killed must succeed (status " << status
          << "): " << ReadAll(err_path);
    }

    for (const char* name : {"/big1.txt", "/big2.txt"}) {
      std::string got = ReadAll(root + name);
      ASSERT_TRUE(got == a || got == b) << "iteration " << i << ": " << name << " is torn (" << got.size() << " bytes)";
    }

    // Every commit of this run holds the user's edit of this run, except
    // those that record the batch a killed earlier run left in its journal
    // (`AI: interrupted batch` and the snapshot below it): they hold the
    // edit of that earlier run.
    bool in_snapshot = false;
    bool below_interrupted = false;
    const int ai_commits_before = ai_commits;
    for (absl::string_view line :
         absl::StrSplit(Capture(absl::StrCat(git, "log --format='%H %s' ", before.substr(0, 40), "..HEAD")), '\n',
                        absl::SkipEmpty())) {
      std::string id(line.substr(0, 40));
      bool is_snapshot = absl::StartsWith(line.substr(41), "[clada:pre]");
      bool interrupted = absl::StartsWith(line.substr(41), "AI: interrupted batch");
      ASSERT_TRUE(is_snapshot || absl::StartsWith(line.substr(41), "AI: "))
          << "iteration " << i << ": unexpected commit " << line;
      std::string committed = Capture(absl::StrCat(git, "cat-file blob ", id, ":user.txt"));
      // A run killed while recording an earlier batch, between its snapshot
      // and its AI commit: the journal still names that batch, and the next
      // run puts the AI commit on top.
      const std::string message = Capture(absl::StrCat(git, "show -s --format=%B ", id));
      const size_t trailer = message.find("Clada-Batch: ");
      const bool pending_recovery =
          is_snapshot && trailer != std::string::npos &&
          absl::StrContains(ReadAll(root + "/.git/clada/journal"),
                            message.substr(trailer + 13, message.find('\n', trailer) - trailer - 13));
      if (interrupted || (is_snapshot && below_interrupted) || (pending_recovery && committed != edit)) {
        ASSERT_TRUE(std::find(earlier_edits.begin(), earlier_edits.end(), committed) != earlier_edits.end())
            << "iteration " << i << ": commit " << line << " records an interrupted batch but holds no earlier user edit";
        ++interrupted_commits;
        below_interrupted = interrupted;
        continue;
      }
      below_interrupted = false;
      ASSERT_EQ(committed, edit) << "iteration " << i << ": commit " << line
                                 << " does not hold this run's user edit byte for byte";
      if (is_snapshot) {
        ++snapshots;
        in_snapshot = true;
        snapshot_ids.push_back(id);
      } else {
        ++ai_commits;
      }
    }
    earlier_edits.push_back(edit);
    // A whole run that committed its batch snapshots the edit below it (a
    // batch that changed nothing commits nothing, and the edit stays in the
    // work tree).
    if (let_finish && ai_commits > ai_commits_before) {
      ASSERT_TRUE(in_snapshot) << "iteration " << i << ": a finished run made an AI commit but no [clada:pre] snapshot";
    }
    // The edit is never lost: clada never writes user.txt, and a snapshot
    // (checked above) holds it whole.
    ASSERT_TRUE(ReadAll(root + "/user.txt") == edit || in_snapshot) << "iteration " << i << ": the user's edit is lost";

    // A lock file the kill left must stop the next run before anything
    // runs, naming the file; the user then deletes it, as told.
    for (int tries = 0; tries < 4; ++tries) {
      bool any = false;
      for (const std::string& lock : git_locks) any = any || Exists(lock);
      if (!any) break;
      ++locks_left;
      pid = StartClada(binary, root, base + answer, err_path);
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      std::string err = ReadAll(err_path);
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2)
          << "iteration " << i << ": a run over a stale git lock must stop (status " << status << "): " << err;
      size_t end = err.find(".lock' exists");
      ASSERT_NE(end, std::string::npos) << "a fatal error must name the lock file and say what to do: " << err;
      ASSERT_NE(err.find("delete that file"), std::string::npos) << err;
      size_t begin = err.rfind('\'', end);
      ASSERT_EQ(::unlink(err.substr(begin + 1, end + 5 - begin - 1).c_str()), 0) << err;
    }
  }
  std::cout << "crash safety: " << kills << " runs killed, " << finished << " finished first, in " << iterations
            << " iterations (a full run takes " << run_us / 1000 << " ms); " << snapshots << " snapshots and "
            << ai_commits << " AI commits checked, " << interrupted_commits
            << " commits of interrupted batches recorded by the next run; " << locks_left << " stale git lock(s) reported and removed\n";
  ASSERT_GE(kills, kKillsNeeded) << "only " << kills << " of " << iterations << " kills landed during a run";
  // The checks above ran on commits: they must have been there to check.
  EXPECT_GT(snapshots, 0);
  EXPECT_GT(ai_commits, 0);

  // No snapshot was lost from the branch by a later run: grep finds no id
  // missing from the history (exit 1).
  if (!snapshot_ids.empty()) {
    WriteAll(base + "/snapshots", absl::StrJoin(snapshot_ids, "\n") + "\n");
    int missing = Sh(absl::StrCat(git, "rev-list HEAD > ", base, "/history && grep -vxFf ", base, "/history ", base,
                                  "/snapshots > ", base, "/missing"));
    EXPECT_TRUE(WIFEXITED(missing) && WEXITSTATUS(missing) == 1)
        << "[clada:pre] snapshots no longer in the branch history:\n"
        << ReadAll(base + "/missing");
  }
  EXPECT_EQ(Sh(git + "fsck --no-progress >/dev/null 2>&1"), 0);
  // Temp files a kill left behind are never committed as the user's work.
  EXPECT_NE(Sh(git + "log --all --name-only --format= | grep -q clada-tmp"), 0);
  // A later run still works.
  std::string later = absl::StrCat("cd ", root, " && ", binary, " run ", base, "/answer_a.md --quiet 2>", base,
                                   "/later.err >/dev/null");
  int later_status = Sh(later);
  EXPECT_TRUE(WIFEXITED(later_status) && WEXITSTATUS(later_status) == 0)
      << "status " << later_status << ": " << ReadAll(base + "/later.err");
  EXPECT_TRUE(ReadAll(root + "/big1.txt") == a) << "the later run must have written version a";
}

}  // namespace
