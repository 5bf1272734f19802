// `clada step-back` / `clada step-forward`: showing earlier commits of the
// branch in the work tree without moving the branch.
//
// Leaving the tip stashes the user's changes (untracked files included) in
// the ordinary stash list and records where things are in
// <gitdir>/clada-step.json; HEAD is detached at the commit shown. Returning
// to the tip re-attaches the branch and pops that stash. While stepped back
// a move is refused if anything changed, so nothing is ever overwritten.
//
// The stash is written here, not by git_stash_save (issue 34): its blobs
// hold the files' raw bytes (git_stash_save hashed them through the clean
// filters of `.gitattributes`, turning CR LF into LF), and only the files
// it holds leave the work tree: an ignored file inside an untracked
// directory stays where it is (git_stash_save removed the directory whole,
// keeping the ignored file nowhere). Its apply writes the blobs' bytes
// (filters disabled).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/file_io.h"
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

// Every blob under `tree` as a TreeChange (path from the tree's root).
absl::Status CollectBlobs(git_repository* repo, const git_tree* tree, const std::string& prefix,
                          std::vector<TreeChange>* out) {
  for (size_t i = 0; i < git_tree_entrycount(tree); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree, i);
    const std::string path = absl::StrCat(prefix, git_tree_entry_name(e));
    if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
      git_tree* sub = nullptr;
      RETURN_IF_ERROR(GitStatus(git_tree_lookup(&sub, repo, git_tree_entry_id(e)), "read the stash"));
      TreePtr owned(sub);
      RETURN_IF_ERROR(CollectBlobs(repo, sub, path + "/", out));
      continue;
    }
    TreeChange c;
    c.path = path;
    c.id = *git_tree_entry_id(e);
    c.mode = git_tree_entry_filemode(e);
    out->push_back(std::move(c));
  }
  return absl::OkStatus();
}

absl::StatusOr<git_oid> TreeWith(git_repository* repo, const git_oid* base,
                                 const std::vector<TreeChange>& changes);

// A path's blob and mode in `tree`; nullopt when absent (or not a blob).
using Entry = std::optional<std::pair<git_oid, git_filemode_t>>;
Entry EntryIn(const git_tree* tree, const std::string& path) {
  git_tree_entry* e = nullptr;
  if (tree == nullptr || git_tree_entry_bypath(&e, tree, path.c_str()) != 0) return std::nullopt;
  Entry out;
  if (git_tree_entry_type(e) == GIT_OBJECT_BLOB) out = std::make_pair(*git_tree_entry_id(e), git_tree_entry_filemode(e));
  git_tree_entry_free(e);
  return out;
}
bool Same(const Entry& a, const Entry& b) {
  if (!a || !b) return !a && !b;
  return git_oid_equal(&a->first, &b->first) && a->second == b->second;
}

// The paths where `to` differs from `base`, as changes that make `base`
// `to`; a path `head` changed from `base` to something else is a conflict.
absl::Status ChangesOnto(git_repository* repo, const git_tree* base, const git_tree* to, const git_tree* head,
                         std::vector<TreeChange>* changes, std::vector<std::string>* conflicts) {
  git_diff* raw = nullptr;
  RETURN_IF_ERROR(GitStatus(
      git_diff_tree_to_tree(&raw, repo, const_cast<git_tree*>(base), const_cast<git_tree*>(to), nullptr),
      "compare the stash with its base"));
  for (size_t i = 0; i < git_diff_num_deltas(raw); ++i) {
    const git_diff_delta* d = git_diff_get_delta(raw, i);
    for (const char* p : {d->old_file.path, d->new_file.path}) {
      if (p == nullptr) continue;
      const std::string path = p;
      if (!changes->empty() && changes->back().path == path) continue;
      const Entry b = EntryIn(base, path), t = EntryIn(to, path), h = EntryIn(head, path);
      if (!Same(h, b) && !Same(h, t)) {
        if (conflicts->empty() || conflicts->back() != path) conflicts->push_back(path);
        continue;
      }
      TreeChange c;
      c.path = path;
      if (t) {
        c.id = t->first;
        c.mode = t->second;
      } else {
        c.remove = true;
      }
      changes->push_back(std::move(c));
    }
  }
  git_diff_free(raw);
  return absl::OkStatus();
}

// A stash taken on another commit than HEAD (the branch moved on while
// stepped back): no merge. Each path the stash changed from its base is
// written with the stash's raw bytes (MoveWorkTreeExact), and its index
// entry staged as the stash staged it, where HEAD still holds the base's
// version (or already the stash's); a path HEAD changed otherwise is a
// conflict, and then nothing is written and the stash is kept.
absl::StatusOr<std::vector<std::string>> RestoreStashOnMovedBranch(git_repository* repo, size_t index,
                                                                    const git_commit* w, const git_commit* head) {
  ASSIGN_OR_RETURN(CommitPtr base_commit, LookupCommit(repo, *git_commit_parent_id(w, 0)));
  ASSIGN_OR_RETURN(CommitPtr i_commit, LookupCommit(repo, *git_commit_parent_id(w, 1)));
  std::vector<TreeChange> untracked;
  if (git_commit_parentcount(w) >= 3) {
    ASSIGN_OR_RETURN(CommitPtr u_commit, LookupCommit(repo, *git_commit_parent_id(w, 2)));
    git_tree* u_tree = nullptr;
    RETURN_IF_ERROR(GitStatus(git_commit_tree(&u_tree, u_commit.get()), "read the stash"));
    TreePtr owned_u(u_tree);
    RETURN_IF_ERROR(CollectBlobs(repo, u_tree, "", &untracked));
  }
  ASSIGN_OR_RETURN(git_oid w_all_id, TreeWith(repo, git_commit_tree_id(w), untracked));
  git_tree *base = nullptr, *w_all = nullptr, *i_tree = nullptr, *h_tree = nullptr;
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&base, base_commit.get()), "read the stash's base"));
  TreePtr owned_base(base);
  RETURN_IF_ERROR(GitStatus(git_tree_lookup(&w_all, repo, &w_all_id), "read the stash"));
  TreePtr owned_w(w_all);
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&i_tree, i_commit.get()), "read the stashed index"));
  TreePtr owned_i(i_tree);
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&h_tree, head), "read HEAD's tree"));
  TreePtr owned_h(h_tree);
  std::vector<TreeChange> work, staged;
  std::vector<std::string> conflicts;
  RETURN_IF_ERROR(ChangesOnto(repo, base, w_all, h_tree, &work, &conflicts));
  RETURN_IF_ERROR(ChangesOnto(repo, base, i_tree, h_tree, &staged, &conflicts));
  std::sort(conflicts.begin(), conflicts.end());
  conflicts.erase(std::unique(conflicts.begin(), conflicts.end()), conflicts.end());
  if (!conflicts.empty()) return conflicts;
  ASSIGN_OR_RETURN(git_oid to_id, TreeWith(repo, git_commit_tree_id(head), work));
  ASSIGN_OR_RETURN(git_oid staged_id, TreeWith(repo, git_commit_tree_id(head), staged));
  git_tree *to = nullptr, *staged_tree = nullptr;
  RETURN_IF_ERROR(GitStatus(git_tree_lookup(&to, repo, &to_id), "read the restored tree"));
  TreePtr owned_to(to);
  RETURN_IF_ERROR(GitStatus(git_tree_lookup(&staged_tree, repo, &staged_id), "read the restored index"));
  TreePtr owned_staged(staged_tree);
  git_index* raw_index = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_index(&raw_index, repo), "open the index"));
  IndexPtr owned_index(raw_index);
  RETURN_IF_ERROR(GitStatus(git_index_read(raw_index, /*force=*/0), "read the index"));
  ASSIGN_OR_RETURN(conflicts, MoveWorkTreeExact(repo, h_tree, to, raw_index, staged_tree));
  if (!conflicts.empty()) return conflicts;
  RETURN_IF_ERROR(GitStatus(git_index_read_tree(raw_index, staged_tree), "restore the stashed index"));
  RETURN_IF_ERROR(GitStatus(git_index_write(raw_index), "write the index"));
  RETURN_IF_ERROR(GitStatus(git_stash_drop(repo, index), "drop the restored stash"));
  return std::vector<std::string>();
}

// Applies the stash at `index` (index state included) and drops it.
// Returns the conflicting paths; empty on success. A stash taken on HEAD
// (step-back's, back at the tip) is written with the raw bytes it holds
// (MoveWorkTreeExact); one taken on another commit (the branch moved on
// while stepped back) too, path by path, where HEAD kept the stash base's
// version (RestoreStashOnMovedBranch: never a merge); any other stash is
// merged by git_stash_apply, filters off.
absl::StatusOr<std::vector<std::string>> RestoreStash(
    git_repository* repo, size_t index,
    const std::vector<std::string>& stashed) {
  git_reflog* raw_log = nullptr;
  RETURN_IF_ERROR(GitStatus(git_reflog_read(&raw_log, repo, "refs/stash"), "read the stash list"));
  const git_reflog_entry* entry = git_reflog_entry_byindex(raw_log, index);
  std::optional<git_oid> w_id;
  if (entry != nullptr) w_id = *git_reflog_entry_id_new(entry);
  git_reflog_free(raw_log);
  if (!w_id) return absl::NotFoundError(absl::StrCat("stash@{", index, "} is gone"));
  ASSIGN_OR_RETURN(CommitPtr w, LookupCommit(repo, *w_id));
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(repo));
  const unsigned parents = git_commit_parentcount(w.get());
  if (head != nullptr && parents >= 2 &&
      !git_oid_equal(git_commit_parent_id(w.get(), 0), git_commit_id(head.get()))) {
    return RestoreStashOnMovedBranch(repo, index, w.get(), head.get());
  }
  if (head != nullptr && parents >= 2 &&
      git_oid_equal(git_commit_parent_id(w.get(), 0), git_commit_id(head.get()))) {
    ASSIGN_OR_RETURN(CommitPtr i_commit, LookupCommit(repo, *git_commit_parent_id(w.get(), 1)));
    std::vector<TreeChange> untracked;
    if (parents >= 3) {
      ASSIGN_OR_RETURN(CommitPtr u_commit, LookupCommit(repo, *git_commit_parent_id(w.get(), 2)));
      git_tree* u_tree = nullptr;
      RETURN_IF_ERROR(GitStatus(git_commit_tree(&u_tree, u_commit.get()), "read the stash"));
      TreePtr owned_u(u_tree);
      RETURN_IF_ERROR(CollectBlobs(repo, u_tree, "", &untracked));
    }
    ASSIGN_OR_RETURN(git_oid to_id, TreeWith(repo, git_commit_tree_id(w.get()), untracked));
    git_tree *from = nullptr, *to = nullptr, *i_tree = nullptr;
    RETURN_IF_ERROR(GitStatus(git_commit_tree(&from, head.get()), "read HEAD's tree"));
    TreePtr owned_from(from);
    RETURN_IF_ERROR(GitStatus(git_tree_lookup(&to, repo, &to_id), "read the stash"));
    TreePtr owned_to(to);
    RETURN_IF_ERROR(GitStatus(git_commit_tree(&i_tree, i_commit.get()), "read the stashed index"));
    TreePtr owned_i(i_tree);
    git_index* raw_index = nullptr;
    RETURN_IF_ERROR(GitStatus(git_repository_index(&raw_index, repo), "open the index"));
    IndexPtr owned_index(raw_index);
    RETURN_IF_ERROR(GitStatus(git_index_read(raw_index, /*force=*/0), "read the index"));
    ASSIGN_OR_RETURN(std::vector<std::string> conflicts,
                     MoveWorkTreeExact(repo, from, to, raw_index, i_tree));
    if (!conflicts.empty()) return conflicts;
    // The stashed index (entries just written keep their stat).
    RETURN_IF_ERROR(GitStatus(git_index_read_tree(raw_index, i_tree), "restore the stashed index"));
    RETURN_IF_ERROR(GitStatus(git_index_write(raw_index), "write the index"));
    RETURN_IF_ERROR(GitStatus(git_stash_drop(repo, index), "drop the restored stash"));
    return std::vector<std::string>();
  }
  git_stash_apply_options opts;
  RETURN_IF_ERROR(GitStatus(
      git_stash_apply_options_init(&opts, GIT_STASH_APPLY_OPTIONS_VERSION),
      "initialise stash options"));
  std::vector<std::string> conflicts;
  opts.flags = GIT_STASH_APPLY_REINSTATE_INDEX;
  opts.checkout_options.checkout_strategy =
      GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DONT_OVERWRITE_IGNORED;
  opts.checkout_options.disable_filters = 1;  // the stashed bytes as they were
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

// `base` (a tree id; nullptr: empty) with `changes` applied, through an
// in-memory index (a file may become a directory or back).
absl::StatusOr<git_oid> TreeWith(git_repository* repo, const git_oid* base,
                                 const std::vector<TreeChange>& changes) {
  git_index* raw = nullptr;
  RETURN_IF_ERROR(GitStatus(git_index_new(&raw), "create an in-memory index"));
  IndexPtr index(raw);
  if (base != nullptr) {
    git_tree* tree = nullptr;
    RETURN_IF_ERROR(GitStatus(git_tree_lookup(&tree, repo, base), "read a tree"));
    TreePtr owned(tree);
    RETURN_IF_ERROR(GitStatus(git_index_read_tree(raw, tree), "read a tree"));
  }
  for (const TreeChange& c : changes) {
    if (c.remove) {
      int rc = git_index_remove(raw, c.path.c_str(), 0);
      if (rc < 0 && rc != GIT_ENOTFOUND) RETURN_IF_ERROR(GitStatus(rc, "stash a removal"));
      continue;
    }
    git_index_entry e{};
    e.id = c.id;
    e.mode = c.mode;
    e.path = c.path.c_str();
    RETURN_IF_ERROR(GitStatus(git_index_add(raw, &e), absl::StrCat("stash '", c.path, "'")));
  }
  git_oid out;
  RETURN_IF_ERROR(GitStatus(git_index_write_tree_to(&out, raw, repo), "write the stash tree"));
  return out;
}

// Each path's bytes in the work tree as a raw blob (remove when absent).
absl::StatusOr<std::vector<TreeChange>> RawStates(const WorkTree& wt,
                                                  const std::vector<std::string>& paths) {
  std::vector<TreeChange> out;
  for (const std::string& rel : paths) {
    TreeChange c;
    c.path = rel;
    struct stat st;
    if (::lstat(WorkdirPath(wt, rel).c_str(), &st) != 0 || !GitCanHold(st)) {
      c.remove = true;
    } else {
      ASSIGN_OR_RETURN(c.id, RawBlobFromWorkdir(wt, rel, st));
      c.mode = S_ISLNK(st.st_mode)      ? GIT_FILEMODE_LINK
               : (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                        : GIT_FILEMODE_BLOB;
    }
    out.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<git_oid> CommitOf(git_repository* repo, const git_oid& tree_id,
                                 const std::vector<const git_commit*>& parents,
                                 const git_signature* sig, const std::string& message) {
  git_tree* tree = nullptr;
  RETURN_IF_ERROR(GitStatus(git_tree_lookup(&tree, repo, &tree_id), "read the stash tree"));
  TreePtr owned(tree);
  std::vector<const git_commit*> p = parents;
  git_oid out;
  RETURN_IF_ERROR(GitStatus(git_commit_create(&out, repo, nullptr, sig, sig, nullptr,
                                              message.c_str(), tree, p.size(), p.data()),
                            "write the stash"));
  return out;
}

// Stashes the changes `changed` lists, in git's stash layout (a work tree
// commit whose parents are HEAD, the index commit and the untracked files'
// commit), with the files' raw bytes, pushed on refs/stash; then puts the
// work tree and index back to HEAD, removing exactly the untracked files
// it stashed (and the directories they leave empty). Ignored files are
// never touched.
absl::StatusOr<git_oid> StashChanges(const WorkTree& wt, const git_commit* head,
                                     const git_signature* sig, const std::string& branch,
                                     const std::string& message,
                                     const std::vector<ChangedPath>& changed) {
  git_repository* repo = wt.repo.get();
  git_index* raw_index = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_index(&raw_index, repo), "open the index"));
  IndexPtr index(raw_index);
  RETURN_IF_ERROR(GitStatus(git_index_read(raw_index, /*force=*/0), "read the index"));
  git_oid index_tree;
  RETURN_IF_ERROR(GitStatus(git_index_write_tree(&index_tree, raw_index), "record the index"));
  std::vector<std::string> tracked, untracked;
  for (const ChangedPath& c : changed) {
    (c.status & GIT_STATUS_WT_NEW ? untracked : tracked).push_back(c.path);
  }
  // Files git counts as clean only through a filter: their raw bytes are
  // the user's too, and the checkouts below would replace them.
  ASSIGN_OR_RETURN(std::vector<std::string> filtered,
                   CleanOnlyThroughFilters(wt, raw_index, changed, {""}));
  tracked.insert(tracked.end(), filtered.begin(), filtered.end());
  ASSIGN_OR_RETURN(std::vector<TreeChange> tracked_now, RawStates(wt, tracked));
  ASSIGN_OR_RETURN(std::vector<TreeChange> untracked_now, RawStates(wt, untracked));
  const std::string on = absl::StrCat(ShortBranch(branch), ": ", ShortOid(*git_commit_id(head)),
                                      " ", Subject(head));
  ASSIGN_OR_RETURN(git_oid i_commit, CommitOf(repo, index_tree, {head}, sig,
                                              absl::StrCat("index on ", on, "\n")));
  ASSIGN_OR_RETURN(CommitPtr i_obj, LookupCommit(repo, i_commit));
  std::vector<const git_commit*> parents = {head, i_obj.get()};
  CommitPtr u_obj;
  if (!untracked_now.empty()) {
    ASSIGN_OR_RETURN(git_oid u_tree, TreeWith(repo, nullptr, untracked_now));
    ASSIGN_OR_RETURN(git_oid u_commit, CommitOf(repo, u_tree, {}, sig,
                                                absl::StrCat("untracked files on ", on, "\n")));
    ASSIGN_OR_RETURN(u_obj, LookupCommit(repo, u_commit));
    parents.push_back(u_obj.get());
  }
  ASSIGN_OR_RETURN(git_oid w_tree, TreeWith(repo, &index_tree, tracked_now));
  ASSIGN_OR_RETURN(git_oid w_commit, CommitOf(repo, w_tree, parents, sig, message));
  RETURN_IF_ERROR(GitStatus(git_reference_ensure_log(repo, "refs/stash"), "keep the stash list"));
  git_reference* ref = nullptr;
  RETURN_IF_ERROR(GitStatus(git_reference_create(&ref, repo, "refs/stash", &w_commit, 1, message.c_str()),
                            "push the stash"));
  git_reference_free(ref);

  // The work tree back to HEAD: the stashed untracked files removed (their
  // directories too once empty), the tracked paths checked out.
  for (const TreeChange& c : untracked_now) {
    if (c.remove) continue;
    std::string path = WorkdirPath(wt, c.path);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return core::ErrnoStatus(errno, "remove the stashed", path);
    }
    for (size_t slash = path.rfind('/'); slash != std::string::npos && slash > wt.workdir.size();
         slash = path.rfind('/')) {
      path.resize(slash);
      if (::rmdir(path.c_str()) != 0) break;  // not empty: an ignored file stays
    }
  }
  git_tree* head_tree = nullptr;
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&head_tree, head), "read HEAD's tree"));
  TreePtr owned_head_tree(head_tree);
  // The tracked paths get HEAD's raw bytes back (a checkout would trust
  // the index's stat and leave a file that is clean only through a filter).
  for (const std::string& p : tracked) {
    const std::string full = WorkdirPath(wt, p);
    git_tree_entry* e = nullptr;
    if (git_tree_entry_bypath(&e, head_tree, p.c_str()) == 0) {
      TreeEntryPtr owned(e);
      if (git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
        struct stat st;
        if (::lstat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // not ours to remove
        RETURN_IF_ERROR(WriteBlobExact(repo, full, *git_tree_entry_id(e), git_tree_entry_filemode(e)));
        continue;
      }
    }
    if (::unlink(full.c_str()) != 0 && errno != ENOENT && errno != EISDIR) {
      return core::ErrnoStatus(errno, "remove the stashed", full);
    }
  }
  // The index as HEAD (entries git just wrote keep their stat).
  RETURN_IF_ERROR(GitStatus(git_index_read(raw_index, /*force=*/1), "read the index"));
  RETURN_IF_ERROR(GitStatus(git_index_read_tree(raw_index, head_tree), "reset the index"));
  RETURN_IF_ERROR(GitStatus(git_index_write(raw_index), "write the index"));
  return w_commit;
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
    std::string message =
        absl::StrCat("clada step-back: uncommitted changes on ",
                     ShortBranch(branch), " at ", ShortOid(next.tip));
    ASSIGN_OR_RETURN(git_oid stash, StashChanges(wt, head.get(), sig.get(), branch,
                                                 message, changed));
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
