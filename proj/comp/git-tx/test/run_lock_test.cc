// RunLock: one clada run per working root, across threads and processes.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

std::string Sh(const std::string& dir, const std::string& cmd) {
  int code = 0;
  std::string out = RunShell(dir, cmd, &code);
  EXPECT_EQ(code, 0) << cmd << ":\n" << out;
  return out;
}

// A forked child that takes the run lock on `root` and holds it until
// Release(), so a test sees the lock held by another process.
class LockHeldByChild {
 public:
  // With `write`, the child also begins a batch that plans and writes that
  // file (a path under `root`) and keeps it open, as a run mid-batch does.
  void Start(const std::string& root, const std::string& write = "") {
    int locked[2], finish[2];
    ASSERT_EQ(::pipe(locked), 0);
    ASSERT_EQ(::pipe(finish), 0);
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::close(finish[1]);
      ::close(locked[0]);
      absl::StatusOr<RunLock> lock = RunLock::Acquire(root, absl::Seconds(5));
      std::unique_ptr<BatchTransaction> batch;
      bool begun = true;
      if (lock.ok() && !write.empty()) {
        absl::StatusOr<std::unique_ptr<BatchTransaction>> tx =
            BeginBatch(root, GitOptions(), BatchPlan{{write}, false});
        begun = tx.ok() && core::WriteFileAtomic(write, "half done\n").ok();
        if (tx.ok()) batch = *std::move(tx);
      }
      char c = lock.ok() && begun ? 'y' : 'n';
      (void)!::write(locked[1], &c, 1);
      (void)!::read(finish[0], &c, 1);  // hold until the parent closes it
      ::_exit(lock.ok() ? 0 : 1);
    }
    ::close(finish[0]);
    ::close(locked[1]);
    finish_ = finish[1];
    char c = 0;
    ASSERT_EQ(::read(locked[0], &c, 1), 1);
    ::close(locked[0]);
    ASSERT_EQ(c, 'y');
  }
  pid_t pid() const { return pid_; }
  // Lets the child go; true when it had the lock and exited cleanly.
  bool Release() {
    if (pid_ <= 0) return false;
    ::close(finish_);
    finish_ = -1;
    int status = 0;
    const bool reaped = ::waitpid(pid_, &status, 0) == pid_;
    pid_ = -1;
    return reaped && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  ~LockHeldByChild() { Release(); }

 private:
  pid_t pid_ = -1;
  int finish_ = -1;
};

TEST(RunLock, SecondAcquireWaitsForTheTimeoutThenFailsClearly) {
  std::string root = MakeTempDir();
  absl::StatusOr<RunLock> first = RunLock::Acquire(root, absl::Seconds(1));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->path(), root + "/.clada/lock");

  const absl::Time start = absl::Now();
  absl::StatusOr<RunLock> second =
      RunLock::Acquire(root, absl::Milliseconds(100));
  ASSERT_FALSE(second.ok());
  EXPECT_GE(absl::Now() - start,
            absl::Milliseconds(100));  // it waited, not failed at once
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
  EXPECT_TRUE(absl::StrContains(
      second.status().message(),
      absl::StrCat("another clada run is working on '", root,
                   "' (the run lock is held by pid ", ::getpid(),
                   "); waited 100ms")))
      << second.status();
  EXPECT_TRUE(absl::StrContains(second.status().message(), "--lock-timeout"));
}

// The pid file names the holder while the lock is held and no one after
// (blanked in place, not removed); a longer file left by something else is
// cut, so no stale text follows the pid.
TEST(RunLock, PidFileNamesTheHolderOnlyWhileHeld) {
  std::string root = MakeTempDir();
  ASSERT_TRUE(core::CreateDirectories(root + "/.clada").ok());
  ASSERT_TRUE(core::WriteFileAtomic(root + "/.clada/lock", std::string(100, '9') + "\n").ok());
  {
    absl::StatusOr<RunLock> lock = RunLock::Acquire(root, absl::Seconds(1));
    ASSERT_TRUE(lock.ok()) << lock.status();
    absl::StatusOr<std::string> held = core::ReadFileToString(root + "/.clada/lock");
    ASSERT_TRUE(held.ok()) << held.status();
    EXPECT_EQ(absl::StripAsciiWhitespace(*held), absl::StrCat(::getpid()));
  }
  absl::StatusOr<std::string> released = core::ReadFileToString(root + "/.clada/lock");
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(absl::StripAsciiWhitespace(*released), "");
}

// Issue 17 #14: an answer's exec can `rm -r .clada` (or replace the lock
// file) while its run holds the lock; a second run must still wait. The
// lock is on the working root directory itself.
TEST(RunLock, DeletingOrReplacingTheLockFileDoesNotReleaseTheLock) {
  std::string root = MakeTempDir();
  LockHeldByChild holder;
  ASSERT_NO_FATAL_FAILURE(holder.Start(root));
  ASSERT_EQ(::unlink((root + "/.clada/lock").c_str()), 0);
  absl::StatusOr<RunLock> second =
      RunLock::Acquire(root, absl::Milliseconds(60));
  EXPECT_FALSE(second.ok()) << "acquired after the lock file was deleted";
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
  // Replaced by a directory, or the whole state directory gone: same.
  ASSERT_EQ(::mkdir((root + "/.clada/lock").c_str(), 0755), 0);
  EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(60)).ok());
  ASSERT_EQ(std::system(("rm -rf '" + root + "/.clada'").c_str()), 0);
  EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(60)).ok());
  EXPECT_TRUE(holder.Release()) << "the child could not take the lock";
  EXPECT_TRUE(RunLock::Acquire(root, absl::Milliseconds(60)).ok());
}

// Issue 16/17: a `.clada/lock` turned into a directory no longer stops
// every later run.
TEST(RunLock, ALockPathTurnedIntoADirectoryDoesNotBlockRuns) {
  std::string root = MakeTempDir();
  ASSERT_TRUE(core::CreateDirectories(root + "/.clada/lock").ok());
  absl::StatusOr<RunLock> lock = RunLock::Acquire(root, absl::Seconds(1));
  EXPECT_TRUE(lock.ok()) << lock.status();
}

TEST(RunLock, WaiterGetsTheLockOnceTheHolderReleasesIt) {
  std::string root = MakeTempDir();
  auto holder = std::make_unique<absl::StatusOr<RunLock>>(
      RunLock::Acquire(root, absl::Seconds(1)));
  ASSERT_TRUE(holder->ok());
  std::atomic<bool> released{false};
  std::thread releaser([&] {
    absl::SleepFor(absl::Milliseconds(150));
    released = true;
    holder.reset();
  });
  absl::StatusOr<RunLock> waiter = RunLock::Acquire(root, absl::Seconds(10));
  EXPECT_TRUE(released.load())
      << "acquired while the first lock was still held";
  EXPECT_TRUE(waiter.ok()) << waiter.status();
  releaser.join();
}

TEST(RunLock, AnotherProcessHoldingTheLockBlocksThisOne) {
  std::string root = MakeTempDir();
  LockHeldByChild holder;
  ASSERT_NO_FATAL_FAILURE(holder.Start(root));
  const pid_t child = holder.pid();

  absl::StatusOr<RunLock> blocked =
      RunLock::Acquire(root, absl::Milliseconds(50));
  ASSERT_FALSE(blocked.ok());
  EXPECT_TRUE(absl::StrContains(blocked.status().message(),
                                absl::StrCat("held by pid ", child)))
      << blocked.status();

  EXPECT_TRUE(holder.Release()) << "the child could not take the lock";
  absl::StatusOr<RunLock> after =
      RunLock::Acquire(root, absl::Milliseconds(50));
  EXPECT_TRUE(after.ok()) << after.status();
}

TEST(RunLock, MovedLockIsReleasedByItsLastOwner) {
  std::string root = MakeTempDir();
  absl::StatusOr<RunLock> lock = RunLock::Acquire(root, absl::Seconds(1));
  ASSERT_TRUE(lock.ok());
  {
    RunLock moved = std::move(*lock);
    EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(20)).ok());
  }
  EXPECT_TRUE(RunLock::Acquire(root, absl::Milliseconds(20)).ok());
}

TEST(RunLock, LockFileIsInvisibleToGit) {
  IsolateGitEnvironment();
  std::string root = MakeTempDir();
  Sh(root, "git init -q -b main");
  absl::StatusOr<RunLock> lock = RunLock::Acquire(root, absl::Seconds(1));
  ASSERT_TRUE(lock.ok());
  EXPECT_EQ(Sh(root, "git status --porcelain"), "");
}

TEST(RunLock, KeepsAnExistingCladaGitignore) {
  std::string root = MakeTempDir();
  ASSERT_TRUE(core::CreateDirectories(root + "/.clada").ok());
  ASSERT_TRUE(
      core::WriteFileAtomic(root + "/.clada/.gitignore", "mine\n").ok());
  ASSERT_TRUE(RunLock::Acquire(root, absl::Seconds(1)).ok());
  EXPECT_EQ(*core::ReadFileToString(root + "/.clada/.gitignore"), "mine\n");
}

TEST(RunLock, MissingWorkingRootIsNotCreated) {
  std::string root = MakeTempDir() + "/missing";
  absl::StatusOr<RunLock> lock = RunLock::Acquire(root, absl::Seconds(1));
  ASSERT_FALSE(lock.ok());
  EXPECT_TRUE(absl::IsNotFound(lock.status())) << lock.status();
  EXPECT_TRUE(absl::StrContains(lock.status().message(),
                                "is not an existing directory"));
  EXPECT_FALSE(core::ReadFileToString(root + "/.clada/lock").ok());
}

// Two whole runs on one repository: with the lock, neither sees the other's
// file as a foreign change, and both AI commits land one after the other.
TEST(RunLock, ConcurrentRunsAreSerialised) {
  IsolateGitEnvironment();
  std::string root = MakeTempDir();
  Sh(root,
     "git init -q -b main && printf 'a\\n' > a.txt && git add . && git commit "
     "-qm init");
  std::vector<absl::StatusOr<BatchCommitResult>> results(
      2, absl::UnknownError("not run"));
  auto run = [&](int i) {
    absl::StatusOr<RunLock> lock = RunLock::Acquire(root, absl::Seconds(20));
    if (!lock.ok()) {
      results[i] = lock.status();
      return;
    }
    std::string path = absl::StrCat(root, "/run", i, ".txt");
    absl::StatusOr<std::unique_ptr<BatchTransaction>> tx =
        BeginBatch(root, GitOptions(), BatchPlan{{path}, false});
    if (!tx.ok()) {
      results[i] = tx.status();
      return;
    }
    (void)core::WriteFileAtomic(path, "x\n");
    absl::SleepFor(absl::Milliseconds(
        100));  // a slow action: the other run would see the file
    ActionRecord record;
    record.action = "file_write";
    record.target = path;
    record.success = true;
    record.touched_paths.mut() = {path};
    results[i] = (*tx)->Finish({record});
  };
  std::thread t0(run, 0), t1(run, 1);
  t0.join();
  t1.join();
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].status();
    EXPECT_TRUE(results[i]->commit_id.has_value()) << results[i]->summary;
    EXPECT_TRUE(results[i]->foreign_changes.empty())
        << results[i]->foreign_changes[0];
  }
  std::string log = Sh(root, "git log --format=%s");
  EXPECT_TRUE(
      log == "AI: write run0.txt (1 ok)\nAI: write run1.txt (1 ok)\ninit\n" ||
      log == "AI: write run1.txt (1 ok)\nAI: write run0.txt (1 ok)\ninit\n")
      << log;
  EXPECT_EQ(Sh(root, "git status --porcelain"), "");
}

// While a `clada run` holds the lock (here a forked child, as in
// AnotherProcessHoldingTheLockBlocksThisOne), the user commands that change
// HEAD or the work tree wait for --lock-timeout, then fail with the lock
// error and change nothing; `clada log` only reads and does not wait.
// Issue 34: the journal and git are the repository's, so a run rooted in a
// subfolder and one at the top must exclude each other too.
TEST(RunLock, RootsInOneRepositoryExcludeEachOther) {
  IsolateGitEnvironment();
  const std::string repo = MakeTempDir();
  Sh(repo, "git init -q -b main && mkdir -p docs app/src && git commit -q --allow-empty -m init");
  const std::string other = MakeTempDir();  // a second repository
  Sh(other, "git init -q -b main");
  for (const auto& [held, wanted] : std::vector<std::pair<std::string, std::string>>{
           {repo, repo + "/docs"}, {repo + "/docs", repo}, {repo + "/docs", repo + "/app/src"}}) {
    SCOPED_TRACE(absl::StrCat(held, " held, ", wanted, " wanted"));
    LockHeldByChild holder;
    ASSERT_NO_FATAL_FAILURE(holder.Start(held));
    absl::StatusOr<RunLock> second = RunLock::Acquire(wanted, absl::Milliseconds(100));
    ASSERT_FALSE(second.ok()) << "a root in the same repository was not locked out";
    EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_TRUE(absl::StrContains(second.status().message(), "another clada run is working in the same git repository"))
        << second.status();
    RunLockKeeper keeper(wanted);
    absl::StatusOr<RunLock> kept = keeper.Acquire(absl::Milliseconds(50));
    EXPECT_FALSE(kept.ok()) << "RunLockKeeper took a root in the same repository";
    // Another repository, and the same root's own lock, are unaffected.
    EXPECT_TRUE(RunLock::Acquire(other, absl::Milliseconds(50)).ok());
    EXPECT_TRUE(holder.Release()) << "the child could not take the lock";
    EXPECT_TRUE(RunLock::Acquire(wanted, absl::Milliseconds(50)).ok());
  }
  // In one process, too (`clada mcp` with two roots of one repository).
  absl::StatusOr<RunLock> top = RunLock::Acquire(repo, absl::Milliseconds(50));
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_FALSE(RunLock::Acquire(repo + "/docs", absl::Milliseconds(50)).ok());
}

// Issue 34: an undo from a subfolder while a run at the top is mid-batch
// waits for it, and never records the live batch as an interrupted one.
TEST(RunLock, ALiveBatchIsNeverRecordedAsInterrupted) {
  IsolateGitEnvironment();
  const std::string repo = MakeTempDir();
  Sh(repo, "git init -q -b main && mkdir docs && printf 'd\\n' > docs/d.md && git add . && git commit -qm init");
  const std::string head = Sh(repo, "git rev-parse HEAD");
  LockHeldByChild run;
  ASSERT_NO_FATAL_FAILURE(run.Start(repo, repo + "/half.txt"));
  ASSERT_EQ(Sh(repo, "test -s .git/clada/journal && echo yes"), "yes\n");
  GitOptions options;
  options.lock_timeout = absl::Milliseconds(100);
  std::ostringstream out, err;
  EXPECT_EQ(RunGitCommand("undo", {}, repo + "/docs", options, out, err), 1) << out.str();
  EXPECT_TRUE(absl::StrContains(err.str(), "another clada run is working in the same git repository")) << err.str();
  EXPECT_EQ(Sh(repo, "git rev-parse HEAD"), head);
  EXPECT_EQ(Sh(repo, "git log --format=%s"), "init\n");
  EXPECT_EQ(Sh(repo, "test -s .git/clada/journal && echo yes"), "yes\n");
  EXPECT_TRUE(run.Release());
}

TEST(RunLock, UserCommandsWaitForARunThenFailClearly) {
  IsolateGitEnvironment();
  std::string root = MakeTempDir();
  Sh(root,
     "git init -q -b main && printf 'a\\n' > a.txt && git add . && git commit "
     "-qm init");
  {  // An AI commit, so that undo and squash would have work to do.
    absl::StatusOr<std::unique_ptr<BatchTransaction>> tx =
        BeginBatch(root, GitOptions(), BatchPlan{{root + "/b.txt"}, false});
    ASSERT_TRUE(tx.ok()) << tx.status();
    ASSERT_TRUE(core::WriteFileAtomic(root + "/b.txt", "b\n").ok());
    ActionRecord record;
    record.action = "file_write";
    record.target = root + "/b.txt";
    record.success = true;
    record.touched_paths.mut() = {record.target};
    absl::StatusOr<BatchCommitResult> done = (*tx)->Finish({record});
    ASSERT_TRUE(done.ok() && done->commit_id) << done.status();
  }
  const std::string head = Sh(root, "git rev-parse HEAD");

  LockHeldByChild holder;
  ASSERT_NO_FATAL_FAILURE(holder.Start(root));
  const pid_t child = holder.pid();

  GitOptions options;
  options.lock_timeout = absl::Milliseconds(200);
  const std::vector<std::vector<std::string>> commands = {
      {"undo"},
      {"step-back"},
      {"step-forward"},
      {"squash", "--mode", "ai_messages"},
  };
  for (const std::vector<std::string>& command : commands) {
    std::ostringstream out, err;
    const absl::Time start = absl::Now();
    const std::vector<std::string> args(command.begin() + 1, command.end());
    int code = RunGitCommand(command[0], args, root, options, out, err);
    EXPECT_GE(absl::Now() - start, absl::Milliseconds(200))
        << command[0] << " did not wait for the lock";
    EXPECT_EQ(code, 1) << command[0] << ": " << err.str();
    EXPECT_EQ(out.str(), "") << command[0];
    EXPECT_EQ(err.str(),
              absl::StrCat("clada ", command[0],
                           ": another clada run is working on '", root,
                           "' (the run lock is held by pid ", child,
                           "); waited 200ms. Let it finish and run again, or "
                           "give a longer --lock-timeout\n"));
    EXPECT_EQ(Sh(root, "git rev-parse HEAD"), head) << command[0];
    EXPECT_EQ(Sh(root, "git status --porcelain"), "") << command[0];
  }
  {  // log does not wait.
    std::ostringstream out, err;
    GitOptions patient;
    patient.lock_timeout = absl::Seconds(30);
    const absl::Time start = absl::Now();
    EXPECT_EQ(RunGitCommand("log", {}, root, patient, out, err), 0)
        << err.str();
    EXPECT_LT(absl::Now() - start, absl::Seconds(10));
    EXPECT_TRUE(absl::StrContains(out.str(), "AI: write b.txt")) << out.str();
  }

  EXPECT_TRUE(holder.Release()) << "the child could not take the lock";
  // Once the run is over, the same command goes ahead.
  std::ostringstream out, err;
  EXPECT_EQ(RunGitCommand("undo", {}, root, options, out, err), 0)
      << err.str();
  EXPECT_NE(Sh(root, "git rev-parse HEAD"), head);
}

}  // namespace
}  // namespace clada::git_tx::testing

namespace clada::git_tx::testing {
namespace {

// The seeds' --lock-file: a second holder waits, then fails naming the
// file; an existing file of the user's is never written.
TEST(RunLockFile, SecondHolderWaitsThenFailsNamingTheFile) {
  std::string dir = MakeTempDir();
  const std::string file = dir + "/shared.lock";
  absl::StatusOr<RunLock> first = RunLock::AcquireFile(file, absl::Seconds(1));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<RunLock> second = RunLock::AcquireFile(file, absl::Milliseconds(50));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
  EXPECT_TRUE(absl::StrContains(second.status().message(),
                                absl::StrCat("another process holds the lock file '", file, "'")))
      << second.status();
  first = RunLock::AcquireFile(dir + "/other.lock", absl::Seconds(1));  // releases shared.lock
  EXPECT_TRUE(RunLock::AcquireFile(file, absl::Milliseconds(50)).ok());
}

TEST(RunLockFile, AnExistingFileIsLockedButNeverWritten) {
  std::string dir = MakeTempDir();
  const std::string file = dir + "/README.md";
  ASSERT_TRUE(core::WriteFileAtomic(file, "keep me\n").ok());
  {
    absl::StatusOr<RunLock> lock = RunLock::AcquireFile(file, absl::Seconds(1));
    ASSERT_TRUE(lock.ok()) << lock.status();
    EXPECT_EQ(lock->path(), "");
  }
  absl::StatusOr<std::string> text = core::ReadFileToString(file, 1024);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "keep me\n");
}

TEST(RunLockFile, MissingDirectoryAndSymlinkAreErrors) {
  std::string dir = MakeTempDir();
  EXPECT_FALSE(RunLock::AcquireFile(dir + "/no/such/dir/lock", absl::Seconds(1)).ok());
  ASSERT_EQ(::symlink((dir + "/target").c_str(), (dir + "/link").c_str()), 0);
  absl::StatusOr<RunLock> link = RunLock::AcquireFile(dir + "/link", absl::Seconds(1));
  EXPECT_FALSE(link.ok());
  struct stat st;
  EXPECT_NE(::lstat((dir + "/target").c_str(), &st), 0) << "the symlink's target was created";
}

}  // namespace
}  // namespace clada::git_tx::testing

namespace clada::git_tx::testing {
namespace {

// What `.clada/lock` says, blanks stripped; "(none)" when it cannot be read.
std::string PidInFile(const std::string& root) {
  absl::StatusOr<std::string> text = core::ReadFileToString(root + "/.clada/lock", 64);
  return text.ok() ? std::string(absl::StripAsciiWhitespace(*text)) : "(none)";
}

// `clada mcp` takes the lock once a tool call through one keeper: every
// acquire still excludes other runs, and waiting ones name its pid.
TEST(RunLockKeeper, EachAcquireTakesTheLockAndNamesItsPid) {
  std::string root = MakeTempDir();
  RunLockKeeper keeper(root);
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<RunLock> held = keeper.Acquire(absl::Seconds(1));
    ASSERT_TRUE(held.ok()) << held.status();
    EXPECT_EQ(held->path(), root + "/.clada/lock");
    absl::StatusOr<RunLock> other = RunLock::Acquire(root, absl::Milliseconds(50));
    ASSERT_FALSE(other.ok()) << "acquire " << i << " did not hold the lock";
    EXPECT_TRUE(
        absl::StrContains(other.status().message(), absl::StrCat("(the run lock is held by pid ", ::getpid(), ")")))
        << other.status();
  }
  // Released with each RunLock, so a run goes ahead between the keeper's.
  EXPECT_TRUE(RunLock::Acquire(root, absl::Milliseconds(50)).ok());
  // And a keeper waits for a run, then fails as a run does.
  absl::StatusOr<RunLock> run = RunLock::Acquire(root, absl::Seconds(1));
  ASSERT_TRUE(run.ok());
  absl::StatusOr<RunLock> waited = keeper.Acquire(absl::Milliseconds(50));
  ASSERT_FALSE(waited.ok());
  EXPECT_TRUE(absl::IsUnavailable(waited.status())) << waited.status();
  EXPECT_TRUE(absl::StrContains(waited.status().message(), "another clada run is working on")) << waited.status();
}

// The keeper flocks the root through the descriptor it kept from the
// acquire before. A second RunLock at once (another thread of the server)
// must still wait for the first: flock(2) is per open file, so it gets a
// descriptor of its own. (A guard for the kept descriptor.)
TEST(RunLockKeeper, TwoRunLocksAtOnceStillExcludeEachOther) {
  std::string root = MakeTempDir();
  RunLockKeeper keeper(root);
  ASSERT_TRUE(keeper.Acquire(absl::Seconds(1)).ok());  // the descriptor is kept from here
  {
    absl::StatusOr<RunLock> first = keeper.Acquire(absl::Seconds(1));
    ASSERT_TRUE(first.ok()) << first.status();
    absl::StatusOr<RunLock> second = keeper.Acquire(absl::Milliseconds(50));
    ASSERT_FALSE(second.ok()) << "two RunLocks of one keeper held the lock at once";
    EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
    EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(50)).ok());
  }
  // Released: both the kept descriptor and a new one lock again, in turn.
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<RunLock> held = keeper.Acquire(absl::Seconds(1));
    ASSERT_TRUE(held.ok()) << held.status();
    EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(50)).ok()) << "acquire " << i;
  }
  EXPECT_TRUE(RunLock::Acquire(root, absl::Milliseconds(50)).ok());
  // Threads taking it in turn through one keeper never overlap.
  std::atomic<int> inside{0}, overlaps{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        absl::StatusOr<RunLock> held = keeper.Acquire(absl::Seconds(10));
        if (!held.ok()) {
          ++overlaps;
          continue;
        }
        if (inside.fetch_add(1) != 0) ++overlaps;
        absl::SleepFor(absl::Microseconds(200));
        inside.fetch_sub(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
}

// A root removed between calls is refused as a run refuses it, and one
// made again at the path is locked.
TEST(RunLockKeeper, ARootRemovedIsNotFoundAndOneMadeAgainIsLocked) {
  std::string parent = MakeTempDir();
  const std::string root = parent + "/root";
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  RunLockKeeper keeper(root);
  ASSERT_TRUE(keeper.Acquire(absl::Seconds(1)).ok());
  ASSERT_EQ(std::system(("rm -rf '" + root + "'").c_str()), 0);
  absl::StatusOr<RunLock> gone = keeper.Acquire(absl::Milliseconds(50));
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(absl::IsNotFound(gone.status())) << gone.status();
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  absl::StatusOr<RunLock> held = keeper.Acquire(absl::Seconds(1));
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(50)).ok()) << "the new directory is not locked";
}

// Its pid stays in the file between its runs (no one reads it unless the
// lock is held) and is blanked when the keeper goes.
TEST(RunLockKeeper, NamesItsPidWhileItLivesAndBlanksItWhenGone) {
  std::string root = MakeTempDir();
  {
    RunLockKeeper keeper(root);
    ASSERT_TRUE(keeper.Acquire(absl::Seconds(1)).ok());
    EXPECT_EQ(PidInFile(root), absl::StrCat(::getpid()));
    absl::StatusOr<std::string> ignore = core::ReadFileToString(root + "/.clada/.gitignore", 4096);
    ASSERT_TRUE(ignore.ok()) << ignore.status();
    EXPECT_TRUE(absl::StrContains(*ignore, "lock\n")) << *ignore;
  }
  EXPECT_EQ(PidInFile(root), "");
  // A keeper that goes while another process holds the lock leaves that
  // holder's pid in the file.
  auto keeper = std::make_unique<RunLockKeeper>(root);
  ASSERT_TRUE(keeper->Acquire(absl::Seconds(1)).ok());
  LockHeldByChild holder;
  ASSERT_NO_FATAL_FAILURE(holder.Start(root));
  keeper.reset();
  EXPECT_EQ(PidInFile(root), absl::StrCat(holder.pid()));
  EXPECT_TRUE(holder.Release());
}

// Whatever happened to `.clada/lock` between its runs (deleted with the
// state directory, replaced, or written and blanked by another run), the
// keeper's next run names it again, and sets the state directory up again.
TEST(RunLockKeeper, WritesThePidAgainAfterTheFileWasDeletedReplacedOrBlanked) {
  std::string root = MakeTempDir();
  RunLockKeeper keeper(root);
  ASSERT_TRUE(keeper.Acquire(absl::Seconds(1)).ok());
  const std::string pid = absl::StrCat(::getpid());

  ASSERT_EQ(std::system(("rm -rf '" + root + "/.clada'").c_str()), 0);
  ASSERT_TRUE(keeper.Acquire(absl::Seconds(1)).ok());
  EXPECT_EQ(PidInFile(root), pid);
  EXPECT_TRUE(core::ReadFileToString(root + "/.clada/.gitignore", 4096).ok()) << "state directory not set up again";

  ASSERT_TRUE(core::WriteFileAtomic(root + "/.clada/lock", "12345\n").ok());  // a new inode
  ASSERT_TRUE(keeper.Acquire(absl::Seconds(1)).ok());
  EXPECT_EQ(PidInFile(root), pid);

  ASSERT_TRUE(RunLock::Acquire(root, absl::Seconds(1)).ok());  // another run: writes, then blanks in place
  EXPECT_EQ(PidInFile(root), "");
  {
    absl::StatusOr<RunLock> held = keeper.Acquire(absl::Seconds(1));
    ASSERT_TRUE(held.ok());
    EXPECT_EQ(PidInFile(root), pid);
    // Deleting the state directory while held releases nothing.
    ASSERT_EQ(std::system(("rm -rf '" + root + "/.clada'").c_str()), 0);
    EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(50)).ok());
  }
  EXPECT_TRUE(RunLock::Acquire(root, absl::Milliseconds(50)).ok());
}

// The lock is on the directory the path names at each acquire, as a run's
// is: a working root replaced by another directory between its runs is
// locked, not the old one.
TEST(RunLockKeeper, LocksTheDirectoryThePathNamesNow) {
  std::string parent = MakeTempDir();
  const std::string root = parent + "/root";
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  RunLockKeeper keeper(root);
  ASSERT_TRUE(keeper.Acquire(absl::Seconds(1)).ok());
  ASSERT_EQ(::rename(root.c_str(), (parent + "/old").c_str()), 0);
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  absl::StatusOr<RunLock> held = keeper.Acquire(absl::Seconds(1));
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_FALSE(RunLock::Acquire(root, absl::Milliseconds(50)).ok()) << "the new directory is not locked";
  EXPECT_EQ(PidInFile(root), absl::StrCat(::getpid()));
  EXPECT_TRUE(RunLock::Acquire(parent + "/old", absl::Milliseconds(50)).ok());
}

}  // namespace
}  // namespace clada::git_tx::testing
