// `clada undo`: taking back the last AI batch while nothing changed since,
// and putting the tree back exactly as it was before that batch's run.
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/internal/commands.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx::internal {
namespace {

// Paths that differ between two trees (nullptr: the empty tree).
absl::StatusOr<std::vector<std::string>> ChangedBetweenTrees(
    git_repository* repo, git_tree* a, git_tree* b) {
  git_diff* diff = nullptr;
  RETURN_IF_ERROR(GitStatus(git_diff_tree_to_tree(&diff, repo, a, b, nullptr),
                            "compare trees"));
  std::vector<std::string> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff, i);
    out.push_back(d->new_file.path ? d->new_file.path : d->old_file.path);
  }
  git_diff_free(diff);
  return out;
}

// The tree of `commit`; an empty pointer for nullptr (an unborn branch).
absl::StatusOr<TreePtr> CommitTree(const git_commit* commit) {
  if (commit == nullptr) return TreePtr();
  git_tree* t = nullptr;
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&t, commit), "read a tree"));
  return TreePtr(t);
}

// Paths that differ between two commits' trees (nullptr: unborn).
absl::StatusOr<std::vector<std::string>> ChangedBetween(git_repository* repo,
                                                        const git_commit* a,
                                                        const git_commit* b) {
  ASSIGN_OR_RETURN(TreePtr ta, CommitTree(a));
  ASSIGN_OR_RETURN(TreePtr tb, CommitTree(b));
  return ChangedBetweenTrees(repo, ta.get(), tb.get());
}

// Sets the index entries of `paths` to what `tree` holds (removed where it
// holds nothing, or `tree` is nullptr); the rest of the index, the user's
// staging since the batch, is kept.
absl::Status RestoreIndexEntries(git_repository* repo, git_tree* tree,
                                 const std::set<std::string>& paths) {
  git_index* index = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_index(&index, repo), "open the index"));
  IndexPtr owned_index(index);
  for (const std::string& path : paths) {
    git_tree_entry* entry = nullptr;
    if (tree != nullptr &&
        git_tree_entry_bypath(&entry, tree, path.c_str()) == 0 &&
        git_tree_entry_type(entry) == GIT_OBJECT_BLOB) {
      git_index_entry e{};
      e.path = path.c_str();
      e.mode = git_tree_entry_filemode(entry);
      e.id = *git_tree_entry_id(entry);
      int rc = git_index_add(index, &e);
      git_tree_entry_free(entry);
      RETURN_IF_ERROR(GitStatus(rc, absl::StrCat("restore ", path, " in the index")));
      continue;
    }
    if (entry != nullptr) git_tree_entry_free(entry);
    int rc = git_index_remove_bypath(index, path.c_str());
    RETURN_IF_ERROR(GitStatus(rc, absl::StrCat("restore ", path, " in the index")));
  }
  return GitStatus(git_index_write(index), "write the index");
}

// The value of the first `key` trailer line in `commit`'s message (a
// squash keeps the squashed messages oldest first), or "".
std::string FirstTrailer(const git_commit* commit, absl::string_view key) {
  const char* m = git_commit_message(commit);
  if (m == nullptr) return "";
  absl::string_view msg(m);
  size_t at = msg.find(absl::StrCat("\n", key));
  if (at == absl::string_view::npos) return "";
  absl::string_view value = msg.substr(at + 1 + key.size());
  return std::string(value.substr(0, value.find('\n')));
}

// Checks that checking out `target` over the work tree (HEAD = the AI
// commit) overwrites nothing of the user's, with the raw-bytes check the
// checkout itself makes (MoveWorkTreeExact), so `clada undo --dry-run`
// refuses exactly when `clada undo` would: a file the batch changed that
// holds neither the AI commit's bytes nor the target's (edited since,
// whatever `.gitattributes` says), or an untracked or ignored file where the
// batch had removed one. FailedPrecondition listing them; nothing written.
absl::Status CheckCheckout(git_repository* repo, const git_commit* target) {
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(repo));
  ASSIGN_OR_RETURN(TreePtr from, CommitTree(head.get()));
  ASSIGN_OR_RETURN(TreePtr to, CommitTree(target));
  git_index* raw_index = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_index(&raw_index, repo), "open the index"));
  IndexPtr index(raw_index);
  RETURN_IF_ERROR(GitStatus(git_index_read(raw_index, /*force=*/0), "read the index"));
  ASSIGN_OR_RETURN(std::vector<std::string> conflicts,
                   MoveWorkTreeExact(repo, from.get(), to.get(), raw_index, nullptr, /*check_only=*/true));
  if (conflicts.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "undoing would overwrite ", absl::StrJoin(conflicts, ", "),
      ", which the batch changed and which holds other bytes now (edited since, staged, or made again where the "
      "batch removed it). Commit it or move it aside, then run `clada undo` again"));
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
  ASSIGN_OR_RETURN(std::optional<std::string> remote,
                   RemoteBranchContaining(repo, head_id));
  if (remote) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to undo ", ShortOid(head_id), ": it is already on ", *remote,
        " and undoing would rewrite published history; use `git revert ",
        ShortOid(head_id), "` instead"));
  }
  ASSIGN_OR_RETURN(CommitPtr parent, FirstParent(head.get()));
  // The batch's code moved HEAD (`git commit` in an exec): the batch goes
  // back to where HEAD was at its start, the commits made meanwhile
  // included, through its snapshot (made there, off the branch) if any.
  const std::string moved_from = Trailer(head.get(), kMovedFromTrailer);
  std::string moved_snapshot_ref;
  if (!moved_from.empty()) {
    ASSIGN_OR_RETURN(git_oid start, ParseOid(moved_from, "Clada-Moved-From"));
    if (git_graph_descendant_of(repo, &head_id, &start) != 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to undo ", ShortOid(head_id), ": HEAD moved during its batch from ", ShortOid(start),
          ", which is no longer below it (the history was rewritten since); use `git revert` instead"));
    }
    // Every commit made during the batch goes too: none may be published.
    for (CommitPtr c = LookupCommit(repo, head_id).value_or(nullptr); c != nullptr;) {
      const git_oid id = *git_commit_id(c.get());
      if (git_oid_equal(&id, &start)) break;
      ASSIGN_OR_RETURN(std::optional<std::string> published, RemoteBranchContaining(repo, id));
      if (published) {
        return absl::FailedPreconditionError(absl::StrCat(
            "refusing to undo ", ShortOid(head_id), ": ", ShortOid(id), " '", Subject(c.get()),
            "', committed during its batch, is already on ", *published,
            " and undoing would rewrite published history; use `git revert` instead"));
      }
      ASSIGN_OR_RETURN(c, FirstParent(c.get()));
    }
    const std::string snap = Trailer(head.get(), kSnapshotTrailer);
    if (!snap.empty()) {
      ASSIGN_OR_RETURN(git_oid snap_id, ParseOid(snap, "Clada-Snapshot"));
      ASSIGN_OR_RETURN(parent, LookupCommit(repo, snap_id));
      moved_snapshot_ref = absl::StrCat(kSnapshotRefPrefix, snap);
    } else {
      ASSIGN_OR_RETURN(parent, LookupCommit(repo, start));
    }
  }
  if (parent == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("refusing to undo ", ShortOid(head_id),
                     ": it is the first commit of the branch"));
  }
  // The batch's own snapshot (same Clada-Batch trailer) is folded back
  // into uncommitted changes: HEAD returns to the commit below it and the
  // index to what it was.
  // A squash commit takes back every batch it folds: its oldest batch's
  // snapshot is the one below it (a squash never folds a snapshot).
  const std::string batch = Trailer(head.get(), kSquashTrailer).empty()
                                ? Trailer(head.get(), kBatchTrailer)
                                : FirstTrailer(head.get(), kBatchTrailer);
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
  // What the undo rewrites: the batch's changes (HEAD against the commit
  // below it) in the work tree and the index; with a fold, also the index
  // entries of the snapshot's paths (the user's work, uncommitted again).
  // A file the user edited since is refused only when it is one of the
  // batch's, or a snapshot path whose staging the index restore would
  // replace; untracked files the user made are checked below, where the
  // undo would write; every other edit is left as it is.
  ASSIGN_OR_RETURN(std::vector<std::string> batch_list,
                   ChangedBetween(repo, head.get(), parent.get()));
  // A path whose type the batch changed (a file made a link or a
  // directory) is a removal and an addition in the tree diff: named once.
  {
    std::set<std::string> seen;
    batch_list.erase(std::remove_if(batch_list.begin(), batch_list.end(),
                                    [&](const std::string& p) { return !seen.insert(p).second; }),
                     batch_list.end());
  }
  const std::set<std::string> batch_paths(batch_list.begin(), batch_list.end());
  std::set<std::string> index_paths = batch_paths;
  TreePtr recorded_index;
  if (fold) {
    ASSIGN_OR_RETURN(std::vector<std::string> own,
                     ChangedBetween(repo, new_head.get(), parent.get()));
    index_paths.insert(own.begin(), own.end());
    ASSIGN_OR_RETURN(TreePtr below, CommitTree(new_head.get()));
    if (index_tree) {
      git_tree* t = nullptr;
      RETURN_IF_ERROR(GitStatus(git_tree_lookup(&t, repo, &*index_tree),
                                "read the index before the batch"));
      recorded_index.reset(t);
      ASSIGN_OR_RETURN(std::vector<std::string> staged,
                       ChangedBetweenTrees(repo, below.get(), t));
      index_paths.insert(staged.begin(), staged.end());
    } else {
      // Back to an unborn branch: every path the snapshot holds leaves the
      // index.
      ASSIGN_OR_RETURN(TreePtr snap, CommitTree(parent.get()));
      ASSIGN_OR_RETURN(std::vector<std::string> all,
                       ChangedBetweenTrees(repo, nullptr, snap.get()));
      index_paths.insert(all.begin(), all.end());
    }
  }
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
  changed.erase(
      std::remove_if(changed.begin(), changed.end(),
                     [&](const ChangedPath& c) {
                       if (c.status == GIT_STATUS_WT_NEW) return true;
                       if (batch_paths.count(c.path) > 0) return false;
                       const unsigned int staged =
                           GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED |
                           GIT_STATUS_INDEX_DELETED | GIT_STATUS_INDEX_RENAMED |
                           GIT_STATUS_INDEX_TYPECHANGE;
                       return index_paths.count(c.path) == 0 ||
                              (c.status & staged) == 0;
                     }),
      changed.end());
  if (!changed.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to undo ", ShortOid(head_id),
        ": files the batch changed were edited since that AI commit (",
        DescribeChanges(changed),
        "). Commit them, or move them aside, then run `clada undo` again"));
  }
  RETURN_IF_ERROR(CheckCheckout(repo, parent.get()));
  r.restored = batch_list;
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
  RETURN_IF_ERROR(CheckIgnoredUnchanged(wt, head.get()));  // issue 34: ignored files
  if (dry_run) {
    ASSIGN_OR_RETURN(std::vector<std::string> ignored, IgnoredToRestore(wt, head.get()));
    r.restored.insert(r.restored.end(), ignored.begin(), ignored.end());
    return r;
  }

  // Work tree and index first: the snapshot's files (the AI's changes gone,
  // the user's own and the untracked files the batch changed back).
  RETURN_IF_ERROR(CheckoutCommitSafely(repo, parent.get()));
  ASSIGN_OR_RETURN(std::vector<std::string> ignored, RestoreIgnored(wt, head.get()));
  r.restored.insert(r.restored.end(), ignored.begin(), ignored.end());
  if (fold) {
    RETURN_IF_ERROR(
        RestoreIndexEntries(repo, recorded_index.get(), index_paths));
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
  if (!moved_snapshot_ref.empty()) {
    git_reference* ref = nullptr;
    if (git_reference_lookup(&ref, repo, moved_snapshot_ref.c_str()) == 0) {
      (void)git_reference_delete(ref);
      git_reference_free(ref);
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
