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

namespace clada::git_tx::internal {

struct UndoResult {
  std::string undone_commit;  // 40-hex id of the AI commit taken back
  std::string undone_subject;
  std::string head_commit;  // 40-hex id HEAD points to now
  std::string head_subject;
};

// Moves HEAD (and the work tree and index) back to the parent of the `AI:`
// commit at HEAD. Refuses when HEAD is no AI commit, when anything changed
// since (tracked, staged or untracked: the message lists it), when the
// commit is already on a remote-tracking branch, or while stepped back.
absl::StatusOr<UndoResult> UndoLastBatch(const std::string& working_root);

struct StepResult {
  std::string commit;  // 40-hex id the work tree shows now
  std::string subject;
  bool at_tip = false;  // back on the branch tip, branch re-attached
  std::string branch;   // short branch name
  std::vector<std::string> stashed_files;  // step-back from the tip only
  std::vector<std::string> conflicts;      // step-forward: restore failed
  std::string stash_note;  // where the user's changes are when not restored
};

// One commit back along the first-parent history. From the branch tip the
// user's uncommitted changes (untracked included, ignored files never) are
// stashed first; further steps refuse while anything is changed.
absl::StatusOr<StepResult> StepBack(const std::string& working_root,
                                    const GitOptions& options);

// One commit forward; arriving at the tip re-attaches the branch and
// restores the stash (index included). A conflict while restoring is not an
// error: the result lists the conflicts and the stash is kept.
// FailedPrecondition "already at the tip" when not stepped back.
absl::StatusOr<StepResult> StepForward(const std::string& working_root);

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
  std::string new_head;               // 40-hex
  std::string squash_commit;          // 40-hex id of the combined commit
  std::vector<std::string> squashed;  // 40-hex ids, oldest first
  int replayed = 0;                   // unselected commits rewritten on top
};

// Combines the selected commits of the current branch's first-parent
// history (merge commits end the search) into one commit placed where the
// newest selected commit was; its message keeps every squashed message.
// Unselected commits in between are replayed before it, those after it on
// top; the final tree and the work tree are unchanged. Selection:
//   auto_ai      the run of clada commits (`AI:` and `[clada:pre]`) ending
//                at HEAD;
//   ai_messages  every `AI:` commit;
//   hours/days   commits made within the last N hours/days;
//   msg_contains commits whose message contains msg_target.
// Refuses fewer than two selected commits, a replay conflict (try
// --contiguous-only), and commits reachable from a remote-tracking branch
// unless `force`.
absl::StatusOr<SquashResult> SquashCommits(const std::string& working_root,
                                           const SquashRequest& request,
                                           const GitOptions& options);

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
