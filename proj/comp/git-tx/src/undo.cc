// `clada undo`: taking back the last AI batch while nothing changed since,
// and putting the tree back exactly as it was before that batch's run.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/internal/commands.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx::internal {
namespace {

// Paths that differ between two commits' trees.
absl::StatusOr<std::vector<std::string>> ChangedBetween(git_repository* repo,
                                                        const git_commit* a,
                                                        const git_commit* b) {
  git_tree *ta = nullptr, *tb = nullptr;
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&ta, a), "read a tree"));
  TreePtr owned_a(ta);
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&tb, b), "read a tree"));
  TreePtr owned_b(tb);
  git_diff* diff = nullptr;
  RETURN_IF_ERROR(GitStatus(git_diff_tree_to_tree(&diff, repo, ta, tb, nullptr),
                            "compare trees"));
  std::vector<std::string> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff, i);
    out.push_back(d->new_file.path ? d->new_file.path : d->old_file.path);
  }
  git_diff_free(diff);
  return out;
}

// Checks that checking out `target` over the work tree (HEAD = the AI
// commit) overwrites nothing of the user's: an untracked or ignored file
// where the snapshot has one. FailedPrecondition listing them.
absl::Status CheckCheckout(git_repository* repo, const git_commit* target) {
  git_checkout_options opts;
  RETURN_IF_ERROR(
      GitStatus(git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION),
                "initialise checkout options"));
  std::vector<std::string> conflicts;
  opts.checkout_strategy = GIT_CHECKOUT_SAFE |
                           GIT_CHECKOUT_DONT_OVERWRITE_IGNORED |
                           GIT_CHECKOUT_DRY_RUN;
  opts.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
  opts.notify_cb = CollectCheckoutConflict;
  opts.notify_payload = &conflicts;
  int rc = git_checkout_tree(repo, reinterpret_cast<const git_object*>(target),
                             &opts);
  if (rc == GIT_ECONFLICT || (rc < 0 && !conflicts.empty()) ||
      !conflicts.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "undoing would overwrite ", absl::StrJoin(conflicts, ", "),
        ", which the batch had removed and which exists again (untracked or "
        "ignored). Move it aside, then run `clada undo` again"));
  }
  return GitStatus(rc, "check the undo");
}

}  // namespace

absl::StatusOr<UndoResult> UndoLastBatch(const std::string& working_root,
                                         const GitOptions& options,
                                         bool dry_run) {
  ASSIGN_OR_RETURN(WorkTree wt, OpenRequiredWorkTree(working_root));
  git_repository* repo = wt.repo.get();
  RETURN_IF_ERROR(CheckNoGitOperationInProgress(wt));
  RETURN_IF_ERROR(CheckNotSteppedBack(wt));
  UndoResult r;
  r.dry_run = dry_run;
  if (HasJournal(wt)) {
    if (dry_run) {
      r.notes.push_back(
          "the last clada run was interrupted mid-batch: a real undo first "
          "records what it changed as an `AI: interrupted batch` commit and "
          "takes that back; this dry run shows the commit on top now");
    } else {
      ASSIGN_OR_RETURN(std::vector<std::string> notes,
                       RecoverInterruptedBatch(wt.root, options));
      r.notes = std::move(notes);
    }
  }
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
        "only while it is the newest commit)"));
  }
  // Untracked files the user made since are left alone (checked below only
  // where the undo would write); anything else changed is refused.
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
  changed.erase(std::remove_if(changed.begin(), changed.end(),
                               [](const ChangedPath& c) {
                                 return c.status == GIT_STATUS_WT_NEW;
                               }),
                changed.end());
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
  // The batch's own snapshot (same Clada-Batch trailer) is folded back
  // into uncommitted changes: HEAD returns to the commit below it and the
  // index to what it was.
  const std::string batch = Trailer(head.get(), kBatchTrailer);
  const bool fold = IsSnapshotCommit(parent.get()) && !batch.empty() &&
                    Trailer(parent.get(), kBatchTrailer) == batch;
  CommitPtr new_head;
  std::optional<git_oid> index_tree;
  if (fold) {
    ASSIGN_OR_RETURN(new_head, FirstParent(parent.get()));
    std::string hex = Trailer(parent.get(), kIndexTrailer);
    absl::StatusOr<git_oid> id = ParseOid(hex, "index tree");
    git_object* obj = nullptr;
    if (id.ok() && git_object_lookup(&obj, repo, &*id, GIT_OBJECT_TREE) == 0) {
      git_object_free(obj);
      index_tree = *id;
    } else if (new_head != nullptr) {
      index_tree = *git_commit_tree_id(new_head.get());
    }
  } else {
    ASSIGN_OR_RETURN(new_head, LookupCommit(repo, *git_commit_id(parent.get())));
  }
  RETURN_IF_ERROR(CheckCheckout(repo, parent.get()));
  ASSIGN_OR_RETURN(r.restored, ChangedBetween(repo, head.get(), parent.get()));
  r.undone_commit = OidHex(head_id);
  r.undone_subject = Subject(head.get());
  r.snapshot_folded = fold;
  if (new_head != nullptr) {
    r.head_commit = OidHex(*git_commit_id(new_head.get()));
    r.head_subject = Subject(new_head.get());
  }
  if (fold) {
    ASSIGN_OR_RETURN(std::vector<std::string> own,
                     new_head != nullptr
                         ? ChangedBetween(repo, new_head.get(), parent.get())
                         : absl::StatusOr<std::vector<std::string>>(
                               std::vector<std::string>()));
    r.uncommitted = std::move(own);
  }
  if (dry_run) return r;

  // Work tree and index first: the snapshot's files (the AI's changes gone,
  // the user's own and the untracked files the batch changed back).
  RETURN_IF_ERROR(CheckoutCommitSafely(repo, parent.get()));
  if (fold && index_tree) {
    git_index* index = nullptr;
    RETURN_IF_ERROR(GitStatus(git_repository_index(&index, repo), "open the index"));
    IndexPtr owned_index(index);
    git_tree* tree = nullptr;
    RETURN_IF_ERROR(GitStatus(git_tree_lookup(&tree, repo, &*index_tree),
                              "read the index before the batch"));
    TreePtr owned_tree(tree);
    RETURN_IF_ERROR(GitStatus(git_index_read_tree(index, tree),
                              "restore the index before the batch"));
    RETURN_IF_ERROR(GitStatus(git_index_write(index), "write the index"));
  } else if (fold) {
    // Back to an unborn branch: nothing was staged but what the index held.
    git_index* index = nullptr;
    RETURN_IF_ERROR(GitStatus(git_repository_index(&index, repo), "open the index"));
    IndexPtr owned_index(index);
    RETURN_IF_ERROR(GitStatus(git_index_clear(index), "clear the index"));
    RETURN_IF_ERROR(GitStatus(git_index_write(index), "write the index"));
  }
  const std::string reflog = absl::StrCat(
      "clada undo: back to ",
      new_head ? ShortOid(*git_commit_id(new_head.get())) : "an unborn branch");
  int detached = git_repository_head_detached(repo);
  if (detached == 1 && new_head != nullptr) {
    RETURN_IF_ERROR(GitStatus(
        git_repository_set_head_detached(repo, git_commit_id(new_head.get())),
        "move HEAD"));
  } else {
    git_reference* head_ref = nullptr;
    RETURN_IF_ERROR(
        GitStatus(git_repository_head(&head_ref, repo), "read HEAD"));
    ReferencePtr owned(head_ref);
    if (new_head == nullptr) {
      RETURN_IF_ERROR(GitStatus(git_reference_delete(head_ref),
                                "return the branch to its unborn state"));
    } else {
      const git_oid* target = git_commit_id(new_head.get());
      git_reference* moved = nullptr;
      RETURN_IF_ERROR(GitStatus(
          git_reference_set_target(&moved, head_ref, target, reflog.c_str()),
          absl::StrCat("move ", git_reference_shorthand(head_ref), " back to ",
                       ShortOid(*target),
                       " (the work tree already shows it; retry `clada "
                       "undo`, or `git reset --hard ",
                       ShortOid(*target), "`)")));
      ReferencePtr owned_moved(moved);
    }
  }
  if (fold) {
    git_reference* ref = nullptr;
    const std::string name =
        absl::StrCat(kIndexRefPrefix, OidHex(*git_commit_id(parent.get())));
    if (git_reference_lookup(&ref, repo, name.c_str()) == 0) {
      (void)git_reference_delete(ref);
      git_reference_free(ref);
    }
  }
  return r;
}

}  // namespace clada::git_tx::internal
