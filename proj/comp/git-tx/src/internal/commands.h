// The user commands behind RunGitCommand and ExecuteGitAction, with
// structured results; the front ends only parse arguments and format.
//
// Every function opens the work tree containing `working_root` and refuses
// (FailedPrecondition, message saying what to do) rather than risk a user
// change. InvalidArgument means a malformed request (exit code 2).
//
// Example:
//   ASSIGN_OR_RETURN(UndoResult r, UndoLastBatch("/home/me/proj"));
//   std::cout << "undid " << r.undone_commit;
#ifndef CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_COMMANDS_H_
#define CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_COMMANDS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx::internal {

// Trailers of an AI commit whose batch's code moved HEAD (`git commit` in an
// exec): where HEAD was at BeginBatch, and the batch's snapshot, made on
// that commit off the branch and kept by refs/clada/snapshot/<snapshot>.
// `clada undo` takes the batch back to the first, the commits made during
// the batch included.
inline constexpr absl::string_view kMovedFromTrailer = "Clada-Moved-From: ";
inline constexpr absl::string_view kSnapshotTrailer = "Clada-Snapshot: ";
inline constexpr absl::string_view kSnapshotRefPrefix = "refs/clada/snapshot/";

struct UndoResult {
  std::string undone_commit;  // 40-hex id of the AI commit taken back
  std::string undone_subject;
  std::string head_commit;  // 40-hex id HEAD points to now; "" unborn
  std::string head_subject;
  bool snapshot_folded = false;  // the batch's [clada:pre] undone too
  std::vector<std::string> restored;     // paths the undo rewrites
  std::vector<std::string> uncommitted;  // the user's, uncommitted again
  std::vector<std::string> notes;
  bool dry_run = false;  // nothing was changed
};

// Puts the tree back exactly as it was before the batch of the `AI:` commit
// at HEAD: the work tree shows the batch's `[clada:pre]` snapshot (the AI's
// changes gone, the user's own and the untracked files the batch changed
// back), the index is the one recorded in that snapshot, and HEAD returns to
// the commit below the snapshot (a batch without a snapshot: below the AI
// commit). A journal left by a killed run is first recorded as an
// `AI: interrupted batch` commit, which is then the one undone. Refuses when
// HEAD is no AI commit, when a tracked file changed since (the message lists
// it), when the undo would overwrite an untracked or ignored file, when the
// commit is already on a remote-tracking branch, or while stepped back.
// With `dry_run` it checks everything and returns what it would do.
absl::StatusOr<UndoResult> UndoLastBatch(const std::string& working_root,
                                         const GitOptions& options,
                                         bool dry_run);

// A journal of an interrupted batch exists (<gitdir>/clada/journal).
bool HasJournal(const WorkTree& wt);

// Records the batch a killed clada left in its journal as an
// `AI: interrupted batch` commit (its snapshot below it) and removes the
// journal. Returns the notes to show the user; empty without a journal.
absl::StatusOr<std::vector<std::string>> RecoverInterruptedBatch(
    const std::string& canonical_root, const GitOptions& options);

struct StepResult {
  std::string commit;  // 40-hex id the work tree shows now
  std::string subject;
  bool at_tip = false;  // back on the branch tip, branch re-attached
  std::string branch;   // short branch name
  std::vector<std::string> stashed_files;  // step-back from the tip only
  std::vector<std::string> conflicts;      // step-forward: restore failed
  std::string stash_note;  // where the user's changes are when not restored
  bool dry_run = false;    // nothing was changed: where a step would go
};

// One commit back along the first-parent history. From the branch tip the
// user's uncommitted changes (untracked included, ignored files never) are
// stashed first; further steps refuse while anything is changed.
// With `dry_run`, checks everything and says where the step would go (and
// what it would stash), changing nothing.
absl::StatusOr<StepResult> StepBack(const std::string& working_root,
                                    const GitOptions& options, bool dry_run);

// One commit forward; arriving at the tip re-attaches the branch and
// restores the stash (index included). A conflict while restoring is not an
// error: the result lists the conflicts and the stash is kept.
// FailedPrecondition "already at the tip" when not stepped back.
absl::StatusOr<StepResult> StepForward(const std::string& working_root,
                                       bool dry_run);

enum class SquashMode { kAutoAi, kAiMessages, kHours, kDays, kMsgContains };

// InvalidArgument for an unknown name; names as in the schema.
absl::StatusOr<SquashMode> ParseSquashMode(absl::string_view name);

struct SquashRequest {
  SquashMode mode = SquashMode::kAutoAi;
  int64_t hours = 0;       // kHours: committed within the last N hours
  int64_t days = 0;        // kDays: committed within the last N days
  std::string msg_target;  // kMsgContains: message contains this text
  std::optional<std::string> message;  // subject of the squashed commit
  bool contiguous_only = false;  // only the newest unbroken run of matches
  bool force = false;            // rewrite commits on remote-tracking branches
};

struct SquashResult {
  bool dry_run = false;               // nothing was changed
  std::vector<std::string> notes;     // e.g. where the search stopped
  std::string new_head;               // 40-hex
  std::string squash_commit;          // 40-hex id of the combined commit
  std::vector<std::string> squashed;  // 40-hex ids, oldest first
  int replayed = 0;                   // unselected commits rewritten on top
};

// Combines the selected clada commits of the current branch's first-parent
// history into one commit placed where the newest selected commit was; its
// message keeps every squashed message. Only clada's own commits (`AI:`,
// `[clada:pre]`, earlier squashes) are candidates: the search stops at the
// first commit that is not clada's (or a merge), so a user's commit is never
// rewritten, re-authored or dropped. A `[clada:pre]` snapshot (the user's
// uncommitted work) is never selected: it stays a commit of its own below
// the combined one, so `clada undo` of the squash never takes it back
// (a snapshot that cannot move below it refuses the squash). Unselected clada commits in between
// are replayed before it, those after it on top; the final tree and the work
// tree are unchanged. Selection:
//   auto_ai      the run of clada commits ending at HEAD;
//   ai_messages  every `AI:` commit;
//   hours/days   commits authored within the last N hours/days;
//   msg_contains commits whose message contains msg_target.
// Refuses fewer than two selected commits (naming the user's commit the
// search stopped at), a replay conflict (try --contiguous-only), and
// commits reachable from a remote-tracking branch unless `force`. With
// `dry_run` nothing is changed (only unreferenced objects are written).
absl::StatusOr<SquashResult> SquashCommits(const std::string& working_root,
                                           const SquashRequest& request,
                                           const GitOptions& options,
                                           bool dry_run);

struct BatchLogEntry {
  std::string commit;  // 40-hex
  std::string time;    // ISO 8601 committer time
  std::string subject;
  bool snapshot = false;  // a `[clada:pre]` commit rather than an `AI:` one
};

// The newest `limit` clada commits on HEAD's first-parent history, newest
// first. An unborn branch gives an empty list.
absl::StatusOr<std::vector<BatchLogEntry>> ListRecentBatches(
    const std::string& working_root, int limit);

}  // namespace clada::git_tx::internal

#endif  // CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_COMMANDS_H_
