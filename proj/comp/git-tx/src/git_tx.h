// git-tx: every clada batch is a git transaction the user can undo, and no
// user change is ever lost.
//
// Around a `clada run` the orchestrator takes the run lock, opens a batch
// (which commits the user's uncommitted work as a `[clada:pre] <time>`
// snapshot), runs the actions, then finishes the batch (which commits what
// the actions changed as `AI: <summary>` and leaves anything changed
// meanwhile by someone else uncommitted). There is no automatic rollback:
// the user undoes a batch with `clada undo`, looks at older states with
// `clada step-back` / `clada step-forward`, tidies history with
// `clada squash` and reviews it with `clada log`. Everything uses libgit2;
// no `git` process is started.
//
// Example:
//   ASSIGN_OR_RETURN(clada::git_tx::RunLock lock,
//                    clada::git_tx::RunLock::Acquire(root, absl::Seconds(10)));
//   ASSIGN_OR_RETURN(std::unique_ptr<clada::git_tx::BatchTransaction> tx,
//                    clada::git_tx::BeginBatch(root, options));
//   std::vector<clada::git_tx::ActionRecord> records = RunActions(...);
//   ASSIGN_OR_RETURN(clada::git_tx::BatchCommitResult result,
//   tx->Finish(records)); if (result.commit_id) std::cout << "committed " <<
//   *result.commit_id;
#ifndef CLADA_PROJ_COMP_GIT_TX_SRC_GIT_TX_H_
#define CLADA_PROJ_COMP_GIT_TX_SRC_GIT_TX_H_

#include <sys/stat.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/rare.h"

namespace clada::git_tx {

// How clada uses git (`--git=auto|require`, `--no-git`, `--git-author`).
struct GitOptions {
  // kAuto: use git when the working root is inside a work tree, else run
  // without it (one note says so). kOff: never touch git. kRequire: a root
  // outside a work tree is an error.
  enum class Mode { kAuto, kOff, kRequire };
  Mode mode = Mode::kAuto;
  std::string author_name = "clada";  // author and committer of every commit
  std::string author_email = "clada@localhost";
  // How long RunGitCommand waits for the run lock (`--lock-timeout`) before
  // undo, step-back, step-forward or squash.
  absl::Duration lock_timeout = absl::Seconds(10);
};

// One executed action, as the orchestrator reports it to Finish.
struct ActionRecord {
  std::string block_id;
  std::string action;  // schema name, e.g. "file_write"
  std::string target;  // what the action was about, e.g. a path
  bool success = false;
  // Canonical absolute paths the action created, changed or removed; a
  // directory covers everything below it. Rare (a pointer, empty when none):
  // a batch of hundreds of thousands of actions holds a record for each.
  core::Rare<std::vector<std::string>> touched_paths;
  // The action may have changed any file (e.g. `exec`): every change in the
  // work tree is then attributed to the batch.
  bool touches_anything = false;
  // The reason the answer gave for the action (a replacer block's
  // EXPLANATION): written under the action in the commit's body. "" none.
  core::Rare<std::string> explanation;
};

// What Finish committed.
struct BatchCommitResult {
  std::optional<std::string> commit_id;  // 40-hex id of the `AI:` commit
  // Canonical absolute paths changed during the batch by someone other than
  // the batch (an editor saving meanwhile): left uncommitted.
  std::vector<std::string> foreign_changes;
  // Canonical absolute paths committed only because a record
  // touches_anything (e.g. `exec`): under no record's touched_paths, so a
  // change someone else made meanwhile (an editor saving) cannot be told
  // apart from the action's own and is in the commit. Empty when nothing
  // was committed.
  std::vector<std::string> unattributed_changes;
  // Canonical absolute paths of files git ignores that the batch changed
  // (an answer editing `.env`): in no commit clada makes, their old bytes
  // kept under refs/clada/ignored/ so `clada undo` still takes the change
  // back.
  std::vector<std::string> ignored_uncommitted;
  // Canonical absolute paths of files git ignores, outside the plan, that
  // changed (change time at or after BeginBatch) in a batch that ran exec:
  // in no commit, and their old bytes were never kept (every ignored file
  // before every exec would cost too much: node_modules, build output), so
  // `clada undo` cannot give them back; reported. A file the exec deleted
  // is not seen.
  std::vector<std::string> exec_changed_ignored;
  // HEAD moved on during the batch (its code ran `git commit`, or someone
  // else committed): "<old> -> <new>" short ids. The AI commit records it
  // and `clada undo` takes the batch back to <old>, those commits included.
  // "" when HEAD stayed.
  std::string head_moved;
  // The commit's subject ("AI: write a.txt (1 ok)"), or why there is none.
  std::string summary;
};

// One batch of actions inside a git work tree. Created by BeginBatch;
// Finish may be called once. Not thread-safe.
namespace internal {
struct BatchState;
}
class BatchTransaction {
 public:
  // Use BeginBatch.
  explicit BatchTransaction(std::unique_ptr<internal::BatchState> state);
  ~BatchTransaction();
  BatchTransaction(const BatchTransaction&) = delete;
  BatchTransaction& operator=(const BatchTransaction&) = delete;

  // False when git is off or (mode auto) the root is outside a work tree:
  // Finish then commits nothing.
  bool active() const;

  // 40-hex id of the `[clada:pre]` snapshot commit, if one was made (by
  // BeginBatch for a dirty tree, or by Finish as the empty first commit of
  // a repository that had none).
  std::optional<std::string> snapshot_commit() const;

  // Things the user should be told once, e.g.
  // "not inside a git work tree: running without git".
  const std::vector<std::string>& notes() const;

  // Commits what the batch changed as `AI: <summary>`, with a body listing
  // every record (action, target, ok/failed, block) and any path left
  // uncommitted. A change belongs to the batch when it lies at or below one
  // of the records' touched_paths (or any record touches_anything); every
  // other change made since BeginBatch is reported in foreign_changes and
  // left in the work tree. Nothing changed by the batch: no commit,
  // commit_id empty. The index is updated for the committed paths only.
  // Errors: FailedPrecondition when called twice or when a merge/rebase was
  // started meanwhile; Unavailable when the index is locked; Aborted when
  // HEAD moved while committing; Internal for other libgit2 failures. The
  // message says what to do. On error nothing is committed and no file is
  // changed.
  absl::StatusOr<BatchCommitResult> Finish(
      const std::vector<ActionRecord>& records);

 private:
  std::unique_ptr<internal::BatchState> state_;
};

// Paths packed in buffers of 1 MB, read back as views. A batch of a
// million one-line deletes held each planned path as a string (64 to 96
// bytes with its heap block); here a path costs its bytes and one offset,
// and no buffer is ever copied to grow (one that doubled held three times
// the paths for a moment).
class PathList {
 public:
  PathList() = default;
  PathList(std::initializer_list<std::string> paths) {
    for (const std::string& p : paths) push_back(p);
  }
  void push_back(absl::string_view path) {
    if (chunks_.empty() || (!chunks_.back().empty() && chunks_.back().size() + path.size() > kChunkBytes)) {
      chunks_.emplace_back().reserve(std::max(kChunkBytes, path.size()));
    }
    chunks_.back().append(path.data(), path.size());
    ends_.push_back({chunks_.size() - 1, chunks_.back().size()});
  }
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  absl::string_view operator[](size_t i) const {
    const End& end = ends_[i];
    // A path starts where the one before it ends, unless that one is in
    // an earlier buffer: then at the start of its own.
    const size_t begin = i > 0 && ends_[i - 1].chunk == end.chunk ? ends_[i - 1].offset : 0;
    return absl::string_view(chunks_[end.chunk]).substr(begin, end.offset - begin);
  }

  class const_iterator {
   public:
    const_iterator(const PathList* list, size_t i) : list_(list), i_(i) {}
    absl::string_view operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const const_iterator& other) const { return i_ != other.i_; }
    bool operator==(const const_iterator& other) const { return i_ == other.i_; }

   private:
    const PathList* list_;
    size_t i_;
  };
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, ends_.size()); }

 private:
  static constexpr size_t kChunkBytes = 1 << 20;
  struct End {
    size_t chunk : 24;   // 16 million buffers of 1 MB
    size_t offset : 40;  // within it
  };
  std::vector<std::string> chunks_;
  std::vector<End> ends_;
};

// What a batch is about to do, known before any action runs.
struct BatchPlan {
  // Canonical paths the batch's valid actions will write, move or delete
  // (each `format: path` / `multiline_paths` parameter of a write action,
  // resolved), absolute or relative to the working root given to
  // BeginBatch ("" is the root itself: a million paths under a long root
  // then do not each hold it); a directory covers everything below it. An untracked
  // file at or below one of them is kept in the `[clada:pre]` snapshot, an
  // ignored one under refs/clada/ignored/ (never in a commit), so its old
  // bytes can come back with `clada undo`.
  PathList paths;
  // The batch runs an exec: any file may change.
  bool has_exec = false;
};

// Opens a batch on the work tree that contains `working_root`. Nothing is
// committed yet: BeginBatch records the state before the batch (the
// snapshot tree: HEAD plus the user's changes to tracked files, plus the
// untracked or ignored files at or below plan.paths; the index as it is; and
// for an exec, every untracked file) and writes the batch's journal
// (`<gitdir>/clada/journal`). Finish commits that state as
// `[clada:pre] <ISO 8601 time>` only if the batch changed something. An
// empty plan without exec reads only: no journal, and Finish commits
// nothing. A journal left by a clada that was killed is first recorded as
// an `AI: interrupted batch` commit (with a note), so `clada undo` can take
// it back.
// Returns an inactive transaction for Mode::kOff, or for kAuto outside a
// work tree (with a note).
// Errors (each message says what to do; the orchestrator treats them as
// fatal before any action runs):
//   InvalidArgument  working_root does not exist, or author is empty;
//   FailedPrecondition  outside a work tree with kRequire; a merge, rebase,
//     cherry-pick, revert, bisect or `git am` in progress; unresolved
//     conflicts in the index; the tree stepped back by `clada step-back`;
//   Unavailable  `.git/index.lock` exists (another git process, or a crash);
//   Internal  a corrupt repository or another libgit2 failure.
absl::StatusOr<std::unique_ptr<BatchTransaction>> BeginBatch(
    const std::string& working_root, const GitOptions& options,
    const BatchPlan& plan);

class RunLockKeeper;

// Serialises clada processes on one working root with flock(2) on the
// working root directory itself (an action can remove any file in it, not
// the directory it runs in), and then, when the root is inside a git
// repository, on its git directory (which holds the batch journal and the
// index): runs rooted in different folders of one repository exclude each
// other too. Always the root first, then the repository, so two runs never
// wait for each other crosswise. The holder's pid is written to
// `<working_root>/.clada/lock` (created with a `.clada/.gitignore` that
// hides it from git) for the message a waiting process prints. Works with
// or without git. Released when destroyed.
class RunLock {
 public:
  // Waits up to `timeout` for the lock, polling every 20 ms.
  // Errors: Unavailable when another process (or another RunLock in this
  // process) still holds it, or the repository's, after `timeout`: the
  // message names the holder's pid (or the git directory) and how to proceed; NotFound when working_root is not an existing
  // directory; PermissionDenied / Internal when the root cannot be opened
  // (a `.clada/lock` that cannot be written only loses the pid).
  static absl::StatusOr<RunLock> Acquire(const std::string& working_root,
                                         absl::Duration timeout);

  // flock(2) on `lock_file` (created when missing, never written, never
  // removed): the seeds' --lock-file, for serialising clada with other
  // tools or several roots. Waits up to `timeout`, polling every 20 ms.
  // Errors: Unavailable when still held after `timeout` (the message names
  // the file and --lock-timeout); the errno errors of open(2) otherwise
  // (a symlink is refused: ELOOP).
  static absl::StatusOr<RunLock> AcquireFile(const std::string& lock_file, absl::Duration timeout);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

  // Absolute path of the pid file (`.clada/lock`); "" for AcquireFile.
  const std::string& path() const { return path_; }

 private:
  friend class RunLockKeeper;
  RunLock(int fd, std::string path, int pid_fd = -1, RunLockKeeper* keeper = nullptr, int repo_fd = -1)
      : fd_(fd), path_(std::move(path)), pid_fd_(pid_fd), keeper_(keeper), repo_fd_(repo_fd) {}
  void Release();

  int fd_ = -1;
  std::string path_;
  int pid_fd_ = -1;  // the pid file, open from Acquire to Release; -1: none (or the keeper's)
  RunLockKeeper* keeper_ = nullptr;  // fd_ is its kept descriptor: unlocked on release, not closed
  int repo_fd_ = -1;  // the flocked git directory of the root's repository; -1: none
};

// The run lock of one working root for a process that takes it again and
// again (`clada mcp`: once a tool call), keeping what does not change
// between its runs. Each Acquire takes flock(2) on the working root, as
// RunLock::Acquire does, on the directory the path names now (the one a
// `clada run` there locks): through the descriptor kept from the acquire
// before when a stat(2) of the path shows the same directory (device and
// inode) and no RunLock holds it, else through a new one, as
// RunLock::Acquire (the first time, after the root was replaced, and for
// a second RunLock at once, which must exclude the first: flock(2) is per
// open file). Its release unlocks the kept descriptor (LOCK_UN) instead of
// closing it. The state directory is set up, and the pid file opened and
// written, only the first time, and again when `.clada/lock` is no longer
// the file this keeper last wrote: deleted, replaced, or written by
// another run since (one fstatat(2) tells, by inode and change time). Its
// pid stays in the file between its runs (a waiting process reads it only
// while the lock is held, and every holder writes its own pid once it
// holds the lock), and is blanked when the keeper is destroyed, if the
// lock is free then (a holder's pid is left). Thread-safe; a RunLock it
// gave must not outlive it.
class RunLockKeeper {
 public:
  explicit RunLockKeeper(std::string working_root);
  ~RunLockKeeper();
  RunLockKeeper(const RunLockKeeper&) = delete;
  RunLockKeeper& operator=(const RunLockKeeper&) = delete;

  // As RunLock::Acquire(working_root(), timeout), same errors.
  absl::StatusOr<RunLock> Acquire(absl::Duration timeout);

  const std::string& working_root() const { return root_; }

 private:
  friend class RunLock;
  // The root's lock alone (Acquire then takes the repository's).
  absl::StatusOr<RunLock> AcquireRoot(absl::Duration timeout);
  // With the lock held on `root_fd`: makes `.clada/lock` name this process.
  void NotePid(int root_fd);
  // A RunLock lets go of the kept descriptor, unlocked; closed here when
  // the unlock failed (closing drops the lock).
  void Return(int root_fd, bool unlocked);

  const std::string root_;
  std::mutex mu_;
  std::string gitdir_;      // the repository's git directory found last; "": none yet
  int pid_fd_ = -1;         // the pid file last written; -1: none
  struct stat written_ {};  // its fstat(2) after that write
  int root_fd_ = -1;        // the root's descriptor kept between acquires; -1: none
  struct stat root_id_ {};  // its fstat(2): the directory it is
  bool lent_ = false;       // a RunLock holds root_fd_ now
};

// Runs a user command on the work tree containing `working_root`:
//   undo          undo HEAD if it is an `AI:` commit and no file it changed
//                 was edited since (other edits stay as they are);
//   step-back     move the work tree one commit back along the branch's
//                 first-parent history (HEAD detached, branch untouched);
//                 the first step stashes uncommitted and untracked changes;
//   step-forward  move one commit forward; arriving at the tip re-attaches
//                 the branch and restores the stashed changes byte for byte;
//   squash        --mode auto_ai|ai_messages|hours N|days N|msg_contains TEXT
//                 [--message M] [--contiguous-only] [--force];
//   log           [-n N] [--json] the recent AI batches (commit, time,
//                 summary; --json: an array of {commit, time, subject, kind}).
// Every command but log first takes the RunLock of `working_root`, waiting
// up to options.lock_timeout, so it never interleaves with a `clada run`;
// log only reads committed history and does not wait.
// Prints results on `out`, refusals and errors on `err` (one line each,
// saying what to do; a lock timeout is one). Returns 0 done, 1 refused or
// failed (lock timeout included), 2 usage error.
int RunGitCommand(const std::string& name, const std::vector<std::string>& args,
                  const std::string& working_root, const GitOptions& options,
                  std::ostream& out, std::ostream& err);

// Keeps files that clada itself writes outside any batch (the listener's
// chat FILE and its `.clada-output-latest.txt`) out of snapshots, AI
// commits and the "changed since" checks of undo and step-back, by listing
// each absolute path in `paths` that git does not track yet in the
// repository's own `info/exclude` (local to the clone, never committed).
// A tracked path is left alone (the user chose to commit it), and so is one
// already ignored or outside the work tree. Returns the repo-relative paths
// it listed; empty when options.mode is kOff, or kAuto outside a work tree.
// Errors: Internal for a repository that cannot be read, or an exclude file
// that cannot be written (nothing half-written: the file is replaced whole).
absl::StatusOr<std::vector<std::string>> ExcludeFromCommits(
    const std::string& working_root, const std::vector<std::string>& paths,
    const GitOptions& options);

// The git tools of the action schema: {"undo", "git_step_back",
// "git_step_forward", "git_squash"}.
const std::vector<std::string>& GitActionNames();

// Runs one git tool on ctx.paths.working_root with default GitOptions, the
// same logic as RunGitCommand. git_squash params: mode (required: auto_ai,
// ai_messages, hours, days, msg_contains), message, hours, days, msg_target,
// contiguous_only. Success data: undo {undone_commit, head}; steps {commit,
// at_tip, stashed_files | conflicts}; squash {commit, squashed, replayed}.
// A refusal is success == false with an error saying why and what to do.
core::ActionOutcome ExecuteGitAction(const core::Action& action,
                                     const core::ExecContext& ctx);

}  // namespace clada::git_tx

#endif  // CLADA_PROJ_COMP_GIT_TX_SRC_GIT_TX_H_
