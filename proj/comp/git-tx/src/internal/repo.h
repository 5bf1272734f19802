// Repository helpers shared by the batch transaction and the user commands:
// opening the work tree around a working root, refusing repositories in the
// middle of another git operation, listing changed paths, commit lookup and
// formatting, the step-back state file and safe checkouts.
//
// Example:
//   ASSIGN_OR_RETURN(WorkTree wt, OpenRequiredWorkTree("/home/me/proj"));
//   RETURN_IF_ERROR(CheckNoGitOperationInProgress(wt));
//   ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
#ifndef CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_REPO_H_
#define CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_REPO_H_

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"

namespace clada::git_tx::internal {

// A repository opened for the work tree that contains a working root.
struct WorkTree {
  RepositoryPtr repo;
  std::string workdir;   // canonical, no trailing slash
  std::string gitdir;    // no trailing slash
  std::string root;      // the canonical working root
  std::string root_rel;  // working root relative to workdir; "" at the top
};

// realpath(3) of `working_root`.
// Errors: InvalidArgument when it does not exist or is not a directory.
absl::StatusOr<std::string> CanonicalRoot(const std::string& working_root);

// Opens the repository whose work tree contains `canonical_root`.
// Returns nullopt when there is none (no repository, a bare one, or the root
// lies inside the .git directory). Errors: Internal for a repository that
// exists but cannot be opened (corrupt config, bad HEAD, ...).
absl::StatusOr<std::optional<WorkTree>> OpenWorkTree(
    const std::string& canonical_root);

// OpenWorkTree for commands that need git.
// Errors: InvalidArgument (bad root), FailedPrecondition ("not inside a git
// work tree"), Internal.
absl::StatusOr<WorkTree> OpenRequiredWorkTree(const std::string& working_root);

// Refuses a repository that another git operation is using: a merge,
// rebase, cherry-pick, revert, bisect or `git am` in progress
// (FailedPrecondition), `.git/index.lock` present (Unavailable), or
// unresolved conflicts in the index (FailedPrecondition). Messages say
// which git command finishes or aborts the operation.
absl::Status CheckNoGitOperationInProgress(const WorkTree& wt);

// Repo-relative path of clada's run lock for this working root; it is never
// reported as a change, snapshotted or committed.
std::string LockRelPath(const WorkTree& wt);

// A path that differs between HEAD, the index and the work tree.
struct ChangedPath {
  std::string path;     // repo-relative, '/'-separated; a trailing '/' marks
                        // an untracked nested repository
  unsigned int status;  // git_status_t bits
};

// What an index entry keeps of a file's stat, as git stores it (32 bits
// each): 36 bytes, where a struct stat takes 144 and a batch may hold a
// hundred thousand changes.
struct IndexStat {
  int32_t ctime_s = 0;
  uint32_t ctime_ns = 0;
  int32_t mtime_s = 0;
  uint32_t mtime_ns = 0;
  uint32_t dev = 0, ino = 0, uid = 0, gid = 0, size = 0;
};
IndexStat IndexStatOf(const struct stat& st);

// One path's bytes in the work tree, as git stores them: a blob and mode,
// or its absence.
struct TreeChange {
  std::string path;     // repo-relative
  bool remove = false;  // absent (or a directory)
  git_oid id{};
  git_filemode_t mode = GIT_FILEMODE_BLOB;
  IndexStat st;  // taken before hashing, for the index entry
};

// Every changed path (staged, unstaged, untracked; never ignored; submodules
// excluded), sorted, without the run lock.
absl::StatusOr<std::vector<ChangedPath>> ListChangedPaths(const WorkTree& wt);

// "M a.txt, ?? b/c.txt, D d.txt" (porcelain-style codes), at most `max`
// entries then "and N more".
std::string DescribeChanges(const std::vector<ChangedPath>& changed,
                            size_t max = 10);

// Author/committer "now" from the options.
// Errors: InvalidArgument for an empty or malformed name/email.
absl::StatusOr<SignaturePtr> MakeSignature(const GitOptions& options);

// The commit HEAD points to, or nullptr when the branch is unborn.
absl::StatusOr<CommitPtr> HeadCommit(git_repository* repo);

// The commit with id `oid`. Errors: NotFound, Internal.
absl::StatusOr<CommitPtr> LookupCommit(git_repository* repo,
                                       const git_oid& oid);

// The first parent of `commit`, or nullptr for a root commit.
absl::StatusOr<CommitPtr> FirstParent(const git_commit* commit);

// First line of a commit message.
std::string Subject(const git_commit* commit);

// Commit message prefixes written by BatchTransaction.
inline constexpr absl::string_view kAiPrefix = "AI: ";
inline constexpr absl::string_view kSnapshotPrefix = "[clada:pre]";
bool IsAiCommit(const git_commit* commit);
bool IsSnapshotCommit(const git_commit* commit);

// Trailers clada writes at the end of its commit messages:
//   Clada-Batch: <id>   on the snapshot and the AI commit of one batch (a
//                       recovered journal recognises a batch already
//                       committed by it);
//   Clada-Index: <tree> on a snapshot: the index before the batch, which
//                       `clada undo` puts back (kept reachable by
//                       refs/clada/index/<snapshot> when no commit holds it).
inline constexpr absl::string_view kBatchTrailer = "Clada-Batch: ";
inline constexpr absl::string_view kIndexTrailer = "Clada-Index: ";
inline constexpr absl::string_view kIndexRefPrefix = "refs/clada/index/";
// refs/clada/ignored/<batch id>: the ignored files a batch changed, before
// and after, for `clada undo` (they are in no commit).
inline constexpr absl::string_view kIgnoredRefPrefix = "refs/clada/ignored/";
// On a `clada squash` commit: how many clada commits it folds.
inline constexpr absl::string_view kSquashTrailer = "Clada-Squash: ";
// A commit clada made: `AI:`, `[clada:pre]`, or a squash of them.
bool IsCladaCommit(const git_commit* commit);
// A 40-hex object id. Errors: Internal naming `field`.
absl::StatusOr<git_oid> ParseOid(const std::string& hex, absl::string_view field);

// The value of trailer `key` (e.g. kBatchTrailer) in `commit`'s message, or
// "" when it has none.
std::string Trailer(const git_commit* commit, absl::string_view key);

// ISO 8601 with offset, like `date -Iseconds`: now in the local zone, or a
// commit's committer time in the commit's own zone.
std::string IsoTimeNow();
std::string IsoCommitTime(const git_commit* commit);

// Where `clada step-back` left the work tree; kept in the git directory.
struct StepState {
  std::string branch;            // full ref name, e.g. "refs/heads/main"
  git_oid tip;                   // branch tip when the first step was taken
  git_oid position;              // commit the work tree shows now
  std::optional<git_oid> stash;  // the stash holding the user's changes
  std::vector<std::string> stashed_files;
};

// Path of the step state file (<gitdir>/clada-step.json).
std::string StepStatePath(const WorkTree& wt);
// Errors: Internal for an unreadable or malformed file.
absl::StatusOr<std::optional<StepState>> LoadStepState(const WorkTree& wt);
absl::Status SaveStepState(const WorkTree& wt, const StepState& state);
absl::Status RemoveStepState(const WorkTree& wt);

// True when `state` describes the repository now: HEAD detached at
// state.position.
absl::StatusOr<bool> IsSteppedBack(const WorkTree& wt, const StepState& state);

// FailedPrecondition when the work tree is stepped back by `clada
// step-back` (operations on the branch must wait until step-forward
// returns to the tip).
absl::Status CheckNotSteppedBack(const WorkTree& wt);

// Shorthand name of a remote-tracking branch (refs/remotes/*) from which
// `oid` is reachable, or nullopt.
absl::StatusOr<std::optional<std::string>> RemoteBranchContaining(
    git_repository* repo, const git_oid& oid);

// Moves the work tree from tree `from` (what it shows now; nullptr: empty)
// to `to`, path by path where they differ, writing the blobs' raw bytes
// (no smudge filter: `.gitattributes` eol rules and core.autocrlf never
// change them) through core's atomic write, and removing what `to` lacks
// (with the directories that leaves empty). First every such path is
// checked with the raw bytes (git's own checkout hashes the work tree
// through the clean filters, so a file written raw could look changed,
// and a changed one clean): the work tree must hold `from`'s or already
// `to`'s version, `index` (if given) must stage one of them, and no file
// may sit where a directory goes. Otherwise nothing is written and the
// conflicting paths are returned (never an untracked or ignored file
// overwritten). Then `index`'s entries for those paths become
// `index_tree`'s (nullptr: `to`'s), with the written file's stat where
// the blob is the one written; the caller writes the index.
// Writes blob `id`'s raw bytes at absolute path `full` (through core's
// atomic write; a link made as a symlink; parents created), replacing what
// is there, with the exec bits `mode` says.
absl::Status WriteBlobExact(git_repository* repo, const std::string& full,
                            const git_oid& id, git_filemode_t mode);

// With `check_only` it stops after the check: the conflicts are returned
// and nothing is written, in the work tree or the index.
absl::StatusOr<std::vector<std::string>> MoveWorkTreeExact(
    git_repository* repo, const git_tree* from, const git_tree* to, git_index* index,
    const git_tree* index_tree, bool check_only = false);

// Checks out `target`'s tree over HEAD's through MoveWorkTreeExact (the
// work tree holding anything but HEAD's or the target's version of a path
// that differs is a conflict, as GIT_CHECKOUT_SAFE with ignored files never
// overwritten), and updates the index. HEAD is not moved.
// Errors: FailedPrecondition listing the conflicting paths (nothing is
// changed then); Internal for other failures. With `check_only` nothing is
// written either way: the same check, so a dry run predicts the real one.
absl::Status CheckoutCommitSafely(git_repository* repo,
                                  const git_commit* target, bool check_only = false);

// git_checkout_notify_cb appending each conflicting path to the
// std::vector<std::string> passed as payload.
int CollectCheckoutConflict(git_checkout_notify_t why, const char* path,
                            const git_diff_file*, const git_diff_file*,
                            const git_diff_file*, void* payload);

// The ignored files AI commit `ai` changed (kept under kIgnoredRefPrefix
// with its Clada-Batch id, never committed) must still hold what the batch
// left there for undo to put back their old bytes. FailedPrecondition
// naming those the user changed since; OK when the batch changed none.
absl::Status CheckIgnoredUnchanged(const WorkTree& wt, const git_commit* ai);
// Puts back the old bytes and mode of each ignored file `ai` changed (one
// the batch created is removed), each write atomic, then drops the ref.
// Returns the paths restored.
absl::StatusOr<std::vector<std::string>> RestoreIgnored(const WorkTree& wt,
                                                        const git_commit* ai);
// The paths RestoreIgnored(wt, ai) would restore, in its order; nothing
// written (`clada undo --dry-run`).
absl::StatusOr<std::vector<std::string>> IgnoredToRestore(const WorkTree& wt, const git_commit* ai);

// Whether a clean or smudge filter (`.gitattributes` text/eol/ident, in
// the index, the work tree, info/attributes or the user's or system's
// attributes file, or core.autocrlf) may apply to some path: when not,
// git's status, which hashes files through those filters, sees the raw
// bytes. `changed`: the paths status listed (an untracked .gitattributes
// counts).
bool FiltersMayApply(const WorkTree& wt, git_index* index,
                     const std::vector<ChangedPath>& changed);

// Whether a filter applies to `path` (git_filter_list_load).
bool PathIsFiltered(git_repository* repo, const std::string& path);

// The git blob id of work tree path `rel`'s raw bytes (a symlink's
// target), without writing the object. `st`: its lstat(2).
absl::StatusOr<git_oid> RawHash(const WorkTree& wt, const std::string& rel,
                                const struct stat& st);

// Tracked paths (index entries) that git's status counts as unchanged
// though their raw bytes differ from the index's blob: a filter makes them
// hash alike (a CR LF file under `text=auto`). Only entries at or below
// one of `under` (repo-relative; "" is everything), and none of `listed`.
// Empty at once when no filter may apply.
absl::StatusOr<std::vector<std::string>> CleanOnlyThroughFilters(
    const WorkTree& wt, git_index* index, const std::vector<ChangedPath>& changed,
    const std::vector<std::string>& under);

// Joins a repo-relative path to the work tree.
std::string WorkdirPath(const WorkTree& wt, absl::string_view rel);

// Whether git can hold what lstat(2) found: a file or a symlink. A named
// pipe, socket or device is treated as absent, as git treats it (git add
// refuses it), and is never opened: opening a pipe blocks until a writer
// comes.
inline bool GitCanHold(const struct stat& st) { return S_ISREG(st.st_mode) || S_ISLNK(st.st_mode); }

// Writes the bytes of work tree path `rel` into the object database as a
// blob, exactly as they are on disk: no clean filter (`.gitattributes`
// text/eol rules, core.autocrlf, ident) is applied, where
// git_blob_create_from_workdir would turn CR LF into LF. A symlink's blob
// is its target, as git stores it. `st` is its lstat(2).
// Errors: FailedPrecondition (code `not_a_file`) when it is not a file or a
// link (GitCanHold), then or by the time it is opened; the errno errors of
// reading it; Internal for libgit2 failures.
absl::StatusOr<git_oid> RawBlobFromWorkdir(const WorkTree& wt,
                                           const std::string& rel,
                                           const struct stat& st);

}  // namespace clada::git_tx::internal

#endif  // CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_REPO_H_
