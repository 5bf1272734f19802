// `clada step-back` / `clada step-forward`: showing earlier commits of the
// branch in the work tree without moving the branch.
//
// Leaving the tip stashes the user's changes (untracked files included) in
// the ordinary stash list and records where things are in
// <gitdir>/clada-step.json; HEAD is detached at the commit shown. Returning
// to the tip re-attaches the branch and pops that stash. While stepped back
// a move is refused if anything changed, so nothing is ever overwritten.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/internal/commands.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx::internal {
namespace {

std::string ShortBranch(const std::string& full) {
  constexpr absl::string_view kHeads = "refs/heads/";
  return full.rfind(kHeads.data(), 0) == 0 ? full.substr(kHeads.size()) : full;
}

// Position of the stash with id `oid` in the stash list, if still there.
std::optional<size_t> FindStash(git_repository* repo, const git_oid& oid) {
  struct Search {
    git_oid want;
    std::optional<size_t> found;
  } search{oid, std::nullopt};
  git_stash_foreach(
      repo,
      [](size_t index, const char*, const git_oid* id, void* payload) -> int {
        auto* s = static_cast<Search*>(payload);
        if (git_oid_equal(id, &s->want)) {
          s->found = index;
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

// Applies the stash at `index` (index state included) and drops it.
// Returns the conflicting paths; empty on success.
absl::StatusOr<std::vector<std::string>> RestoreStash(
    git_repository* repo, size_t index,
    const std::vector<std::string>& stashed) {
  git_stash_apply_options opts;
  RETURN_IF_ERROR(GitStatus(
      git_stash_apply_options_init(&opts, GIT_STASH_APPLY_OPTIONS_VERSION),
      "initialise stash options"));
  std::vector<std::string> conflicts;
  opts.flags = GIT_STASH_APPLY_REINSTATE_INDEX;
  opts.checkout_options.checkout_strategy =
      GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DONT_OVERWRITE_IGNORED;
  opts.checkout_options.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
  opts.checkout_options.notify_cb = CollectCheckoutConflict;
  opts.checkout_options.notify_payload = &conflicts;
  int rc = git_stash_apply(repo, index, &opts);
  if (rc == GIT_EMERGECONFLICT || rc == GIT_ECONFLICT) {
    if (conflicts.empty()) conflicts = stashed;
    return conflicts;
  }
  RETURN_IF_ERROR(GitStatus(rc, absl::StrCat("restore stash@{", index, "}")));
  RETURN_IF_ERROR(
      GitStatus(git_stash_drop(repo, index), "drop the restored stash"));
  return std::vector<std::string>();
}

absl::Status RefuseChangesWhileStepped(const WorkTree& wt,
                                       const StepState& state) {
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
  if (changed.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("files changed while looking at the earlier commit ",
                   ShortOid(state.position), " (", DescribeChanges(changed),
                   "); stepping would overwrite them. Move them aside or "
                   "discard them (`git checkout -- .`, "
                   "delete new files), then step again"));
}

StepResult Describe(const git_commit* commit, const std::string& branch) {
  StepResult r;
  r.commit = OidHex(*git_commit_id(commit));
  r.subject = Subject(commit);
  r.branch = ShortBranch(branch);
  return r;
}

std::string StaleStateNote(const StepState& state) {
  std::string note =
      absl::StrCat("HEAD was moved by hand since `clada step-back` (it was at ",
                   ShortOid(state.position), ")");
  if (state.stash) {
    absl::StrAppend(&note, "; the changes stashed then (",
                    absl::StrJoin(state.stashed_files, ", "),
                    ") are in `git stash list` as ", ShortOid(*state.stash),
                    ": restore them with `git stash pop` on ",
                    ShortBranch(state.branch));
  }
  return note;
}

}  // namespace

absl::StatusOr<StepResult> StepBack(const std::string& working_root,
                                    const GitOptions& options, bool dry_run) {
  ASSIGN_OR_RETURN(WorkTree wt, OpenRequiredWorkTree(working_root));
  git_repository* repo = wt.repo.get();
  RETURN_IF_ERROR(CheckNoGitOperationInProgress(wt));
  ASSIGN_OR_RETURN(std::optional<StepState> state, LoadStepState(wt));
  bool stepped = false;
  if (state) {
    ASSIGN_OR_RETURN(stepped, IsSteppedBack(wt, *state));
  }

  if (stepped) {
    RETURN_IF_ERROR(RefuseChangesWhileStepped(wt, *state));
    ASSIGN_OR_RETURN(CommitPtr position, LookupCommit(repo, state->position));
    ASSIGN_OR_RETURN(CommitPtr parent, FirstParent(position.get()));
    if (parent == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "already at the first commit (", ShortOid(state->position),
          "): nothing earlier; `clada step-forward` goes back towards the "
          "tip"));
    }
    if (dry_run) {
      StepResult r = Describe(parent.get(), state->branch);
      r.dry_run = true;
      return r;
    }
    RETURN_IF_ERROR(CheckoutCommitSafely(repo, parent.get()));
    RETURN_IF_ERROR(GitStatus(
        git_repository_set_head_detached(repo, git_commit_id(parent.get())),
        "move HEAD"));
    state->position = *git_commit_id(parent.get());
    RETURN_IF_ERROR(SaveStepState(wt, *state));
    return Describe(parent.get(), state->branch);
  }

  std::string stale;
  if (state) {
    stale = StaleStateNote(*state);
    if (!dry_run) RETURN_IF_ERROR(RemoveStepState(wt));
  }
  if (git_repository_head_detached(repo) == 1) {
    return absl::FailedPreconditionError(
        "HEAD is detached (not on a branch): clada step-back walks a branch's "
        "history; check out "
        "a branch first (`git switch <branch>`)");
  }
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(repo));
  if (head == nullptr) {
    return absl::FailedPreconditionError(
        "the branch has no commits yet: nothing to step back to");
  }
  git_reference* head_ref = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_head(&head_ref, repo), "read HEAD"));
  ReferencePtr owned_head_ref(head_ref);
  const std::string branch = git_reference_name(head_ref);
  ASSIGN_OR_RETURN(CommitPtr parent, FirstParent(head.get()));
  if (parent == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(ShortBranch(branch),
                     " has a single commit: nothing earlier to step back to"));
  }
  ASSIGN_OR_RETURN(SignaturePtr sig, MakeSignature(options));
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
  for (const ChangedPath& c : changed) {
    if (!c.path.empty() && c.path.back() == '/') {
      return absl::FailedPreconditionError(
          absl::StrCat("'", c.path,
                       "' is an untracked nested git repository, which cannot "
                       "be stashed; move "
                       "it out of the work tree (or commit it as a submodule), "
                       "then step back"));
    }
  }

  if (dry_run) {
    StepResult r = Describe(parent.get(), branch);
    for (const ChangedPath& c : changed) r.stashed_files.push_back(c.path);
    r.stash_note = stale;
    r.dry_run = true;
    return r;
  }
  StepState next;
  next.branch = branch;
  next.tip = *git_commit_id(head.get());
  next.position = next.tip;
  if (!changed.empty()) {
    git_oid stash;
    std::string message =
        absl::StrCat("clada step-back: uncommitted changes on ",
                     ShortBranch(branch), " at ", ShortOid(next.tip));
    RETURN_IF_ERROR(
        GitStatus(git_stash_save(&stash, repo, sig.get(), message.c_str(),
                                 GIT_STASH_INCLUDE_UNTRACKED),
                  "stash the uncommitted changes"));
    next.stash = stash;
    for (const ChangedPath& c : changed) next.stashed_files.push_back(c.path);
  }
  RETURN_IF_ERROR(SaveStepState(wt, next));

  absl::Status moved = CheckoutCommitSafely(repo, parent.get());
  if (moved.ok()) {
    moved = GitStatus(
        git_repository_set_head_detached(repo, git_commit_id(parent.get())),
        "move HEAD");
  }
  if (!moved.ok()) {
    // Put the user's changes back where they were before failing.
    std::string restore_note;
    if (next.stash) {
      std::optional<size_t> index = FindStash(repo, *next.stash);
      absl::StatusOr<std::vector<std::string>> conflicts =
          index ? RestoreStash(repo, *index, next.stashed_files)
                : absl::StatusOr<std::vector<std::string>>(
                      std::vector<std::string>{"?"});
      if (!conflicts.ok() || !conflicts->empty()) {
        restore_note = absl::StrCat(
            "; your changes are kept in `git stash list` as ",
            ShortOid(*next.stash), ": `git stash pop` restores them");
      }
    }
    (void)RemoveStepState(wt);
    return absl::Status(
        moved.code(),
        absl::StrCat("cannot step back: ", moved.message(), restore_note));
  }
  next.position = *git_commit_id(parent.get());
  RETURN_IF_ERROR(SaveStepState(wt, next));
  StepResult r = Describe(parent.get(), branch);
  r.stashed_files = next.stashed_files;
  r.stash_note = stale;
  return r;
}

absl::StatusOr<StepResult> StepForward(const std::string& working_root,
                                       bool dry_run) {
  ASSIGN_OR_RETURN(WorkTree wt, OpenRequiredWorkTree(working_root));
  git_repository* repo = wt.repo.get();
  RETURN_IF_ERROR(CheckNoGitOperationInProgress(wt));
  ASSIGN_OR_RETURN(std::optional<StepState> state, LoadStepState(wt));
  bool stepped = false;
  if (state) {
    ASSIGN_OR_RETURN(stepped, IsSteppedBack(wt, *state));
  }
  if (!stepped) {
    if (state) {
      std::string note = StaleStateNote(*state);
      if (!dry_run) RETURN_IF_ERROR(RemoveStepState(wt));
      return absl::FailedPreconditionError(
          absl::StrCat("nothing to step forward: ", note));
    }
    git_reference* head_ref = nullptr;
    std::string where = "HEAD";
    if (git_repository_head(&head_ref, repo) == 0) {
      where = git_reference_shorthand(head_ref);
      git_reference_free(head_ref);
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "already at the tip of ", where, ": nothing to step forward to"));
  }
  RETURN_IF_ERROR(RefuseChangesWhileStepped(wt, *state));

  // The child of the position on the branch's first-parent history.
  git_oid tip_id;
  int rc = git_reference_name_to_id(&tip_id, repo, state->branch.c_str());
  if (rc < 0) {
    return absl::FailedPreconditionError(absl::StrCat("branch ", state->branch,
                                                      " no longer exists; ",
                                                      StaleStateNote(*state)));
  }
  ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo, tip_id));
  CommitPtr child;
  while (c != nullptr) {
    ASSIGN_OR_RETURN(CommitPtr parent, FirstParent(c.get()));
    if (parent != nullptr &&
        git_oid_equal(git_commit_id(parent.get()), &state->position)) {
      child = std::move(c);
      break;
    }
    c = std::move(parent);
  }
  if (child == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        ShortOid(state->position), " is no longer on the history of ",
        ShortBranch(state->branch),
        " (the branch moved): return with `git switch ",
        ShortBranch(state->branch), "`",
        state->stash ? absl::StrCat(" and `git stash pop` (stash ",
                                    ShortOid(*state->stash), ")")
                     : ""));
  }
  const bool at_tip = git_oid_equal(git_commit_id(child.get()), &tip_id) != 0;
  if (dry_run) {
    StepResult r = Describe(child.get(), state->branch);
    r.at_tip = at_tip;
    if (at_tip) r.stashed_files = state->stashed_files;
    r.dry_run = true;
    return r;
  }
  RETURN_IF_ERROR(CheckoutCommitSafely(repo, child.get()));
  if (!at_tip) {
    RETURN_IF_ERROR(GitStatus(
        git_repository_set_head_detached(repo, git_commit_id(child.get())),
        "move HEAD"));
    state->position = *git_commit_id(child.get());
    RETURN_IF_ERROR(SaveStepState(wt, *state));
    return Describe(child.get(), state->branch);
  }

  RETURN_IF_ERROR(
      GitStatus(git_repository_set_head(repo, state->branch.c_str()),
                absl::StrCat("re-attach ", state->branch)));
  StepResult r = Describe(child.get(), state->branch);
  r.at_tip = true;
  if (state->stash) {
    std::optional<size_t> index = FindStash(repo, *state->stash);
    if (!index) {
      r.stash_note = absl::StrCat(
          "the stash ", ShortOid(*state->stash),
          " holding your changes is no longer in `git stash list`");
    } else {
      ASSIGN_OR_RETURN(r.conflicts,
                       RestoreStash(repo, *index, state->stashed_files));
      if (r.conflicts.empty()) {
        r.stashed_files = state->stashed_files;
      } else {
        r.stash_note =
            absl::StrCat("your changes are kept in stash@{", *index,
                         "}: resolve the conflicts, then `git stash pop`");
      }
    }
  }
  RETURN_IF_ERROR(RemoveStepState(wt));
  return r;
}

}  // namespace clada::git_tx::internal
