// BeginBatch / BatchTransaction::Finish: the `[clada:pre]` snapshot before a
// batch and the `AI:` commit after it.
//
// The snapshot leaves HEAD, the index and the work tree equal (ignored files
// aside), so every change seen by Finish was made during the batch: by the
// batch when it lies under a record's touched path, by someone else
// otherwise. The AI commit's tree is built in a private in-memory index from
// HEAD's tree plus the batch's paths only, so files the user staged or
// changed meanwhile never slip into it.
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/src/internal/commit_message.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx {
namespace internal {

struct BatchState {
  bool active = false;
  bool finished = false;
  GitOptions options;
  std::optional<WorkTree> wt;
  std::optional<git_oid> head_at_begin;  // after the snapshot
  std::optional<std::string> snapshot;
  std::vector<std::string> notes;
  // Untracked nested repositories git cannot snapshot; ignored by Finish.
  std::set<std::string> left_out;
};

namespace {

constexpr size_t kSnapshotBodyFiles = 50;

bool IsDirectoryEntry(const std::string& rel) {
  return !rel.empty() && rel.back() == '/';
}

// lstat of a work tree path: nullopt when it does not exist.
std::optional<struct stat> StatPath(const WorkTree& wt,
                                    const std::string& rel) {
  struct stat st;
  if (::lstat(WorkdirPath(wt, rel).c_str(), &st) != 0) return std::nullopt;
  return st;
}

absl::StatusOr<git_oid> CommitTree(const WorkTree& wt, const git_oid& tree_oid,
                                   const git_commit* parent,
                                   const std::string& message,
                                   const GitOptions& options) {
  ASSIGN_OR_RETURN(SignaturePtr sig, MakeSignature(options));
  git_tree* tree = nullptr;
  RETURN_IF_ERROR(GitStatus(git_tree_lookup(&tree, wt.repo.get(), &tree_oid),
                            "look up tree"));
  TreePtr owned_tree(tree);
  const git_commit* parents[1] = {parent};
  git_oid out;
  RETURN_IF_ERROR(
      GitStatus(git_commit_create(&out, wt.repo.get(), "HEAD", sig.get(),
                                  sig.get(), nullptr, message.c_str(), tree,
                                  parent ? 1 : 0, parent ? parents : nullptr),
                absl::StrCat("commit '", message.substr(0, message.find('\n')),
                             "' (if HEAD moved meanwhile, run clada again)")));
  return out;
}

// Commits every uncommitted change (like `git add -A && git commit`) as the
// snapshot; the real index ends up equal to the new HEAD.
absl::Status CommitSnapshot(BatchState& s,
                            const std::vector<ChangedPath>& changed,
                            const git_commit* head) {
  const WorkTree& wt = *s.wt;
  git_index* raw = nullptr;
  RETURN_IF_ERROR(
      GitStatus(git_repository_index(&raw, wt.repo.get()), "open the index"));
  IndexPtr index(raw);
  std::vector<std::string> listed;
  for (const ChangedPath& c : changed) {
    if (IsDirectoryEntry(c.path)) {
      s.left_out.insert(c.path);
      s.notes.push_back(
          absl::StrCat("'", c.path,
                       "' is a nested git repository: it is not snapshotted or "
                       "committed"));
      continue;
    }
    std::optional<struct stat> st = StatPath(wt, c.path);
    if (st && !S_ISDIR(st->st_mode)) {
      RETURN_IF_ERROR(GitStatus(git_index_add_bypath(raw, c.path.c_str()),
                                absl::StrCat("snapshot '", c.path, "'")));
    } else {
      RETURN_IF_ERROR(
          GitStatus(git_index_remove_bypath(raw, c.path.c_str()),
                    absl::StrCat("snapshot the removal of '", c.path, "'")));
    }
    listed.push_back(c.path);
  }
  git_oid tree_oid;
  RETURN_IF_ERROR(GitStatus(git_index_write_tree(&tree_oid, raw),
                            "write the snapshot tree"));
  RETURN_IF_ERROR(GitStatus(git_index_write(raw), "write the index"));
  if (head != nullptr && git_oid_equal(&tree_oid, git_commit_tree_id(head)))
    return absl::OkStatus();
  if (head == nullptr && listed.empty()) return absl::OkStatus();
  std::string message =
      absl::StrCat(kSnapshotPrefix, " ", IsoTimeNow(),
                   "\n\nUncommitted changes before the clada batch:\n");
  for (size_t i = 0; i < listed.size() && i < kSnapshotBodyFiles; ++i) {
    absl::StrAppend(&message, "- ", listed[i], "\n");
  }
  if (listed.size() > kSnapshotBodyFiles) {
    absl::StrAppend(&message, "- and ", listed.size() - kSnapshotBodyFiles,
                    " more\n");
  }
  ASSIGN_OR_RETURN(git_oid commit,
                   CommitTree(wt, tree_oid, head, message, s.options));
  s.snapshot = OidHex(commit);
  return absl::OkStatus();
}

// Commits an empty tree as the first commit of an unborn branch, so the AI
// commit has a parent `clada undo` can return to.
absl::StatusOr<CommitPtr> CommitEmptyRoot(BatchState& s) {
  const WorkTree& wt = *s.wt;
  git_treebuilder* raw = nullptr;
  RETURN_IF_ERROR(GitStatus(git_treebuilder_new(&raw, wt.repo.get(), nullptr),
                            "create the empty tree"));
  TreebuilderPtr builder(raw);
  git_oid tree_oid;
  RETURN_IF_ERROR(
      GitStatus(git_treebuilder_write(&tree_oid, raw), "write the empty tree"));
  std::string message =
      absl::StrCat(kSnapshotPrefix, " ", IsoTimeNow(),
                   "\n\nEmpty first commit: the state before the first clada "
                   "batch.\n");
  ASSIGN_OR_RETURN(git_oid oid,
                   CommitTree(wt, tree_oid, nullptr, message, s.options));
  s.snapshot = OidHex(oid);
  return LookupCommit(wt.repo.get(), oid);
}

// True when repo-relative `path` lies at or below one of `prefixes`.
bool UnderAny(const std::string& path,
              const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes) {
    if (p.empty() || path == p || absl::StartsWith(path, p + "/")) return true;
  }
  return false;
}

// Repo-relative forms of the records' touched paths inside the work tree.
std::vector<std::string> TouchedPrefixes(
    const WorkTree& wt, const std::vector<ActionRecord>& records) {
  std::vector<std::string> out;
  for (const ActionRecord& r : records) {
    for (const std::string& t : r.touched_paths) {
      if (t == wt.workdir) {
        out.push_back("");
      } else if (absl::StartsWith(t, wt.workdir + "/")) {
        std::string rel = t.substr(wt.workdir.size() + 1);
        while (!rel.empty() && rel.back() == '/') rel.pop_back();
        out.push_back(rel);
      }
    }
  }
  return out;
}

absl::StatusOr<bool> FileModeIsTrusted(git_repository* repo) {
  git_config* cfg = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_config_snapshot(&cfg, repo),
                            "read the git config"));
  int value = 1;
  if (git_config_get_bool(&value, cfg, "core.filemode") < 0) value = 1;
  git_config_free(cfg);
  return value != 0;
}

// One path of the AI commit: its new blob, or its removal.
struct TreeChange {
  std::string path;
  bool remove = false;
  git_oid id{};
  git_filemode_t mode = GIT_FILEMODE_BLOB;
  struct stat st {};  // taken before hashing, for the index entry
};

// Hashes the work tree's version of each path into the object database.
absl::StatusOr<std::vector<TreeChange>> ReadChanges(
    const WorkTree& wt, const git_tree* baseline,
    const std::vector<std::string>& paths) {
  ASSIGN_OR_RETURN(bool trust_mode, FileModeIsTrusted(wt.repo.get()));
  std::vector<TreeChange> out;
  for (const std::string& rel : paths) {
    TreeChange c;
    c.path = rel;
    std::optional<struct stat> st = StatPath(wt, rel);
    if (!st || S_ISDIR(st->st_mode)) {
      c.remove = true;
      out.push_back(std::move(c));
      continue;
    }
    c.st = *st;
    RETURN_IF_ERROR(GitStatus(
        git_blob_create_from_workdir(&c.id, wt.repo.get(), rel.c_str()),
        absl::StrCat("read '", rel, "' into git")));
    git_tree_entry* old = nullptr;
    TreeEntryPtr owned_old(
        git_tree_entry_bypath(&old, baseline, rel.c_str()) == 0 ? old
                                                                : nullptr);
    if (S_ISLNK(st->st_mode)) {
      c.mode = GIT_FILEMODE_LINK;
    } else if (!trust_mode && owned_old != nullptr) {
      c.mode = git_tree_entry_filemode(owned_old.get());
    } else {
      c.mode = (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                       : GIT_FILEMODE_BLOB;
    }
    out.push_back(std::move(c));
  }
  return out;
}

// Type of `path` in `tree`: GIT_OBJECT_TREE, GIT_OBJECT_BLOB (also for
// links and submodules) or GIT_OBJECT_INVALID when absent.
git_object_t KindInTree(const git_tree* tree, const std::string& path) {
  git_tree_entry* e = nullptr;
  if (git_tree_entry_bypath(&e, tree, path.c_str()) != 0)
    return GIT_OBJECT_INVALID;
  TreeEntryPtr owned(e);
  return git_tree_entry_type(e) == GIT_OBJECT_TREE ? GIT_OBJECT_TREE
                                                   : GIT_OBJECT_BLOB;
}

// git_tree_create_updated cannot turn a file into a directory or back.
bool NeedsFullRebuild(const git_tree* baseline,
                      const std::vector<TreeChange>& changes) {
  for (const TreeChange& c : changes) {
    if (c.remove) continue;
    if (KindInTree(baseline, c.path) == GIT_OBJECT_TREE) return true;
    for (size_t slash = c.path.find('/'); slash != std::string::npos;
         slash = c.path.find('/', slash + 1)) {
      if (KindInTree(baseline, c.path.substr(0, slash)) == GIT_OBJECT_BLOB)
        return true;
    }
  }
  return false;
}

// Builds the AI commit's tree: `baseline` with `changes` applied. Only the
// trees on the changed paths are rewritten; a file <-> directory switch
// goes through an in-memory index instead.
absl::StatusOr<git_oid> BuildBatchTree(const WorkTree& wt, git_tree* baseline,
                                       const std::vector<TreeChange>& changes) {
  git_oid tree_oid;
  if (!NeedsFullRebuild(baseline, changes)) {
    std::vector<git_tree_update> updates;
    for (const TreeChange& c : changes) {
      if (c.remove && KindInTree(baseline, c.path) == GIT_OBJECT_INVALID)
        continue;
      git_tree_update u{};
      u.action = c.remove ? GIT_TREE_UPDATE_REMOVE : GIT_TREE_UPDATE_UPSERT;
      u.id = c.id;
      u.filemode = c.mode;
      u.path = c.path.c_str();
      updates.push_back(u);
    }
    RETURN_IF_ERROR(
        GitStatus(git_tree_create_updated(&tree_oid, wt.repo.get(), baseline,
                                          updates.size(), updates.data()),
                  "write the batch tree"));
    return tree_oid;
  }
  git_index* raw = nullptr;
  RETURN_IF_ERROR(GitStatus(git_index_new(&raw), "create an in-memory index"));
  IndexPtr index(raw);
  RETURN_IF_ERROR(
      GitStatus(git_index_read_tree(raw, baseline), "read HEAD's tree"));
  for (const TreeChange& c :
       changes) {  // sorted: "a" is removed before "a/b" is added
    if (c.remove) {
      int rc = git_index_remove(raw, c.path.c_str(), 0);
      if (rc < 0 && rc != GIT_ENOTFOUND) {
        RETURN_IF_ERROR(GitStatus(
            rc, absl::StrCat("record the removal of '", c.path, "'")));
      }
      continue;
    }
    git_index_entry entry{};
    entry.id = c.id;
    entry.mode = c.mode;
    entry.path = c.path.c_str();
    RETURN_IF_ERROR(GitStatus(git_index_add(raw, &entry),
                              absl::StrCat("stage '", c.path, "'")));
  }
  RETURN_IF_ERROR(
      GitStatus(git_index_write_tree_to(&tree_oid, raw, wt.repo.get()),
                "write the batch tree"));
  return tree_oid;
}

// Makes the repository's index agree with the new commit for the changed
// paths, leaving every other entry (e.g. something the user staged) alone.
// Entries carry the stat data taken before hashing, so a write after it
// still shows up as a change.
absl::Status UpdateIndexFor(const WorkTree& wt,
                            const std::vector<TreeChange>& changes) {
  git_index* raw = nullptr;
  RETURN_IF_ERROR(
      GitStatus(git_repository_index(&raw, wt.repo.get()), "open the index"));
  IndexPtr index(raw);
  RETURN_IF_ERROR(
      GitStatus(git_index_read(raw, /*force=*/0), "read the index"));
  for (const TreeChange& c : changes) {
    if (c.remove) {
      RETURN_IF_ERROR(
          GitStatus(git_index_remove_bypath(raw, c.path.c_str()),
                    absl::StrCat("update the index for '", c.path, "'")));
      continue;
    }
    git_index_entry e{};
    e.ctime.seconds = static_cast<int32_t>(c.st.st_ctim.tv_sec);
    e.ctime.nanoseconds = static_cast<uint32_t>(c.st.st_ctim.tv_nsec);
    e.mtime.seconds = static_cast<int32_t>(c.st.st_mtim.tv_sec);
    e.mtime.nanoseconds = static_cast<uint32_t>(c.st.st_mtim.tv_nsec);
    e.dev = static_cast<uint32_t>(c.st.st_dev);
    e.ino = static_cast<uint32_t>(c.st.st_ino);
    e.uid = c.st.st_uid;
    e.gid = c.st.st_gid;
    e.file_size = static_cast<uint32_t>(c.st.st_size);
    e.mode = c.mode;
    e.id = c.id;
    e.path = c.path.c_str();
    RETURN_IF_ERROR(
        GitStatus(git_index_add(raw, &e),
                  absl::StrCat("update the index for '", c.path, "'")));
  }
  return GitStatus(git_index_write(raw), "write the index");
}

}  // namespace
}  // namespace internal

using internal::BatchState;
using internal::ChangedPath;
using internal::CommitPtr;
using internal::WorkTree;

BatchTransaction::BatchTransaction(std::unique_ptr<BatchState> state)
    : state_(std::move(state)) {}
BatchTransaction::~BatchTransaction() = default;

bool BatchTransaction::active() const { return state_->active; }

std::optional<std::string> BatchTransaction::snapshot_commit() const {
  return state_->snapshot;
}

const std::vector<std::string>& BatchTransaction::notes() const {
  return state_->notes;
}

absl::StatusOr<std::unique_ptr<BatchTransaction>> BeginBatch(
    const std::string& working_root, const GitOptions& options) {
  auto state = std::make_unique<BatchState>();
  state->options = options;
  if (options.mode == GitOptions::Mode::kOff) {
    state->notes.push_back("git is off (--no-git): nothing is committed");
    return std::make_unique<BatchTransaction>(std::move(state));
  }
  ASSIGN_OR_RETURN(std::string root, internal::CanonicalRoot(working_root));
  RETURN_IF_ERROR(internal::MakeSignature(options).status());
  ASSIGN_OR_RETURN(std::optional<WorkTree> wt, internal::OpenWorkTree(root));
  if (!wt) {
    if (options.mode == GitOptions::Mode::kRequire) {
      return absl::FailedPreconditionError(
          absl::StrCat("not inside a git work tree: '", root,
                       "' (--git=require); run `git init` there, or run clada "
                       "without --git=require"));
    }
    state->notes.push_back("not inside a git work tree: running without git");
    return std::make_unique<BatchTransaction>(std::move(state));
  }
  state->wt = std::move(*wt);
  const WorkTree& w = *state->wt;
  RETURN_IF_ERROR(internal::CheckNoGitOperationInProgress(w));
  RETURN_IF_ERROR(internal::CheckNotSteppedBack(w));
  ASSIGN_OR_RETURN(CommitPtr head, internal::HeadCommit(w.repo.get()));
  if (head != nullptr && git_repository_head_detached(w.repo.get()) == 1) {
    state->notes.push_back(absl::StrCat(
        "HEAD is detached at ", internal::ShortOid(*git_commit_id(head.get())),
        ": clada's commits are on no branch; create one with `git switch -c "
        "<name>` to keep "
        "them"));
  }
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed,
                   internal::ListChangedPaths(w));
  if (!changed.empty())
    RETURN_IF_ERROR(internal::CommitSnapshot(*state, changed, head.get()));
  ASSIGN_OR_RETURN(CommitPtr after, internal::HeadCommit(w.repo.get()));
  if (after != nullptr) state->head_at_begin = *git_commit_id(after.get());
  state->active = true;
  return std::make_unique<BatchTransaction>(std::move(state));
}

absl::StatusOr<BatchCommitResult> BatchTransaction::Finish(
    const std::vector<ActionRecord>& records) {
  BatchState& s = *state_;
  if (s.finished) {
    return absl::FailedPreconditionError(
        "this batch was already finished; begin a new one");
  }
  s.finished = true;
  BatchCommitResult result;
  if (!s.active) {
    result.summary = "git not used: no commit";
    return result;
  }
  const WorkTree& wt = *s.wt;
  RETURN_IF_ERROR(internal::CheckNoGitOperationInProgress(wt));
  RETURN_IF_ERROR(internal::CheckNotSteppedBack(wt));
  ASSIGN_OR_RETURN(CommitPtr head, internal::HeadCommit(wt.repo.get()));
  if (head != nullptr && s.head_at_begin &&
      !git_oid_equal(git_commit_id(head.get()), &*s.head_at_begin)) {
    s.notes.push_back(absl::StrCat(
        "HEAD moved during the batch (", internal::ShortOid(*s.head_at_begin),
        " -> ", internal::ShortOid(*git_commit_id(head.get())),
        "): someone committed meanwhile; the AI commit builds on it"));
  }

  // Who changed what: the batch (touched paths) or someone else.
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed,
                   internal::ListChangedPaths(wt));
  const std::vector<std::string> prefixes =
      internal::TouchedPrefixes(wt, records);
  const bool takes_all =
      std::any_of(records.begin(), records.end(),
                  [](const ActionRecord& r) { return r.touches_anything; });
  std::vector<std::string> batch_paths;
  std::vector<std::string> foreign_rel;
  for (const ChangedPath& c : changed) {
    if (s.left_out.count(c.path) > 0) continue;
    const bool touched = internal::UnderAny(c.path, prefixes);
    if (takes_all || touched) {
      if (internal::IsDirectoryEntry(c.path)) {
        s.notes.push_back(absl::StrCat(
            "'", c.path, "' is a nested git repository: it is not committed"));
        continue;
      }
      batch_paths.push_back(c.path);
      // Only the exec can explain it, and so could an editor saving meanwhile.
      if (!touched) {
        result.unattributed_changes.push_back(
            internal::WorkdirPath(wt, c.path));
      }
    } else {
      foreign_rel.push_back(c.path);
      result.foreign_changes.push_back(internal::WorkdirPath(wt, c.path));
    }
  }
  if (!foreign_rel.empty()) {
    s.notes.push_back(absl::StrCat(
        foreign_rel.size(),
        " path(s) changed during the batch by someone else and left "
        "uncommitted: ",
        absl::StrJoin(foreign_rel, ", ")));
  }
  if (batch_paths.empty()) {
    result.summary = "the batch changed nothing: no commit";
    result.unattributed_changes.clear();
    return result;
  }

  if (head == nullptr) {
    ASSIGN_OR_RETURN(head, internal::CommitEmptyRoot(s));
  }
  git_tree* baseline = nullptr;
  RETURN_IF_ERROR(internal::GitStatus(git_commit_tree(&baseline, head.get()),
                                      "read HEAD's tree"));
  internal::TreePtr owned_baseline(baseline);
  ASSIGN_OR_RETURN(std::vector<internal::TreeChange> tree_changes,
                   internal::ReadChanges(wt, baseline, batch_paths));
  ASSIGN_OR_RETURN(git_oid tree_oid,
                   internal::BuildBatchTree(wt, baseline, tree_changes));
  if (git_oid_equal(&tree_oid, git_tree_id(baseline))) {
    result.summary = "the batch's changes match HEAD: no commit";
    result.unattributed_changes.clear();
    return result;
  }
  const std::string message =
      internal::BuildBatchMessage(records, foreign_rel, wt.workdir);
  ASSIGN_OR_RETURN(
      git_oid commit,
      internal::CommitTree(wt, tree_oid, head.get(), message, s.options));
  result.commit_id = internal::OidHex(commit);
  result.summary = message.substr(0, message.find('\n'));
  absl::Status index_status = internal::UpdateIndexFor(wt, tree_changes);
  if (!index_status.ok()) {
    s.notes.push_back(absl::StrCat(
        "committed ", internal::ShortOid(commit),
        ", but the index was not updated (", index_status.message(),
        "); `git reset` refreshes it without touching any file"));
  }
  return result;
}

}  // namespace clada::git_tx
