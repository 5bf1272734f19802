// `clada undo`: taking back the last AI batch while nothing changed since.
#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/internal/commands.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx::internal {

absl::StatusOr<UndoResult> UndoLastBatch(const std::string& working_root) {
  ASSIGN_OR_RETURN(WorkTree wt, OpenRequiredWorkTree(working_root));
  git_repository* repo = wt.repo.get();
  RETURN_IF_ERROR(CheckNoGitOperationInProgress(wt));
  RETURN_IF_ERROR(CheckNotSteppedBack(wt));
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(repo));
  if (head == nullptr) {
    return absl::FailedPreconditionError(
        "nothing to undo: the branch has no commits yet");
  }
  const git_oid head_id = *git_commit_id(head.get());
  if (!IsAiCommit(head.get())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "nothing to undo: HEAD ", ShortOid(head_id), " '", Subject(head.get()),
        "' is not an AI commit (clada undo only takes back the last batch, and "
        "only while it is "
        "the newest commit)"));
  }
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
  if (!changed.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to undo ", ShortOid(head_id),
        ": files changed since that AI commit (", DescribeChanges(changed),
        "). Commit them, or move them aside, then run `clada undo` again"));
  }
  ASSIGN_OR_RETURN(std::optional<std::string> remote,
                   RemoteBranchContaining(repo, head_id));
  if (remote) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to undo ", ShortOid(head_id), ": it is already on ", *remote,
        " and undoing would rewrite published history; use `git revert ",
        ShortOid(head_id), "` instead"));
  }
  ASSIGN_OR_RETURN(CommitPtr parent, FirstParent(head.get()));
  if (parent == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("refusing to undo ", ShortOid(head_id),
                     ": it is the first commit of the branch"));
  }
  // Work tree and index first: a conflict (an ignored file in the way)
  // stops here with nothing changed.
  RETURN_IF_ERROR(CheckoutCommitSafely(repo, parent.get()));
  const git_oid* parent_id = git_commit_id(parent.get());
  std::string reflog =
      absl::StrCat("clada undo: back to ", ShortOid(*parent_id));
  int detached = git_repository_head_detached(repo);
  if (detached == 1) {
    RETURN_IF_ERROR(GitStatus(git_repository_set_head_detached(repo, parent_id),
                              "move HEAD"));
  } else {
    git_reference* head_ref = nullptr;
    RETURN_IF_ERROR(
        GitStatus(git_repository_head(&head_ref, repo), "read HEAD"));
    ReferencePtr owned(head_ref);
    git_reference* moved = nullptr;
    RETURN_IF_ERROR(GitStatus(
        git_reference_set_target(&moved, head_ref, parent_id, reflog.c_str()),
        absl::StrCat("move ", git_reference_shorthand(head_ref), " back to ",
                     ShortOid(*parent_id),
                     " (the work tree already shows it; retry `clada "
                     "undo`, or `git reset --hard ",
                     ShortOid(*parent_id), "`)")));
    ReferencePtr owned_moved(moved);
  }
  UndoResult r;
  r.undone_commit = OidHex(head_id);
  r.undone_subject = Subject(head.get());
  r.head_commit = OidHex(*parent_id);
  r.head_subject = Subject(parent.get());
  return r;
}

}  // namespace clada::git_tx::internal
