#include "proj/comp/git-tx/src/internal/repo.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <cerrno>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/json_bounded.h"
#include "proj/comp/core/src/status_macros.h"

namespace clada::git_tx::internal {
namespace {

std::string StripTrailingSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::optional<std::string> RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return std::nullopt;
  return std::string(buf);
}

// What finishes or aborts each in-progress operation.
std::string InProgressAdvice(int state) {
  switch (state) {
    case GIT_REPOSITORY_STATE_MERGE:
      return "a merge is in progress: finish it with `git commit` or abort it "
             "with "
             "`git merge --abort`";
    case GIT_REPOSITORY_STATE_REVERT:
    case GIT_REPOSITORY_STATE_REVERT_SEQUENCE:
      return "a revert is in progress: finish it with `git revert --continue` "
             "or abort it "
             "with `git revert --abort`";
    case GIT_REPOSITORY_STATE_CHERRYPICK:
    case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE:
      return "a cherry-pick is in progress: finish it with `git cherry-pick "
             "--continue` or "
             "abort it with `git cherry-pick --abort`";
    case GIT_REPOSITORY_STATE_BISECT:
      return "a bisect is in progress: end it with `git bisect reset`";
    case GIT_REPOSITORY_STATE_REBASE:
    case GIT_REPOSITORY_STATE_REBASE_INTERACTIVE:
    case GIT_REPOSITORY_STATE_REBASE_MERGE:
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE:
      return "a rebase is in progress (HEAD is detached in the middle of it): "
             "finish it with "
             "`git rebase --continue` or abort it with `git rebase --abort`";
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX:
      return "`git am` is in progress: finish it with `git am --continue` or "
             "abort it with "
             "`git am --abort`";
    default:
      return absl::StrCat("git operation ", state,
                          " is in progress: finish or abort it");
  }
}

std::string StatusCode(unsigned int s) {
  if (s & GIT_STATUS_CONFLICTED) return "U";
  if (s == GIT_STATUS_WT_NEW) return "??";
  std::string code;
  if (s & GIT_STATUS_INDEX_NEW)
    code += 'A';
  else if (s & GIT_STATUS_INDEX_MODIFIED)
    code += 'M';
  else if (s & GIT_STATUS_INDEX_DELETED)
    code += 'D';
  else if (s & GIT_STATUS_INDEX_RENAMED)
    code += 'R';
  else if (s & GIT_STATUS_INDEX_TYPECHANGE)
    code += 'T';
  if (s & GIT_STATUS_WT_NEW)
    code += '?';
  else if (s & GIT_STATUS_WT_MODIFIED)
    code += 'M';
  else if (s & GIT_STATUS_WT_DELETED)
    code += 'D';
  else if (s & GIT_STATUS_WT_TYPECHANGE)
    code += 'T';
  else if (s & GIT_STATUS_WT_RENAMED)
    code += 'R';
  else if (s & GIT_STATUS_WT_UNREADABLE)
    code += '!';
  return code.empty() ? "M" : code;
}

std::string FormatTime(int64_t seconds, int offset_minutes) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%S%Ez",
                          absl::FromUnixSeconds(seconds),
                          absl::FixedTimeZone(offset_minutes * 60));
}

}  // namespace

absl::StatusOr<std::string> CanonicalRoot(const std::string& working_root) {
  std::optional<std::string> real = RealPath(working_root);
  struct stat st;
  if (!real || ::stat(real->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "working root '", working_root, "' is not an existing directory"));
  }
  return *real;
}

namespace {

// A repository without a work tree (HEAD, objects/ and refs/ in a plain
// directory) found between the root and an enclosing work tree: git, and
// clada's discovery, take it for the repository here, so a run would make
// no snapshot, no AI commit and no undo, and every git command run here
// would obey its config. Refused, naming both (issue 17 #4).
absl::Status CheckNotShadowing(const std::string& found, const std::string& canonical_root) {
  const size_t slash = found.rfind('/');
  // A repository's own .git directory is where git keeps it, not a plant.
  if (slash == std::string::npos || slash == 0 || found.substr(slash + 1) == ".git") return absl::OkStatus();
  const std::string parent = found.substr(0, slash);
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, parent.c_str(), 0, nullptr) != 0) {
    git_error_clear();
    return absl::OkStatus();
  }
  RepositoryPtr outer(raw);
  const char* outer_workdir = git_repository_workdir(raw);
  if (git_repository_is_bare(raw) || outer_workdir == nullptr) return absl::OkStatus();
  std::optional<std::string> real = RealPath(outer_workdir);
  if (!real) return absl::OkStatus();
  const std::string top = StripTrailingSlash(*real);
  if (canonical_root != top && !absl::StartsWith(canonical_root, top + "/")) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing to run in '", canonical_root, "': '", found,
      "' has the layout of a git repository (HEAD, objects/, refs/) inside the work tree of '", top,
      "', so git and clada would take it for the repository here (no snapshot, no AI commit, no undo), and every "
      "git command run here would obey its config. If you did not make it, look at its config, then delete "
      "HEAD, objects/ and refs/ there; if you did, run clada with --git=off"));
}

}  // namespace

absl::StatusOr<std::optional<WorkTree>> OpenWorkTree(
    const std::string& canonical_root) {
  RETURN_IF_ERROR(EnsureLibgit2());
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, canonical_root.c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND) return std::optional<WorkTree>();
  RETURN_IF_ERROR(GitStatus(
      rc, absl::StrCat(
              "open the git repository around '", canonical_root,
              "' (it may be corrupt: run `git status` there to see why)")));
  WorkTree wt;
  wt.repo.reset(raw);
  const char* workdir = git_repository_workdir(raw);
  if (git_repository_is_bare(raw) || workdir == nullptr) {
    RETURN_IF_ERROR(CheckNotShadowing(StripTrailingSlash(git_repository_path(raw)), canonical_root));
    return std::optional<WorkTree>();
  }
  std::optional<std::string> real_workdir = RealPath(workdir);
  if (!real_workdir) {
    return absl::InternalError(
        absl::StrCat("cannot resolve the work tree '", workdir, "'"));
  }
  wt.workdir = StripTrailingSlash(*real_workdir);
  wt.gitdir = StripTrailingSlash(git_repository_path(raw));
  wt.root = canonical_root;
  if (canonical_root == wt.workdir) {
    wt.root_rel = "";
  } else if (absl::StartsWith(canonical_root, wt.workdir + "/")) {
    wt.root_rel = canonical_root.substr(wt.workdir.size() + 1);
  } else {
    return std::optional<WorkTree>();
  }
  // A root inside the git directory is not part of the work tree.
  std::optional<std::string> real_gitdir = RealPath(wt.gitdir);
  if (real_gitdir && (canonical_root == *real_gitdir ||
                      absl::StartsWith(canonical_root, *real_gitdir + "/"))) {
    RETURN_IF_ERROR(CheckNotShadowing(*real_gitdir, canonical_root));
    return std::optional<WorkTree>();
  }
  return std::optional<WorkTree>(std::move(wt));
}

absl::StatusOr<WorkTree> OpenRequiredWorkTree(const std::string& working_root) {
  ASSIGN_OR_RETURN(std::string root, CanonicalRoot(working_root));
  ASSIGN_OR_RETURN(std::optional<WorkTree> wt, OpenWorkTree(root));
  if (!wt) {
    return absl::FailedPreconditionError(
        absl::StrCat("not inside a git work tree: '", root,
                     "'; run `git init` there first"));
  }
  return std::move(*wt);
}

absl::Status CheckNoGitOperationInProgress(const WorkTree& wt) {
  int state = git_repository_state(wt.repo.get());
  if (state < 0) return GitStatus(state, "read the repository state");
  if (state != GIT_REPOSITORY_STATE_NONE) {
    return absl::FailedPreconditionError(
        absl::StrCat("refusing to run in '", wt.workdir,
                     "': ", InProgressAdvice(state), ", then run clada again"));
  }
  // Lock files git leaves when a process dies mid-write (the index, HEAD, or
  // the branch HEAD points to): a commit would fail on them, so say which
  // file it is and what to do before anything runs.
  std::vector<std::string> locks = {wt.gitdir + "/index.lock", wt.gitdir + "/HEAD.lock"};
  git_reference* head = nullptr;
  if (git_reference_lookup(&head, wt.repo.get(), "HEAD") == 0) {
    if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
      const char* common = git_repository_commondir(wt.repo.get());
      std::string dir = common != nullptr ? common : wt.gitdir + "/";
      if (!dir.empty() && dir.back() == '/') dir.pop_back();
      locks.push_back(absl::StrCat(dir, "/", git_reference_symbolic_target(head), ".lock"));
    }
    git_reference_free(head);
  }
  for (const std::string& lock : locks) {
    struct stat st;
    if (::lstat(lock.c_str(), &st) == 0) {
      return absl::UnavailableError(
          absl::StrCat("'", lock,
                       "' exists: another git process is using this repository, "
                       "or one crashed. "
                       "Wait for it to finish; if no git process is running, "
                       "delete that file and run clada "
                       "again"));
    }
  }
  git_index* index = nullptr;
  RETURN_IF_ERROR(
      GitStatus(git_repository_index(&index, wt.repo.get()), "open the index"));
  IndexPtr owned(index);
  if (git_index_has_conflicts(index)) {
    std::vector<std::string> paths;
    git_index_conflict_iterator* it = nullptr;
    if (git_index_conflict_iterator_new(&it, index) == 0) {
      const git_index_entry *ancestor, *ours, *theirs;
      while (git_index_conflict_next(&ancestor, &ours, &theirs, it) == 0) {
        const git_index_entry* e = ours ? ours : theirs ? theirs : ancestor;
        if (e != nullptr) paths.push_back(e->path);
      }
      git_index_conflict_iterator_free(it);
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "unresolved conflicts in the index (", absl::StrJoin(paths, ", "),
        "): resolve them and `git add` the files, or `git reset` them, then "
        "run clada again"));
  }
  return absl::OkStatus();
}

std::string LockRelPath(const WorkTree& wt) {
  return wt.root_rel.empty() ? ".clada/lock"
                             : absl::StrCat(wt.root_rel, "/.clada/lock");
}

// A temp file of core::WriteFileAtomic (`.<name>.clada-tmp-<pid>-<n>`) that a
// killed clada left behind: never the user's work, never committed.
static bool IsLeftoverTempFile(absl::string_view path) {
  size_t slash = path.rfind('/');
  absl::string_view base = slash == absl::string_view::npos ? path : path.substr(slash + 1);
  return absl::StartsWith(base, ".") && absl::StrContains(base, ".clada-tmp-");
}

IndexStat IndexStatOf(const struct stat& st) {
  IndexStat s;
  s.ctime_s = static_cast<int32_t>(st.st_ctim.tv_sec);
  s.ctime_ns = static_cast<uint32_t>(st.st_ctim.tv_nsec);
  s.mtime_s = static_cast<int32_t>(st.st_mtim.tv_sec);
  s.mtime_ns = static_cast<uint32_t>(st.st_mtim.tv_nsec);
  s.dev = static_cast<uint32_t>(st.st_dev);
  s.ino = static_cast<uint32_t>(st.st_ino);
  s.uid = st.st_uid;
  s.gid = st.st_gid;
  s.size = static_cast<uint32_t>(st.st_size);
  return s;
}

absl::StatusOr<std::vector<ChangedPath>> ListChangedPaths(const WorkTree& wt) {
  git_status_options opts;
  RETURN_IF_ERROR(
      GitStatus(git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION),
                "initialise status options"));
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags =
      GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
      GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_INCLUDE_UNREADABLE;
  git_status_list* raw = nullptr;
  RETURN_IF_ERROR(GitStatus(git_status_list_new(&raw, wt.repo.get(), &opts),
                            "read the work tree status"));
  StatusListPtr list(raw);
  const std::string lock = LockRelPath(wt);
  std::vector<ChangedPath> out;
  const size_t n = git_status_list_entrycount(raw);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const git_status_entry* e = git_status_byindex(raw, i);
    if (e == nullptr || e->status == GIT_STATUS_CURRENT ||
        (e->status & GIT_STATUS_IGNORED)) {
      continue;
    }
    const git_diff_delta* d =
        e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
    if (d == nullptr) continue;
    const char* path = d->new_file.path ? d->new_file.path : d->old_file.path;
    if (path == nullptr || lock == path) continue;
    if ((e->status & GIT_STATUS_WT_NEW) && IsLeftoverTempFile(path)) continue;
    if (e->status == GIT_STATUS_WT_MODIFIED && e->index_to_workdir != nullptr &&
        e->index_to_workdir->old_file.mode == e->index_to_workdir->new_file.mode &&
        PathIsFiltered(wt.repo.get(), path)) {
      // Status hashed the file through a filter; its raw bytes may be the
      // index's blob exactly (a checkout with filters off wrote them).
      struct stat st;
      if (::lstat(WorkdirPath(wt, path).c_str(), &st) == 0 && GitCanHold(st)) {
        absl::StatusOr<git_oid> raw = RawHash(wt, path, st);
        if (raw.ok() && git_oid_equal(&*raw, &e->index_to_workdir->old_file.id)) continue;
      }
    }
    out.push_back({path, e->status});
  }
  std::sort(out.begin(), out.end(),
            [](const ChangedPath& a, const ChangedPath& b) {
              return a.path < b.path;
            });
  return out;
}

std::string DescribeChanges(const std::vector<ChangedPath>& changed,
                            size_t max) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < changed.size() && i < max; ++i) {
    parts.push_back(
        absl::StrCat(StatusCode(changed[i].status), " ", changed[i].path));
  }
  std::string out = absl::StrJoin(parts, ", ");
  if (changed.size() > max)
    absl::StrAppend(&out, " and ", changed.size() - max, " more");
  return out;
}

absl::StatusOr<SignaturePtr> MakeSignature(const GitOptions& options) {
  RETURN_IF_ERROR(EnsureLibgit2());
  git_signature* sig = nullptr;
  int rc = git_signature_now(&sig, options.author_name.c_str(),
                             options.author_email.c_str());
  if (rc < 0) {
    absl::Status s =
        GitStatus(rc, absl::StrCat("author '", options.author_name, " <",
                                   options.author_email, ">'"));
    return absl::InvalidArgumentError(
        absl::StrCat(s.message(), "; pass a non-empty --git-author name"));
  }
  return SignaturePtr(sig);
}

absl::StatusOr<CommitPtr> HeadCommit(git_repository* repo) {
  int unborn = git_repository_head_unborn(repo);
  if (unborn < 0) {
    return GitStatus(
        unborn, "read HEAD (the repository may be corrupt: run `git fsck`)");
  }
  if (unborn == 1) return CommitPtr();
  git_object* obj = nullptr;
  RETURN_IF_ERROR(GitStatus(
      git_revparse_single(&obj, repo, "HEAD^{commit}"),
      "read the HEAD commit (the repository may be corrupt: run `git fsck`)"));
  return CommitPtr(reinterpret_cast<git_commit*>(obj));
}

absl::StatusOr<CommitPtr> LookupCommit(git_repository* repo,
                                       const git_oid& oid) {
  git_commit* c = nullptr;
  RETURN_IF_ERROR(GitStatus(git_commit_lookup(&c, repo, &oid),
                            absl::StrCat("look up commit ", OidHex(oid))));
  return CommitPtr(c);
}

absl::StatusOr<CommitPtr> FirstParent(const git_commit* commit) {
  if (git_commit_parentcount(commit) == 0) return CommitPtr();
  git_commit* p = nullptr;
  RETURN_IF_ERROR(GitStatus(
      git_commit_parent(&p, commit, 0),
      absl::StrCat("read the parent of ", ShortOid(*git_commit_id(commit)))));
  return CommitPtr(p);
}

std::string Subject(const git_commit* commit) {
  const char* s = git_commit_summary(const_cast<git_commit*>(commit));
  return s ? s : "";
}

bool IsAiCommit(const git_commit* commit) {
  const char* m = git_commit_message(commit);
  return m != nullptr && absl::StartsWith(m, kAiPrefix);
}

bool IsSnapshotCommit(const git_commit* commit) {
  const char* m = git_commit_message(commit);
  return m != nullptr && absl::StartsWith(m, kSnapshotPrefix);
}


absl::StatusOr<git_oid> ParseOid(const std::string& hex,
                                 absl::string_view field) {
  git_oid oid;
  if (git_oid_fromstr(&oid, hex.c_str()) < 0 || hex.size() != GIT_OID_HEXSZ) {
    return absl::InternalError(
        absl::StrCat("malformed ", field, " '", hex, "'"));
  }
  return oid;
}

std::string Trailer(const git_commit* commit, absl::string_view key) {
  const char* m = git_commit_message(commit);
  if (m == nullptr) return "";
  absl::string_view msg(m);
  size_t at = msg.rfind(absl::StrCat("\n", key));
  if (at == absl::string_view::npos) return "";
  absl::string_view value = msg.substr(at + 1 + key.size());
  value = value.substr(0, value.find('\n'));
  return std::string(value);
}

bool IsCladaCommit(const git_commit* commit) {
  return IsAiCommit(commit) || IsSnapshotCommit(commit) ||
         !Trailer(commit, kSquashTrailer).empty();
}

std::string IsoTimeNow() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%S%Ez", absl::Now(),
                          absl::LocalTimeZone());
}

std::string IsoCommitTime(const git_commit* commit) {
  return FormatTime(git_commit_time(commit), git_commit_time_offset(commit));
}

std::string StepStatePath(const WorkTree& wt) {
  return wt.gitdir + "/clada-step.json";
}

absl::StatusOr<std::optional<StepState>> LoadStepState(const WorkTree& wt) {
  const std::string path = StepStatePath(wt);
  absl::StatusOr<std::string> text = core::ReadFileToString(path, 1 << 20);
  if (absl::IsNotFound(text.status())) return std::optional<StepState>();
  if (!text.ok()) return text.status();
  absl::StatusOr<nlohmann::json> parsed = core::ParseJsonBounded(*text);
  nlohmann::json j = parsed.ok() ? std::move(*parsed) : nlohmann::json();
  auto bad = [&] {
    return absl::InternalError(
        absl::StrCat("'", path,
                     "' (clada step-back state) is malformed; if the work tree "
                     "is where you want "
                     "it, delete that file"));
  };
  if (!j.is_object() || !j["branch"].is_string() || !j["tip"].is_string() ||
      !j["position"].is_string()) {
    return bad();
  }
  StepState s;
  s.branch = j["branch"].get<std::string>();
  absl::StatusOr<git_oid> tip = ParseOid(j["tip"].get<std::string>(), "tip");
  absl::StatusOr<git_oid> pos =
      ParseOid(j["position"].get<std::string>(), "position");
  if (!tip.ok() || !pos.ok()) return bad();
  s.tip = *tip;
  s.position = *pos;
  if (j.contains("stash") && j["stash"].is_string()) {
    absl::StatusOr<git_oid> stash =
        ParseOid(j["stash"].get<std::string>(), "stash");
    if (!stash.ok()) return bad();
    s.stash = *stash;
  }
  if (j.contains("stashed_files") && j["stashed_files"].is_array()) {
    for (const auto& f : j["stashed_files"]) {
      if (f.is_string()) s.stashed_files.push_back(f.get<std::string>());
    }
  }
  return std::optional<StepState>(std::move(s));
}

absl::Status SaveStepState(const WorkTree& wt, const StepState& state) {
  nlohmann::json j;
  j["branch"] = state.branch;
  j["tip"] = OidHex(state.tip);
  j["position"] = OidHex(state.position);
  if (state.stash) j["stash"] = OidHex(*state.stash);
  j["stashed_files"] = state.stashed_files;
  return core::WriteFileAtomic(StepStatePath(wt), j.dump(2) + "\n");
}

absl::Status RemoveStepState(const WorkTree& wt) {
  const std::string path = StepStatePath(wt);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return core::ErrnoStatus(errno, "remove", path);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> IsSteppedBack(const WorkTree& wt, const StepState& state) {
  int detached = git_repository_head_detached(wt.repo.get());
  if (detached < 0) return GitStatus(detached, "read HEAD");
  if (detached == 0) return false;
  git_oid head;
  RETURN_IF_ERROR(GitStatus(
      git_reference_name_to_id(&head, wt.repo.get(), "HEAD"), "read HEAD"));
  return git_oid_equal(&head, &state.position) != 0;
}

absl::Status CheckNotSteppedBack(const WorkTree& wt) {
  ASSIGN_OR_RETURN(std::optional<StepState> state, LoadStepState(wt));
  if (!state) return absl::OkStatus();
  ASSIGN_OR_RETURN(bool stepped, IsSteppedBack(wt, *state));
  if (!stepped) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the work tree shows an earlier commit (", ShortOid(state->position),
      ") after `clada step-back`; run `clada step-forward` until it is back at "
      "the tip of ",
      state->branch, ", then try again"));
}

absl::StatusOr<std::optional<std::string>> RemoteBranchContaining(
    git_repository* repo, const git_oid& oid) {
  git_reference_iterator* raw = nullptr;
  RETURN_IF_ERROR(
      GitStatus(git_reference_iterator_glob_new(&raw, repo, "refs/remotes/*"),
                "list remote-tracking branches"));
  ReferenceIteratorPtr it(raw);
  git_reference* ref = nullptr;
  while (git_reference_next(&ref, raw) == 0) {
    ReferencePtr owned(ref);
    git_reference* resolved = nullptr;
    if (git_reference_resolve(&resolved, ref) < 0)
      continue;  // dangling origin/HEAD
    ReferencePtr owned_resolved(resolved);
    const git_oid* target = git_reference_target(resolved);
    if (target == nullptr) continue;
    int descendant = git_graph_descendant_of(repo, target, &oid);
    if (git_oid_equal(target, &oid) || descendant == 1) {
      return std::optional<std::string>(git_reference_shorthand(ref));
    }
  }
  return std::optional<std::string>();
}

namespace {

// A path's state as git would store it: blob id and mode; nullopt absent.
using Entry = std::optional<std::pair<git_oid, git_filemode_t>>;

Entry EntryAt(const git_tree* tree, const std::string& path) {
  git_tree_entry* e = nullptr;
  if (tree == nullptr || git_tree_entry_bypath(&e, tree, path.c_str()) != 0) return std::nullopt;
  TreeEntryPtr owned(e);
  if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) return std::nullopt;
  return std::make_pair(*git_tree_entry_id(e), git_tree_entry_filemode(e));
}

bool SameFile(const Entry& a, const Entry& b, bool trust_mode) {
  if (!a || !b) return !a && !b;
  if (!git_oid_equal(&a->first, &b->first)) return false;
  const bool link_a = a->second == GIT_FILEMODE_LINK, link_b = b->second == GIT_FILEMODE_LINK;
  if (link_a != link_b) return false;
  return !trust_mode || a->second == b->second;
}

// Whether moving the work tree from `from` to `to` leaves directory `rel`
// empty, so a file can take its place: it holds at least one file, every
// file under it is what `from` has there and `to` lacks, and it holds no
// empty directory, no pipe or device and nothing else of the user's.
// Bounded: a directory of more than 10,000 entries is not emptied.
bool DirEmptiedByMove(const WorkTree& wt, const std::string& rel, const git_tree* from, const git_tree* to,
                      bool trust_mode, int* budget) {
  DIR* dir = ::opendir(WorkdirPath(wt, rel).c_str());
  if (dir == nullptr) return false;
  bool any = false, ok = true;
  while (ok) {
    errno = 0;
    const struct dirent* e = ::readdir(dir);
    if (e == nullptr) {
      ok = errno == 0;
      break;
    }
    const absl::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    if (--*budget < 0) {
      ok = false;
      break;
    }
    const std::string child = absl::StrCat(rel, "/", name);
    struct stat ls;
    if (::lstat(WorkdirPath(wt, child).c_str(), &ls) != 0) {
      ok = false;
    } else if (S_ISDIR(ls.st_mode)) {
      ok = DirEmptiedByMove(wt, child, from, to, trust_mode, budget);
    } else if (!GitCanHold(ls) || EntryAt(to, child)) {
      ok = false;
    } else {
      absl::StatusOr<git_oid> id = RawHash(wt, child, ls);
      const Entry now = id.ok() ? Entry(std::make_pair(*id, S_ISLNK(ls.st_mode)      ? GIT_FILEMODE_LINK
                                                          : (ls.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                                                                   : GIT_FILEMODE_BLOB))
                                : std::nullopt;
      ok = now.has_value() && SameFile(now, EntryAt(from, child), trust_mode);
    }
    any = true;
  }
  ::closedir(dir);
  return ok && any;
}

bool DirEmptiedByMove(const WorkTree& wt, const std::string& rel, const git_tree* from, const git_tree* to,
                      bool trust_mode) {
  int budget = 10000;
  return DirEmptiedByMove(wt, rel, from, to, trust_mode, &budget);
}

// Removes `dir` and its parents up to (not including) `top` while empty.
void RemoveEmptyParents(std::string dir, const std::string& top) {
  while (dir.size() > top.size() && absl::StartsWith(dir, top + "/")) {
    if (::rmdir(dir.c_str()) != 0) return;
    dir.resize(dir.rfind('/'));
  }
}

}  // namespace

absl::Status WriteBlobExact(git_repository* repo, const std::string& full,
                            const git_oid& id, git_filemode_t mode) {
  git_blob* blob = nullptr;
  RETURN_IF_ERROR(GitStatus(git_blob_lookup(&blob, repo, &id), absl::StrCat("read the blob for '", full, "'")));
  const std::string bytes(static_cast<const char*>(git_blob_rawcontent(blob)),
                          static_cast<size_t>(git_blob_rawsize(blob)));
  git_blob_free(blob);
  RETURN_IF_ERROR(core::CreateDirectories(full.substr(0, full.rfind('/'))));
  struct stat ls;
  const bool exists = ::lstat(full.c_str(), &ls) == 0;
  if (mode == GIT_FILEMODE_LINK) {
    if (exists && ::unlink(full.c_str()) != 0) return core::ErrnoStatus(errno, "replace", full);
    if (::symlink(bytes.c_str(), full.c_str()) != 0) return core::ErrnoStatus(errno, "write the link", full);
    return absl::OkStatus();
  }
  if (exists && S_ISLNK(ls.st_mode) && ::unlink(full.c_str()) != 0) {
    return core::ErrnoStatus(errno, "replace", full);
  }
  RETURN_IF_ERROR(core::WriteFileAtomic(full, bytes));
  if (::lstat(full.c_str(), &ls) == 0) {
    const bool exec = mode == GIT_FILEMODE_BLOB_EXECUTABLE;
    mode_t m = ls.st_mode & 07777;
    m = exec ? (m | ((m & 0444) >> 2)) : (m & ~0111);
    if (m != (ls.st_mode & 07777) && ::chmod(full.c_str(), m) != 0) {
      return core::ErrnoStatus(errno, "set the mode of", full);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> MoveWorkTreeExact(
    git_repository* repo, const git_tree* from, const git_tree* to, git_index* index,
    const git_tree* index_tree, bool check_only) {
  const char* workdir_c = git_repository_workdir(repo);
  if (workdir_c == nullptr) return absl::FailedPreconditionError("the repository has no work tree");
  WorkTree wt;
  wt.workdir = StripTrailingSlash(workdir_c);
  git_config* cfg = nullptr;
  int trust = 1;
  if (git_repository_config_snapshot(&cfg, repo) == 0) {
    if (git_config_get_bool(&trust, cfg, "core.filemode") < 0) trust = 1;
    git_config_free(cfg);
  }
  git_error_clear();
  const bool trust_mode = trust != 0;
  git_diff* raw_diff = nullptr;
  RETURN_IF_ERROR(GitStatus(git_diff_tree_to_tree(&raw_diff, repo, const_cast<git_tree*>(from),
                                                  const_cast<git_tree*>(to), nullptr),
                            "compare trees"));
  std::set<std::string> paths;
  for (size_t i = 0; i < git_diff_num_deltas(raw_diff); ++i) {
    const git_diff_delta* d = git_diff_get_delta(raw_diff, i);
    if (d->old_file.path != nullptr) paths.insert(d->old_file.path);
    if (d->new_file.path != nullptr) paths.insert(d->new_file.path);
  }
  git_diff_free(raw_diff);
  struct Step {
    std::string path;
    Entry before, after, now;
  };
  std::vector<Step> steps;
  std::vector<std::string> conflicts;
  for (const std::string& path : paths) {
    Step st{path, EntryAt(from, path), EntryAt(to, path), std::nullopt};
    if (st.before && st.before->second == GIT_FILEMODE_COMMIT) continue;  // submodules: left alone
    if (st.after && st.after->second == GIT_FILEMODE_COMMIT) continue;
    struct stat ls;
    bool is_dir = false;
    if (::lstat(WorkdirPath(wt, path).c_str(), &ls) == 0) {
      if (S_ISDIR(ls.st_mode)) {
        is_dir = true;
      } else if (GitCanHold(ls)) {  // else a pipe, socket or device: absent to git, replaced
        ASSIGN_OR_RETURN(git_oid id, RawHash(wt, path, ls));
        st.now = std::make_pair(id, S_ISLNK(ls.st_mode)      ? GIT_FILEMODE_LINK
                                    : (ls.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                                             : GIT_FILEMODE_BLOB);
      }
    }
    // The work tree must hold what `from` has (or already what `to` has);
    // anything else is the user's and is never overwritten.
    // A directory where a file must be written is fine when the move
    // empties it: every file in it is one `from` has, unchanged, and `to`
    // removes (a batch that made a file a directory, undone).
    bool ok = is_dir ? (!st.after && !st.before) ||
                           (st.after && !st.before && DirEmptiedByMove(wt, path, from, to, trust_mode))
                     : SameFile(st.now, st.before, trust_mode) || SameFile(st.now, st.after, trust_mode);
    if (ok && index != nullptr) {
      // A staged change there is the user's too.
      const git_index_entry* ie = git_index_get_bypath(index, path.c_str(), 0);
      Entry staged;
      if (ie != nullptr) staged = std::make_pair(ie->id, static_cast<git_filemode_t>(ie->mode));
      ok = SameFile(staged, st.before, false) || SameFile(staged, st.after, false);
    }
    if (ok && st.after) {
      // No file of the user's where a directory must be made.
      for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        const std::string parent = path.substr(0, slash);
        struct stat ps;
        if (::lstat(WorkdirPath(wt, parent).c_str(), &ps) == 0 && !S_ISDIR(ps.st_mode) &&
            !EntryAt(from, parent)) {
          ok = false;
        }
      }
    }
    if (!ok) conflicts.push_back(path);
    steps.push_back(std::move(st));
  }
  if (!conflicts.empty() || check_only) return conflicts;
  // Removals first (deepest first), so a file can become a directory.
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (it->after || !it->now) continue;
    const std::string full = WorkdirPath(wt, it->path);
    if (::unlink(full.c_str()) != 0 && errno != ENOENT) return core::ErrnoStatus(errno, "remove", full);
    RemoveEmptyParents(full.substr(0, full.rfind('/')), wt.workdir);
  }
  for (Step& st : steps) {
    if (!st.after) continue;
    const std::string full = WorkdirPath(wt, st.path);
    if (!SameFile(st.now, st.after, true)) {
      RETURN_IF_ERROR(WriteBlobExact(repo, full, st.after->first, st.after->second));
    }
  }
  if (index == nullptr) return conflicts;
  const git_tree* wanted = index_tree != nullptr ? index_tree : to;
  for (const Step& st : steps) {
    const Entry want = EntryAt(wanted, st.path);
    if (!want) {
      int rc = git_index_remove_bypath(index, st.path.c_str());
      if (rc < 0 && rc != GIT_ENOTFOUND) RETURN_IF_ERROR(GitStatus(rc, "update the index"));
      continue;
    }
    git_index_entry e{};
    e.id = want->first;
    e.mode = want->second;
    e.path = st.path.c_str();
    struct stat ls;
    if (st.after && SameFile(want, st.after, true) && ::lstat(WorkdirPath(wt, st.path).c_str(), &ls) == 0) {
      const IndexStat is = IndexStatOf(ls);
      e.ctime.seconds = is.ctime_s;
      e.ctime.nanoseconds = is.ctime_ns;
      e.mtime.seconds = is.mtime_s;
      e.mtime.nanoseconds = is.mtime_ns;
      e.dev = is.dev;
      e.ino = is.ino;
      e.uid = is.uid;
      e.gid = is.gid;
      e.file_size = is.size;
    }
    RETURN_IF_ERROR(GitStatus(git_index_add(index, &e), absl::StrCat("update the index for '", st.path, "'")));
  }
  return conflicts;
}

absl::Status CheckoutCommitSafely(git_repository* repo,
                                  const git_commit* target, bool check_only) {
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(repo));
  TreePtr from;
  if (head != nullptr) {
    git_tree* t = nullptr;
    RETURN_IF_ERROR(GitStatus(git_commit_tree(&t, head.get()), "read HEAD's tree"));
    from.reset(t);
  }
  git_tree* t = nullptr;
  RETURN_IF_ERROR(GitStatus(git_commit_tree(&t, target), "read the target's tree"));
  TreePtr to(t);
  git_index* raw_index = nullptr;
  RETURN_IF_ERROR(GitStatus(git_repository_index(&raw_index, repo), "open the index"));
  IndexPtr index(raw_index);
  RETURN_IF_ERROR(GitStatus(git_index_read(raw_index, /*force=*/0), "read the index"));
  ASSIGN_OR_RETURN(std::vector<std::string> conflicts,
                   MoveWorkTreeExact(repo, from.get(), to.get(), raw_index, nullptr, check_only));
  if (!conflicts.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("conflicts: ", absl::StrJoin(conflicts, ", "),
                     " would be overwritten by checking out ",
                     ShortOid(*git_commit_id(target))));
  }
  if (check_only) return absl::OkStatus();
  return GitStatus(git_index_write(raw_index),
                   absl::StrCat("check out ", ShortOid(*git_commit_id(target))));
}

int CollectCheckoutConflict(git_checkout_notify_t why, const char* path,
                            const git_diff_file*, const git_diff_file*,
                            const git_diff_file*, void* payload) {
  if (why == GIT_CHECKOUT_NOTIFY_CONFLICT && path != nullptr) {
    static_cast<std::vector<std::string>*>(payload)->push_back(path);
  }
  return 0;
}

std::string WorkdirPath(const WorkTree& wt, absl::string_view rel) {
  return absl::StrCat(wt.workdir, "/", rel);
}

absl::StatusOr<git_oid> RawBlobFromWorkdir(const WorkTree& wt,
                                           const std::string& rel,
                                           const struct stat& st) {
  const std::string path = WorkdirPath(wt, rel);
  git_oid id;
  if (S_ISLNK(st.st_mode)) {
    std::string target(st.st_size > 0 ? st.st_size + 1 : PATH_MAX, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return core::ErrnoStatus(errno, "read the link", path);
    RETURN_IF_ERROR(GitStatus(
        git_blob_create_from_buffer(&id, wt.repo.get(), target.data(), n),
        absl::StrCat("read '", rel, "' into git")));
    return id;
  }
  const auto not_a_file = [&] {
    return core::WithCode(absl::FailedPreconditionError(absl::StrCat(
                              "'", rel, "' is not a file or a link (a named pipe, socket or device): git cannot hold it")),
                          "not_a_file");
  };
  if (!GitCanHold(st)) return not_a_file();
  // Opened without waiting (a pipe swapped in after the lstat would block
  // the open), and checked again once open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return core::ErrnoStatus(errno, "open", path);
  struct stat opened;
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    return not_a_file();
  }
  // Small files whole; a large one streamed (no hint path: no filter), so
  // a file of gigabytes is never held in memory.
  constexpr int64_t kWhole = 16 << 20;
  if (opened.st_size <= kWhole) {
    std::string bytes;
    bytes.reserve(static_cast<size_t>(opened.st_size));
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int err = errno;
        ::close(fd);
        return core::ErrnoStatus(err, "read", path);
      }
      if (n == 0) break;
      bytes.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    RETURN_IF_ERROR(GitStatus(git_blob_create_from_buffer(
                                  &id, wt.repo.get(), bytes.data(), bytes.size()),
                              absl::StrCat("read '", rel, "' into git")));
    return id;
  }
  git_writestream* stream = nullptr;
  int rc = git_blob_create_from_stream(&stream, wt.repo.get(), nullptr);
  if (rc < 0) {
    ::close(fd);
    return GitStatus(rc, absl::StrCat("read '", rel, "' into git"));
  }
  std::string buf(1 << 20, '\0');
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      stream->free(stream);
      return core::ErrnoStatus(err, "read", path);
    }
    if (n == 0) break;
    rc = stream->write(stream, buf.data(), static_cast<size_t>(n));
    if (rc < 0) {
      ::close(fd);
      stream->free(stream);
      return GitStatus(rc, absl::StrCat("read '", rel, "' into git"));
    }
  }
  ::close(fd);
  RETURN_IF_ERROR(GitStatus(git_blob_create_from_stream_commit(&id, stream),
                            absl::StrCat("read '", rel, "' into git")));
  return id;
}

}  // namespace clada::git_tx::internal

namespace clada::git_tx::internal {
namespace {

// One ignored file a batch changed: its blob and mode before and after
// (nullopt: absent).
struct IgnoredChange {
  std::string path;
  std::optional<std::pair<git_oid, git_filemode_t>> before, after;
};

absl::StatusOr<std::vector<IgnoredChange>> LoadIgnoredChanges(const WorkTree& wt,
                                                             const git_commit* ai) {
  std::vector<IgnoredChange> out;
  const std::string batch = Trailer(ai, kBatchTrailer);
  if (batch.empty()) return out;
  const std::string name = absl::StrCat(kIgnoredRefPrefix, batch);
  git_object* obj = nullptr;
  int rc = git_revparse_single(&obj, wt.repo.get(), absl::StrCat(name, "^{tree}").c_str());
  if (rc == GIT_ENOTFOUND) return out;
  RETURN_IF_ERROR(GitStatus(rc, absl::StrCat("read ", name)));
  ObjectPtr owned(obj);
  const git_tree* tree = reinterpret_cast<const git_tree*>(obj);
  auto entry = [&](const std::string& path) -> std::optional<std::pair<git_oid, git_filemode_t>> {
    git_tree_entry* e = nullptr;
    if (git_tree_entry_bypath(&e, tree, path.c_str()) != 0) return std::nullopt;
    TreeEntryPtr owned_e(e);
    return std::make_pair(*git_tree_entry_id(e), git_tree_entry_filemode(e));
  };
  std::optional<std::pair<git_oid, git_filemode_t>> paths = entry("paths");
  if (!paths) return absl::InternalError(absl::StrCat(name, " lists no paths"));
  git_blob* blob = nullptr;
  RETURN_IF_ERROR(GitStatus(git_blob_lookup(&blob, wt.repo.get(), &paths->first),
                            absl::StrCat("read ", name)));
  const std::string listing(static_cast<const char*>(git_blob_rawcontent(blob)),
                            static_cast<size_t>(git_blob_rawsize(blob)));
  git_blob_free(blob);
  for (absl::string_view p : absl::StrSplit(listing, '\n', absl::SkipEmpty())) {
    IgnoredChange c;
    c.path = std::string(p);
    c.before = entry(absl::StrCat("before/", p));
    c.after = entry(absl::StrCat("after/", p));
    out.push_back(std::move(c));
  }
  return out;
}

// The state of work tree path `rel` now, as a blob and mode (nullopt:
// absent); a directory is reported as a mode of GIT_FILEMODE_TREE.
absl::StatusOr<std::optional<std::pair<git_oid, git_filemode_t>>> StateNow(
    const WorkTree& wt, const std::string& rel) {
  struct stat st;
  if (::lstat(WorkdirPath(wt, rel).c_str(), &st) != 0) {
    return std::optional<std::pair<git_oid, git_filemode_t>>();
  }
  if (S_ISDIR(st.st_mode)) {
    return std::make_optional(std::make_pair(git_oid{}, GIT_FILEMODE_TREE));
  }
  if (!GitCanHold(st)) return std::optional<std::pair<git_oid, git_filemode_t>>();
  ASSIGN_OR_RETURN(git_oid id, RawBlobFromWorkdir(wt, rel, st));
  const git_filemode_t mode = S_ISLNK(st.st_mode)      ? GIT_FILEMODE_LINK
                              : (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                                       : GIT_FILEMODE_BLOB;
  return std::make_optional(std::make_pair(id, mode));
}

bool SameIgnoredState(const std::optional<std::pair<git_oid, git_filemode_t>>& a,
                      const std::optional<std::pair<git_oid, git_filemode_t>>& b) {
  if (!a || !b) return !a && !b;
  return git_oid_equal(&a->first, &b->first) && a->second == b->second;
}

}  // namespace

absl::Status CheckIgnoredUnchanged(const WorkTree& wt, const git_commit* ai) {
  ASSIGN_OR_RETURN(std::vector<IgnoredChange> changes, LoadIgnoredChanges(wt, ai));
  std::vector<std::string> edited;
  for (const IgnoredChange& c : changes) {
    ASSIGN_OR_RETURN(auto now, StateNow(wt, c.path));
    if (!SameIgnoredState(now, c.after)) edited.push_back(c.path);
  }
  if (edited.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing to undo ", ShortOid(*git_commit_id(ai)),
      ": ignored files the batch changed were changed again since (",
      absl::StrJoin(edited, ", "),
      "); undoing would overwrite them. Move them aside, then run `clada undo` again"));
}

absl::StatusOr<std::vector<std::string>> IgnoredToRestore(const WorkTree& wt, const git_commit* ai) {
  ASSIGN_OR_RETURN(std::vector<IgnoredChange> changes, LoadIgnoredChanges(wt, ai));
  std::vector<std::string> paths;
  for (const IgnoredChange& c : changes) paths.push_back(c.path);
  return paths;
}

absl::StatusOr<std::vector<std::string>> RestoreIgnored(const WorkTree& wt,
                                                        const git_commit* ai) {
  ASSIGN_OR_RETURN(std::vector<IgnoredChange> changes, LoadIgnoredChanges(wt, ai));
  std::vector<std::string> restored;
  for (const IgnoredChange& c : changes) {
    const std::string path = WorkdirPath(wt, c.path);
    if (!c.before) {
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return core::ErrnoStatus(errno, "remove", path);
      }
      restored.push_back(c.path);
      continue;
    }
    git_blob* blob = nullptr;
    RETURN_IF_ERROR(GitStatus(git_blob_lookup(&blob, wt.repo.get(), &c.before->first),
                              absl::StrCat("read the old bytes of '", c.path, "'")));
    const std::string bytes(static_cast<const char*>(git_blob_rawcontent(blob)),
                            static_cast<size_t>(git_blob_rawsize(blob)));
    git_blob_free(blob);
    const size_t slash = path.rfind('/');
    RETURN_IF_ERROR(core::CreateDirectories(path.substr(0, slash)));
    if (c.before->second == GIT_FILEMODE_LINK) {
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return core::ErrnoStatus(errno, "remove", path);
      }
      if (::symlink(bytes.c_str(), path.c_str()) != 0) {
        return core::ErrnoStatus(errno, "restore the link", path);
      }
    } else {
      struct stat st;
      if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) ::unlink(path.c_str());
      RETURN_IF_ERROR(core::WriteFileAtomic(path, bytes));
      if (::lstat(path.c_str(), &st) == 0) {
        const bool exec = c.before->second == GIT_FILEMODE_BLOB_EXECUTABLE;
        mode_t mode = st.st_mode & 07777;
        mode = exec ? (mode | ((mode & 0444) >> 2)) : (mode & ~0111);
        if (mode != (st.st_mode & 07777) && ::chmod(path.c_str(), mode) != 0) {
          return core::ErrnoStatus(errno, "restore the mode of", path);
        }
      }
    }
    restored.push_back(c.path);
  }
  const std::string batch = Trailer(ai, kBatchTrailer);
  git_reference* ref = nullptr;
  if (!batch.empty() &&
      git_reference_lookup(&ref, wt.repo.get(), absl::StrCat(kIgnoredRefPrefix, batch).c_str()) == 0) {
    (void)git_reference_delete(ref);
    git_reference_free(ref);
  }
  return restored;
}

}  // namespace clada::git_tx::internal

namespace clada::git_tx::internal {

bool PathIsFiltered(git_repository* repo, const std::string& path) {
  git_filter_list* fl = nullptr;
  if (git_filter_list_load(&fl, repo, nullptr, path.c_str(), GIT_FILTER_TO_ODB,
                           GIT_FILTER_DEFAULT) < 0) {
    git_error_clear();
    return true;  // unknown: treat as filtered (the careful side)
  }
  const bool filtered = fl != nullptr;
  git_filter_list_free(fl);
  return filtered;
}

bool FiltersMayApply(const WorkTree& wt, git_index* index,
                     const std::vector<ChangedPath>& changed) {
  auto is_attributes = [](absl::string_view p) {
    return p == ".gitattributes" || absl::EndsWith(p, "/.gitattributes");
  };
  for (const ChangedPath& c : changed) {
    if (is_attributes(c.path)) return true;
  }
  if (index != nullptr) {
    const size_t n = git_index_entrycount(index);
    for (size_t i = 0; i < n; ++i) {
      const git_index_entry* e = git_index_get_byindex(index, i);
      if (e != nullptr && is_attributes(e->path)) return true;
    }
  }
  git_config* cfg = nullptr;
  if (git_repository_config_snapshot(&cfg, wt.repo.get()) == 0) {
    const char* autocrlf = nullptr;
    git_buf file = GIT_BUF_INIT;
    bool set = false;
    if (git_config_get_string(&autocrlf, cfg, "core.autocrlf") == 0 && autocrlf != nullptr &&
        !absl::EqualsIgnoreCase(autocrlf, "false")) {
      set = true;
    }
    if (git_config_get_string_buf(&file, cfg, "core.attributesfile") == 0) set = true;
    git_buf_dispose(&file);
    git_config_free(cfg);
    git_error_clear();
    if (set) return true;
  } else {
    git_error_clear();
    return true;
  }
  std::vector<std::string> files = {wt.gitdir + "/info/attributes", "/etc/gitattributes"};
  if (const char* xdg = ::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    files.push_back(absl::StrCat(xdg, "/git/attributes"));
  }
  if (const char* home = ::getenv("HOME"); home != nullptr && *home != '\0') {
    files.push_back(absl::StrCat(home, "/.config/git/attributes"));
  }
  for (const std::string& f : files) {
    struct stat st;
    if (::stat(f.c_str(), &st) == 0) return true;
  }
  return false;
}

absl::StatusOr<git_oid> RawHash(const WorkTree& wt, const std::string& rel,
                                const struct stat& st) {
  const std::string path = WorkdirPath(wt, rel);
  git_oid id;
  if (S_ISLNK(st.st_mode)) {
    std::string target(st.st_size > 0 ? st.st_size + 1 : PATH_MAX, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return core::ErrnoStatus(errno, "read the link", path);
    RETURN_IF_ERROR(GitStatus(git_odb_hash(&id, target.data(), n, GIT_OBJECT_BLOB),
                              absl::StrCat("hash '", rel, "'")));
    return id;
  }
  if (!GitCanHold(st)) {  // a pipe: hashing it would wait for a writer
    return core::WithCode(absl::FailedPreconditionError(absl::StrCat(
                              "'", rel, "' is not a file or a link (a named pipe, socket or device)")),
                          "not_a_file");
  }
  RETURN_IF_ERROR(GitStatus(git_odb_hashfile(&id, path.c_str(), GIT_OBJECT_BLOB),
                            absl::StrCat("hash '", rel, "'")));
  return id;
}

absl::StatusOr<std::vector<std::string>> CleanOnlyThroughFilters(
    const WorkTree& wt, git_index* index, const std::vector<ChangedPath>& changed,
    const std::vector<std::string>& under) {
  std::vector<std::string> out;
  if (under.empty() || !FiltersMayApply(wt, index, changed)) return out;
  std::set<std::string> listed;
  for (const ChangedPath& c : changed) listed.insert(c.path);
  const std::set<std::string> prefixes(under.begin(), under.end());
  auto covered = [&](const std::string& path) {
    if (prefixes.count("") > 0 || prefixes.count(path) > 0) return true;
    for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
      if (prefixes.count(path.substr(0, slash)) > 0) return true;
    }
    return false;
  };
  const size_t n = git_index_entrycount(index);
  for (size_t i = 0; i < n; ++i) {
    const git_index_entry* e = git_index_get_byindex(index, i);
    if (e == nullptr || git_index_entry_stage(e) != 0 || e->mode == GIT_FILEMODE_COMMIT) continue;
    const std::string path = e->path;
    if (listed.count(path) > 0 || !covered(path)) continue;
    struct stat st;
    if (::lstat(WorkdirPath(wt, path).c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
    if (!PathIsFiltered(wt.repo.get(), path)) continue;
    ASSIGN_OR_RETURN(git_oid raw, RawHash(wt, path, st));
    if (!git_oid_equal(&raw, &e->id)) out.push_back(path);
  }
  return out;
}

}  // namespace clada::git_tx::internal
