// `clada squash`: combining selected commits of the current branch into one.
//
// History is rewritten from the oldest selected commit up to HEAD without
// touching the work tree: the combined commit takes the tree of the newest
// selected commit, so it and every commit after it keep their trees; only
// unselected commits between the oldest and the newest selected one are
// replayed (three-way merged) onto the new history, which can conflict.
#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/internal/commands.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx::internal {
namespace {

absl::string_view ModeName(SquashMode mode) {
  switch (mode) {
    case SquashMode::kAutoAi:
      return "auto_ai";
    case SquashMode::kAiMessages:
      return "ai_messages";
    case SquashMode::kHours:
      return "hours";
    case SquashMode::kDays:
      return "days";
    case SquashMode::kMsgContains:
      return "msg_contains";
  }
  return "?";
}

absl::Status ValidateRequest(const SquashRequest& req) {
  if (req.mode == SquashMode::kHours && req.hours <= 0) {
    return absl::InvalidArgumentError(
        "squash mode hours needs a positive number of hours");
  }
  if (req.mode == SquashMode::kDays && req.days <= 0) {
    return absl::InvalidArgumentError(
        "squash mode days needs a positive number of days");
  }
  if (req.mode == SquashMode::kMsgContains && req.msg_target.empty()) {
    return absl::InvalidArgumentError(
        "squash mode msg_contains needs the text to look for");
  }
  if (req.message && req.message->empty()) {
    return absl::InvalidArgumentError("the squash message must not be empty");
  }
  return absl::OkStatus();
}

// Whether `c` is selected by the mode. Times are author times (when the
// batch ran), which a rebase or an earlier squash does not move. A
// `[clada:pre]` snapshot never is: it holds the user's own uncommitted work,
// and `clada undo` takes a squash commit back whole, so a snapshot folded
// into one would be discarded with the AI's changes. Snapshots stay commits
// of their own, replayed below the combined commit.
bool Matches(const SquashRequest& req, const git_commit* c, absl::Time now) {
  if (IsSnapshotCommit(c)) return false;
  const absl::Time when =
      absl::FromUnixSeconds(git_commit_author(c)->when.time);
  switch (req.mode) {
    case SquashMode::kAutoAi:
      return IsCladaCommit(c);
    case SquashMode::kAiMessages:
      return IsAiCommit(c);
    case SquashMode::kHours:
      return when >= now - absl::Hours(req.hours);
    case SquashMode::kDays:
      return when >= now - absl::Hours(24 * req.days);
    case SquashMode::kMsgContains: {
      const char* m = git_commit_message(c);
      return m != nullptr && absl::StrContains(m, req.msg_target);
    }
  }
  return false;
}

// Indices into `chain` (newest first) of the commits to squash.
std::vector<size_t> SelectCommits(const SquashRequest& req,
                                  const std::vector<CommitPtr>& chain) {
  const absl::Time now = absl::Now();
  std::vector<size_t> out;
  if (req.mode == SquashMode::kAutoAi || req.contiguous_only) {
    size_t i = 0;
    // auto_ai starts at HEAD; --contiguous-only at the newest match.
    if (req.mode != SquashMode::kAutoAi) {
      while (i < chain.size() && !Matches(req, chain[i].get(), now)) ++i;
    }
    // A snapshot neither joins nor breaks the run.
    for (; i < chain.size(); ++i) {
      if (IsSnapshotCommit(chain[i].get())) continue;
      if (!Matches(req, chain[i].get(), now)) break;
      out.push_back(i);
    }
    return out;
  }
  for (size_t i = 0; i < chain.size(); ++i) {
    if (Matches(req, chain[i].get(), now)) out.push_back(i);
  }
  return out;
}

std::string SquashMessage(const SquashRequest& req,
                          const std::vector<const git_commit*>& picked) {
  const bool all_ai =
      std::all_of(picked.begin(), picked.end(),
                  [](const git_commit* c) { return IsAiCommit(c); });
  (void)all_ai;
  std::string subject =
      req.message ? *req.message
                  : absl::StrCat(kAiPrefix, "squash of ", picked.size(),
                                 " batches");
  std::string msg =
      absl::StrCat(subject, "\n\nSquashed ", picked.size(), " commits (mode ",
                   ModeName(req.mode), "), oldest first:\n");
  for (const git_commit* c : picked) {
    std::string body = git_commit_message(c);
    while (!body.empty() && body.back() == '\n') body.pop_back();
    absl::StrAppend(&msg, "\n--- ", ShortOid(*git_commit_id(c)), " ",
                    IsoCommitTime(c), "\n", body, "\n");
  }
  absl::StrAppend(&msg, "\n", kSquashTrailer, picked.size(), "\n");
  return msg;
}

// Author of the combined commit: the shared author of the picked commits,
// else clada.
const git_signature* SquashAuthor(const std::vector<const git_commit*>& picked,
                                  const git_signature* fallback) {
  const git_signature* first = git_commit_author(picked.front());
  for (const git_commit* c : picked) {
    const git_signature* a = git_commit_author(c);
    if (std::string(a->name) != first->name ||
        std::string(a->email) != first->email) {
      return fallback;
    }
  }
  return git_commit_author(picked.back());
}

absl::StatusOr<CommitPtr> CreateCommit(git_repository* repo,
                                       const git_signature* author,
                                       const git_signature* committer,
                                       const std::string& message,
                                       const git_oid& tree_id,
                                       const git_commit* parent) {
  git_tree* tree = nullptr;
  RETURN_IF_ERROR(
      GitStatus(git_tree_lookup(&tree, repo, &tree_id), "look up tree"));
  TreePtr owned(tree);
  const git_commit* parents[1] = {parent};
  git_oid id;
  RETURN_IF_ERROR(
      GitStatus(git_commit_create(&id, repo, nullptr, author, committer,
                                  nullptr, message.c_str(), tree,
                                  parent ? 1 : 0, parent ? parents : nullptr),
                "write a rewritten commit"));
  return LookupCommit(repo, id);
}

// Tree of `commit`'s changes applied on top of `onto` (nullptr: empty).
absl::StatusOr<git_oid> ReplayTree(git_repository* repo,
                                   const git_commit* commit,
                                   const git_commit* onto) {
  TreePtr ancestor, ours, theirs;
  git_tree* raw = nullptr;
  ASSIGN_OR_RETURN(CommitPtr parent, FirstParent(commit));
  if (parent != nullptr) {
    RETURN_IF_ERROR(
        GitStatus(git_commit_tree(&raw, parent.get()), "read a tree"));
    ancestor.reset(raw);
  }
  if (onto != nullptr) {
    RETURN_IF_ERROR(GitStatus(git_commit_tree(&raw, onto), "read a tree"));
    ours.reset(raw);
  }
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&raw, commit), "read a tree"));
  theirs.reset(raw);
  git_index* merged = nullptr;
  RETURN_IF_ERROR(
      GitStatus(git_merge_trees(&merged, repo, ancestor.get(), ours.get(),
                                theirs.get(), nullptr),
                absl::StrCat("replay ", ShortOid(*git_commit_id(commit)))));
  IndexPtr index(merged);
  if (git_index_has_conflicts(merged)) {
    std::set<std::string> paths;
    git_index_conflict_iterator* it = nullptr;
    if (git_index_conflict_iterator_new(&it, merged) == 0) {
      const git_index_entry *a, *o, *t;
      while (git_index_conflict_next(&a, &o, &t, it) == 0) {
        paths.insert((o ? o : t ? t : a)->path);
      }
      git_index_conflict_iterator_free(it);
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "squashing would move ", ShortOid(*git_commit_id(commit)), " '",
        Subject(commit),
        "' past the selected commits, and it conflicts with them in ",
        absl::StrJoin(paths, ", "),
        "; nothing was changed. Use --contiguous-only, or narrow "
        "the selection",
        IsSnapshotCommit(commit)
            ? ". It is a snapshot of your uncommitted work, which a squash "
              "never folds in: `clada undo` of the squash would take it back "
              "with the AI's changes"
            : ""));
  }
  git_oid tree_id;
  RETURN_IF_ERROR(GitStatus(git_index_write_tree_to(&tree_id, merged, repo),
                            "write a tree"));
  return tree_id;
}

}  // namespace

absl::StatusOr<SquashMode> ParseSquashMode(absl::string_view name) {
  for (SquashMode m :
       {SquashMode::kAutoAi, SquashMode::kAiMessages, SquashMode::kHours,
        SquashMode::kDays, SquashMode::kMsgContains}) {
    if (name == ModeName(m)) return m;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown squash mode '", name,
                   "': use auto_ai, ai_messages, hours, days or msg_contains"));
}

absl::StatusOr<SquashResult> SquashCommits(const std::string& working_root,
                                           const SquashRequest& req,
                                           const GitOptions& options,
                                           bool dry_run) {
  RETURN_IF_ERROR(ValidateRequest(req));
  ASSIGN_OR_RETURN(WorkTree wt, OpenRequiredWorkTree(working_root));
  git_repository* repo = wt.repo.get();
  RETURN_IF_ERROR(CheckNoGitOperationInProgress(wt));
  RETURN_IF_ERROR(CheckNotSteppedBack(wt));
  if (git_repository_head_detached(repo) == 1) {
    return absl::FailedPreconditionError(
        "HEAD is detached (not on a branch): check out the branch to squash "
        "first");
  }
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(repo));
  if (head == nullptr)
    return absl::FailedPreconditionError("the branch has no commits to squash");
  git_reference* head_ref = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_head(&head_ref, repo), "read HEAD"));
  ReferencePtr owned_head_ref(head_ref);
  const git_oid head_id = *git_commit_id(head.get());

  // First-parent history from HEAD down to the first commit that is not
  // clada's (a user's commit is never rewritten, re-authored or dropped,
  // so no rewrite may start below it) or a merge commit.
  std::vector<CommitPtr> chain;
  CommitPtr user_commit;
  {
    ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo, head_id));
    while (c != nullptr && git_commit_parentcount(c.get()) <= 1) {
      if (!IsCladaCommit(c.get())) {
        user_commit = std::move(c);
        break;
      }
      ASSIGN_OR_RETURN(CommitPtr parent, FirstParent(c.get()));
      chain.push_back(std::move(c));
      c = std::move(parent);
    }
  }
  std::string stop_note;
  if (user_commit != nullptr) {
    stop_note = absl::StrCat(
        "the search stopped at your commit ",
        ShortOid(*git_commit_id(user_commit.get())), " '",
        Subject(user_commit.get()),
        "': squash never rewrites a commit that is not clada's, nor anything "
        "below one");
  }
  const std::vector<size_t> selected = SelectCommits(req, chain);
  if (selected.size() < 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        selected.size(), " clada commit(s) match squash mode ",
        ModeName(req.mode), req.contiguous_only ? " (contiguous)" : "",
        ": nothing to squash (it takes two)",
        stop_note.empty() ? "" : "; ", stop_note));
  }
  const size_t newest = selected.front();
  const size_t oldest = selected.back();
  const std::set<size_t> is_selected(selected.begin(), selected.end());
  if (!req.force) {
    ASSIGN_OR_RETURN(
        std::optional<std::string> remote,
        RemoteBranchContaining(repo, *git_commit_id(chain[oldest].get())));
    if (remote) {
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to squash: ", ShortOid(*git_commit_id(chain[oldest].get())),
          " and later commits are already on ", *remote,
          "; rewriting them would diverge from it. Add --force to rewrite "
          "anyway"));
    }
  }

  ASSIGN_OR_RETURN(SignaturePtr committer, MakeSignature(options));
  std::vector<const git_commit*> picked;  // oldest first
  for (auto it = selected.rbegin(); it != selected.rend(); ++it)
    picked.push_back(chain[*it].get());

  SquashResult result;
  result.dry_run = dry_run;
  if (!stop_note.empty()) result.notes.push_back(stop_note);
  ASSIGN_OR_RETURN(CommitPtr current, FirstParent(chain[oldest].get()));
  for (size_t i = oldest + 1; i-- > 0;) {
    const git_commit* c = chain[i].get();
    if (is_selected.count(i) > 0) {
      result.squashed.push_back(OidHex(*git_commit_id(c)));
      if (i != newest) continue;
      ASSIGN_OR_RETURN(current,
                       CreateCommit(repo, SquashAuthor(picked, committer.get()),
                                    committer.get(), SquashMessage(req, picked),
                                    *git_commit_tree_id(c), current.get()));
      result.squash_commit = OidHex(*git_commit_id(current.get()));
      continue;
    }
    git_oid tree_id = *git_commit_tree_id(c);
    if (i > newest) {
      ASSIGN_OR_RETURN(tree_id, ReplayTree(repo, c, current.get()));
    }
    ASSIGN_OR_RETURN(
        current, CreateCommit(repo, git_commit_author(c), committer.get(),
                              git_commit_message(c), tree_id, current.get()));
    ++result.replayed;
  }

  // A dry run stops here: the rewritten commits exist only as unreferenced
  // objects (so a replay conflict is found as in a real squash); no ref
  // moves.
  if (dry_run) {
    result.new_head = OidHex(*git_commit_id(current.get()));
    return result;
  }
  const git_oid* new_head = git_commit_id(current.get());
  std::string reflog = absl::StrCat("clada squash: ", selected.size(),
                                    " commits (mode ", ModeName(req.mode), ")");
  git_reference* moved = nullptr;
  RETURN_IF_ERROR(GitStatus(
      git_reference_create_matching(&moved, repo, git_reference_name(head_ref),
                                    new_head,
                                    /*force=*/1, &head_id, reflog.c_str()),
      absl::StrCat("move ", git_reference_shorthand(head_ref),
                   " (if it moved meanwhile, run the squash again)")));
  ReferencePtr owned_moved(moved);
  result.new_head = OidHex(*new_head);
  return result;
}

}  // namespace clada::git_tx::internal
