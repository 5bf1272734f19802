// BeginBatch / BatchTransaction::Finish: the `[clada:pre]` snapshot before a
// batch and the `AI:` commit after it.
//
// BeginBatch writes nothing but objects and the journal: it computes the
// snapshot tree (the index, plus the work tree's version of every tracked
// change, plus the untracked or ignored files the plan is about to
// overwrite, move or delete) and records, for an exec, every untracked file.
// Finish compares the work tree with that state: a path whose bytes differ
// from it changed during the batch, by the batch when it lies under a
// record's touched path (or a record touches_anything), by someone else
// otherwise. Only when the batch changed something are the snapshot commit
// and the AI commit written; the AI commit's tree is the snapshot tree plus
// the batch's paths only, so files the user staged or changed meanwhile never
// slip into it.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <random>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/json_bounded.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/src/internal/commands.h"
#include "proj/comp/git-tx/src/internal/commit_message.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx {
namespace internal {

struct BatchState {
  bool active = false;
  bool finished = false;
  // Nothing planned and no exec: the batch only reads; Finish commits
  // nothing.
  bool read_only = false;
  bool has_exec = false;
  bool recovering = false;  // recording a journal a killed clada left
  GitOptions options;
  std::optional<WorkTree> wt;
  std::string batch_id;
  std::optional<git_oid> head_at_begin;  // nullopt: unborn branch
  git_oid index_tree{};                  // the index before the batch
  git_oid snapshot_tree{};               // see the file comment
  // The user's changes to tracked files at BeginBatch (stat included).
  std::vector<TreeChange> tracked;
  // Untracked or ignored files under the plan, in the snapshot tree.
  std::map<std::string, TreeChange> kept_untracked;
  // Those of them git ignores: never committed; a change the batch makes
  // to one is kept under refs/clada/ignored/<AI commit> for undo.
  std::set<std::string> ignored;
  // Every untracked (not ignored) file at BeginBatch.
  std::set<std::string> untracked_at_begin;
  // With exec: their bytes at BeginBatch (blobs written, no commit).
  std::map<std::string, TreeChange> exec_untracked;
  std::vector<std::string> planned_rel;
  std::string plain_root;  // without git: the root of `.clada/journal`
  std::optional<std::string> snapshot;
  std::vector<std::string> notes;
  // Untracked nested repositories git cannot snapshot; ignored by Finish.
  std::set<std::string> left_out;
  // With exec: the journal's change time once written (the file system's
  // clock at BeginBatch): an ignored file changed at or after it, outside
  // the plan, was changed during the batch.
  std::optional<struct timespec> exec_began;
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
                                   const GitOptions& options,
                                   const char* update_ref = "HEAD") {
  ASSIGN_OR_RETURN(SignaturePtr sig, MakeSignature(options));
  git_tree* tree = nullptr;
  RETURN_IF_ERROR(GitStatus(git_tree_lookup(&tree, wt.repo.get(), &tree_oid),
                            "look up tree"));
  TreePtr owned_tree(tree);
  const git_commit* parents[1] = {parent};
  git_oid out;
  RETURN_IF_ERROR(
      GitStatus(git_commit_create(&out, wt.repo.get(), update_ref, sig.get(),
                                  sig.get(), nullptr, message.c_str(), tree,
                                  parent ? 1 : 0, parent ? parents : nullptr),
                absl::StrCat("commit '", message.substr(0, message.find('\n')),
                             "' (if HEAD moved meanwhile, run clada again)")));
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

// Hashes the work tree's version of each path into the object database.
absl::StatusOr<std::vector<TreeChange>> ReadChanges(
    const WorkTree& wt, const git_tree* baseline,
    const std::vector<std::string>& paths) {
  ASSIGN_OR_RETURN(bool trust_mode, FileModeIsTrusted(wt.repo.get()));
  std::vector<TreeChange> out;
  out.reserve(paths.size());
  for (const std::string& rel : paths) {
    TreeChange c;
    c.path = rel;
    std::optional<struct stat> st = StatPath(wt, rel);
    if (!st || !GitCanHold(*st)) {  // absent, a directory, or a pipe, socket or device
      c.remove = true;
      out.push_back(std::move(c));
      continue;
    }
    c.st = IndexStatOf(*st);
    ASSIGN_OR_RETURN(c.id, RawBlobFromWorkdir(wt, rel, *st));
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
    e.ctime.seconds = c.st.ctime_s;
    e.ctime.nanoseconds = c.st.ctime_ns;
    e.mtime.seconds = c.st.mtime_s;
    e.mtime.nanoseconds = c.st.mtime_ns;
    e.dev = c.st.dev;
    e.ino = c.st.ino;
    e.uid = c.st.uid;
    e.gid = c.st.gid;
    e.file_size = c.st.size;
    e.mode = c.mode;
    e.id = c.id;
    e.path = c.path.c_str();
    RETURN_IF_ERROR(
        GitStatus(git_index_add(raw, &e),
                  absl::StrCat("update the index for '", c.path, "'")));
  }
  return GitStatus(git_index_write(raw), "write the index");
}


bool SameState(const TreeChange& a, const TreeChange* b) {
  if (b == nullptr) return a.remove;
  if (a.remove || b->remove) return a.remove == b->remove;
  return git_oid_equal(&a.id, &b->id) && a.mode == b->mode;
}

// The entry of `path` in `tree` as a TreeChange (remove when absent).
TreeChange EntryIn(const git_tree* tree, const std::string& path) {
  TreeChange c;
  c.path = path;
  git_tree_entry* e = nullptr;
  if (tree == nullptr || git_tree_entry_bypath(&e, tree, path.c_str()) != 0 ||
      git_tree_entry_type(e) == GIT_OBJECT_TREE) {
    if (e != nullptr) git_tree_entry_free(e);
    c.remove = true;
    return c;
  }
  c.id = *git_tree_entry_id(e);
  c.mode = git_tree_entry_filemode(e);
  git_tree_entry_free(e);
  return c;
}

absl::StatusOr<TreePtr> LookupTree(const WorkTree& wt, const git_oid& id) {
  git_tree* t = nullptr;
  RETURN_IF_ERROR(GitStatus(git_tree_lookup(&t, wt.repo.get(), &id),
                            absl::StrCat("look up tree ", ShortOid(id))));
  return TreePtr(t);
}

absl::StatusOr<git_oid> EmptyTree(const WorkTree& wt) {
  git_treebuilder* raw = nullptr;
  RETURN_IF_ERROR(GitStatus(git_treebuilder_new(&raw, wt.repo.get(), nullptr),
                            "create the empty tree"));
  TreebuilderPtr builder(raw);
  git_oid tree_oid;
  RETURN_IF_ERROR(
      GitStatus(git_treebuilder_write(&tree_oid, raw), "write the empty tree"));
  return tree_oid;
}

// Every file (not directory) at or below repo-relative `rel` that the index
// does not hold: the untracked and ignored files an action on `rel` would
// overwrite, move or delete. Nested repositories and `.git` are skipped.
void CollectUntrackedUnder(const WorkTree& wt, git_index* index,
                           const std::string& rel,
                           std::set<std::string>* out, int depth = 0) {
  if (depth > 64) return;
  const std::string abs = WorkdirPath(wt, rel);
  struct stat st;
  if (::lstat(abs.c_str(), &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
        git_index_get_bypath(index, rel.c_str(), 0) == nullptr) {
      out->insert(rel);
    }
    return;
  }
  struct stat git_st;
  if (!rel.empty() && ::lstat((abs + "/.git").c_str(), &git_st) == 0) return;
  DIR* d = ::opendir(abs.c_str());
  if (d == nullptr) return;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == ".." || (rel.empty() && name == ".git"))
      continue;
    names.push_back(std::move(name));
  }
  ::closedir(d);
  for (const std::string& name : names) {
    CollectUntrackedUnder(wt, index, rel.empty() ? name : rel + "/" + name,
                          out, depth + 1);
  }
}

// Whether git ignores work tree path `rel` (.gitignore, info/exclude,
// core.excludesFile).
absl::StatusOr<bool> IsIgnored(const WorkTree& wt, const std::string& rel) {
  int ignored = 0;
  RETURN_IF_ERROR(GitStatus(git_ignore_path_is_ignored(&ignored, wt.repo.get(), rel.c_str()),
                            absl::StrCat("read whether '", rel, "' is ignored")));
  return ignored == 1;
}

// Keeps the before and after states of the ignored files a batch changed
// under refs/clada/ignored/<batch id>: a tree (never a commit, so no push of
// a branch or tag can carry it) of `before/<path>` and `after/<path>`
// entries, a path absent from one side being absent there.
absl::Status KeepIgnoredChanges(const WorkTree& wt, const std::string& batch_id,
                                const std::vector<TreeChange>& before,
                                const std::vector<TreeChange>& after) {
  std::vector<TreeChange> entries;
  for (const auto& [side, list] : {std::pair<const char*, const std::vector<TreeChange>*>{"before/", &before},
                                   {"after/", &after}}) {
    for (const TreeChange& c : *list) {
      if (c.remove) continue;
      TreeChange e = c;
      e.path = absl::StrCat(side, c.path);
      entries.push_back(std::move(e));
    }
  }
  // Deleted on both sides cannot be told from never there: a marker blob
  // lists every path.
  std::string listing;
  for (const TreeChange& c : after) absl::StrAppend(&listing, c.path, "\n");
  TreeChange paths;
  paths.path = "paths";
  RETURN_IF_ERROR(GitStatus(
      git_blob_create_from_buffer(&paths.id, wt.repo.get(), listing.data(), listing.size()),
      "record the ignored files the batch changed"));
  entries.push_back(paths);
  std::sort(entries.begin(), entries.end(),
            [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
  ASSIGN_OR_RETURN(git_oid empty, EmptyTree(wt));
  ASSIGN_OR_RETURN(TreePtr empty_tree, LookupTree(wt, empty));
  ASSIGN_OR_RETURN(git_oid tree, BuildBatchTree(wt, empty_tree.get(), entries));
  git_reference* ref = nullptr;
  const std::string name = absl::StrCat(kIgnoredRefPrefix, batch_id);
  RETURN_IF_ERROR(GitStatus(
      git_reference_create(&ref, wt.repo.get(), name.c_str(), &tree, 1,
                           "clada: ignored files a batch changed"),
      absl::StrCat("write ", name)));
  git_reference_free(ref);
  return absl::OkStatus();
}

std::string NewBatchId() {
  std::random_device rd;
  return absl::StrCat(absl::ToUnixMillis(absl::Now()), "-", ::getpid(), "-",
                      rd() % 1000000);
}

// ---- The journal: what a batch is about to do, written before it acts. ----

std::string JournalPath(const WorkTree& wt) {
  return wt.gitdir + "/clada/journal";
}

nlohmann::json ChangeJson(const TreeChange& c) {
  nlohmann::json j = {{"path", c.path}};
  if (!c.remove) {
    j["id"] = OidHex(c.id);
    j["mode"] = static_cast<int>(c.mode);
  }
  return j;
}

absl::StatusOr<TreeChange> ChangeFromJson(const nlohmann::json& j) {
  TreeChange c;
  if (!j.is_object() || !j.contains("path") || !j["path"].is_string())
    return absl::InternalError("entry without a path");
  c.path = j["path"].get<std::string>();
  if (!j.contains("id")) {
    c.remove = true;
    return c;
  }
  if (!j["id"].is_string() || !j.contains("mode") ||
      !j["mode"].is_number_integer())
    return absl::InternalError("entry without id or mode");
  ASSIGN_OR_RETURN(c.id, ParseOid(j["id"].get<std::string>(), "blob id"));
  c.mode = static_cast<git_filemode_t>(j["mode"].get<int>());
  return c;
}

absl::Status WriteJournal(const BatchState& s) {
  const WorkTree& wt = *s.wt;
  nlohmann::json j;
  j["version"] = 1;
  j["batch"] = s.batch_id;
  j["time"] = IsoTimeNow();
  j["pid"] = static_cast<int64_t>(::getpid());
  j["head"] = s.head_at_begin ? OidHex(*s.head_at_begin) : "";
  j["index_tree"] = OidHex(s.index_tree);
  j["snapshot_tree"] = OidHex(s.snapshot_tree);
  j["has_exec"] = s.has_exec;
  j["paths"] = s.planned_rel;
  j["tracked"] = nlohmann::json::array();
  for (const TreeChange& c : s.tracked) j["tracked"].push_back(ChangeJson(c));
  j["kept_untracked"] = nlohmann::json::array();
  for (const auto& [p, c] : s.kept_untracked)
    j["kept_untracked"].push_back(ChangeJson(c));
  j["exec_untracked"] = nlohmann::json::array();
  for (const auto& [p, c] : s.exec_untracked)
    j["exec_untracked"].push_back(ChangeJson(c));
  j["untracked"] = s.untracked_at_begin;
  j["ignored"] = s.ignored;
  RETURN_IF_ERROR(core::CreateDirectories(wt.gitdir + "/clada"));
  return core::WriteFileAtomic(JournalPath(wt), j.dump() + "\n");
}

absl::Status RemoveJournal(const WorkTree& wt) {
  const std::string path = JournalPath(wt);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return core::ErrnoStatus(errno, "remove", path);
  return absl::OkStatus();
}

// The batch a killed clada left in its journal, as a BatchState Finish can
// commit. nullopt when there is no journal.
absl::StatusOr<std::optional<BatchState>> LoadJournal(WorkTree& wt) {
  const std::string path = JournalPath(wt);
  // The journal names every planned path (and more): a batch at the input
  // limit makes one far over the 64 MB the other state files are held to.
  constexpr int64_t kMaxJournalBytes = 256 << 20;
  absl::StatusOr<std::string> text = core::ReadFileToString(path, kMaxJournalBytes);
  if (absl::IsNotFound(text.status())) return std::optional<BatchState>();
  if (!text.ok()) return text.status();
  auto bad = [&](absl::string_view why) {
    return absl::InternalError(absl::StrCat(
        "'", path, "' (the journal of an interrupted clada batch) is unreadable (",
        why, "); `git status` shows what that batch left; delete the file and "
        "run clada again"));
  };
  absl::StatusOr<nlohmann::json> parsed =
      core::ParseJsonBounded(*text, core::kMaxStateJsonDepth, kMaxJournalBytes);
  if (!parsed.ok()) return bad(parsed.status().message());
  nlohmann::json& j = *parsed;
  if (!j.is_object() || !j["batch"].is_string() || !j["head"].is_string() ||
      !j["index_tree"].is_string() || !j["snapshot_tree"].is_string() ||
      !j["paths"].is_array() || !j["tracked"].is_array() ||
      !j["kept_untracked"].is_array() || !j["exec_untracked"].is_array() ||
      !j["untracked"].is_array()) {
    return bad("malformed");
  }
  BatchState s;
  s.recovering = true;
  s.batch_id = j["batch"].get<std::string>();
  s.has_exec = j.value("has_exec", false);
  const std::string head = j["head"].get<std::string>();
  if (!head.empty()) {
    absl::StatusOr<git_oid> h = ParseOid(head, "head");
    if (!h.ok()) return bad(h.status().message());
    s.head_at_begin = *h;
  }
  absl::StatusOr<git_oid> it = ParseOid(j["index_tree"].get<std::string>(), "index tree");
  absl::StatusOr<git_oid> st = ParseOid(j["snapshot_tree"].get<std::string>(), "snapshot tree");
  if (!it.ok() || !st.ok()) return bad("bad tree id");
  s.index_tree = *it;
  s.snapshot_tree = *st;
  for (const auto& p : j["paths"]) {
    if (p.is_string()) s.planned_rel.push_back(p.get<std::string>());
  }
  for (const auto& e : j["tracked"]) {
    absl::StatusOr<TreeChange> c = ChangeFromJson(e);
    if (!c.ok()) return bad(c.status().message());
    s.tracked.push_back(*c);
  }
  for (const char* key : {"kept_untracked", "exec_untracked"}) {
    for (const auto& e : j[key]) {
      absl::StatusOr<TreeChange> c = ChangeFromJson(e);
      if (!c.ok()) return bad(c.status().message());
      (std::string(key) == "kept_untracked" ? s.kept_untracked
                                            : s.exec_untracked)[c->path] = *c;
    }
  }
  for (const auto& p : j["untracked"]) {
    if (p.is_string()) s.untracked_at_begin.insert(p.get<std::string>());
  }
  if (j.contains("ignored") && j["ignored"].is_array()) {
    for (const auto& p : j["ignored"]) {
      if (p.is_string()) s.ignored.insert(p.get<std::string>());
    }
  }
  s.wt = std::move(wt);
  s.active = true;
  return std::optional<BatchState>(std::move(s));
}

// ---- BeginBatch's state and Finish's commits. ----

// A planned path as the absolute path it names: relative ones are below
// the working root `root` (BatchPlan::paths).
std::string PlannedPath(const std::string& root, absl::string_view path) {
  if (absl::StartsWith(path, "/")) return std::string(path);
  if (path.empty()) return root;
  return absl::StrCat(root, "/", path);
}

// Records the state before the batch in `s` (see BatchState) and writes
// the snapshot tree's objects. `root`: the canonical working root.
absl::Status CaptureBeginState(BatchState& s, const std::string& root, const BatchPlan& plan,
                               const git_commit* head) {
  const WorkTree& wt = *s.wt;
  git_index* raw = nullptr;
  RETURN_IF_ERROR(
      GitStatus(git_repository_index(&raw, wt.repo.get()), "open the index"));
  IndexPtr index(raw);
  RETURN_IF_ERROR(GitStatus(git_index_read(raw, /*force=*/0), "read the index"));
  RETURN_IF_ERROR(GitStatus(git_index_write_tree(&s.index_tree, raw),
                            "record the index as a tree"));
  ASSIGN_OR_RETURN(TreePtr index_tree, LookupTree(wt, s.index_tree));

  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
  std::vector<std::string> tracked_paths, untracked_paths;
  for (const ChangedPath& c : changed) {
    if (IsDirectoryEntry(c.path)) {
      s.left_out.insert(c.path);
      if (s.has_exec) {
        s.notes.push_back(absl::StrCat(
            "'", c.path,
            "' is a nested git repository: it is not snapshotted or committed"));
      }
      continue;
    }
    if (c.status & GIT_STATUS_WT_NEW) {
      s.untracked_at_begin.insert(c.path);
      untracked_paths.push_back(c.path);
    } else {
      tracked_paths.push_back(c.path);
    }
  }
  ASSIGN_OR_RETURN(s.tracked, ReadChanges(wt, index_tree.get(), tracked_paths));

  std::set<std::string> kept;
  const size_t planned_from = s.planned_rel.size();
  for (absl::string_view planned : plan.paths) {
    const std::string abs = PlannedPath(root, planned);
    std::string rel;
    if (abs == wt.workdir) {
      rel = "";
    } else if (absl::StartsWith(abs, wt.workdir + "/")) {
      rel = abs.substr(wt.workdir.size() + 1);
    } else {
      continue;  // outside the work tree (an --allow root)
    }
    while (!rel.empty() && rel.back() == '/') rel.pop_back();
    if (rel == ".git" || absl::StartsWith(rel, ".git/")) continue;
    s.planned_rel.push_back(rel);
    CollectUntrackedUnder(wt, raw, rel, &kept);
  }
  kept.erase(LockRelPath(wt));
  // A tracked file the batch will change whose bytes git counts as clean
  // only through a filter (CR LF under text=auto): its raw bytes go into
  // the snapshot, so undo gives them back, not the index's blob.
  {
    const std::vector<std::string> planned(s.planned_rel.begin() + planned_from, s.planned_rel.end());
    ASSIGN_OR_RETURN(std::vector<std::string> filtered,
                     CleanOnlyThroughFilters(wt, raw, changed, planned));
    if (!filtered.empty()) {
      ASSIGN_OR_RETURN(std::vector<TreeChange> more, ReadChanges(wt, index_tree.get(), filtered));
      s.tracked.insert(s.tracked.end(), more.begin(), more.end());
      std::sort(s.tracked.begin(), s.tracked.end(),
                [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
    }
  }
  std::vector<std::string> kept_paths(kept.begin(), kept.end());
  ASSIGN_OR_RETURN(std::vector<TreeChange> kept_changes,
                   ReadChanges(wt, index_tree.get(), kept_paths));
  for (TreeChange& c : kept_changes) {
    if (c.remove) continue;
    ASSIGN_OR_RETURN(bool ignored, IsIgnored(wt, c.path));
    if (ignored) s.ignored.insert(c.path);
    s.kept_untracked[c.path] = c;
  }
  if (s.has_exec) {
    std::vector<std::string> rest;
    for (const std::string& p : untracked_paths) {
      if (s.kept_untracked.count(p) == 0) rest.push_back(p);
    }
    ASSIGN_OR_RETURN(std::vector<TreeChange> blobs,
                     ReadChanges(wt, index_tree.get(), rest));
    for (TreeChange& c : blobs) {
      if (!c.remove) s.exec_untracked[c.path] = c;
    }
  }

  std::vector<TreeChange> all = s.tracked;
  for (const auto& [p, c] : s.kept_untracked) all.push_back(c);
  std::sort(all.begin(), all.end(),
            [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
  ASSIGN_OR_RETURN(s.snapshot_tree, BuildBatchTree(wt, index_tree.get(), all));
  (void)head;
  return absl::OkStatus();
}

// The paths that differ between trees `a` and `b` (either may be null).
absl::StatusOr<std::vector<std::string>> DiffPaths(const WorkTree& wt,
                                                   const git_tree* a,
                                                   const git_tree* b) {
  git_diff* diff = nullptr;
  RETURN_IF_ERROR(GitStatus(
      git_diff_tree_to_tree(&diff, wt.repo.get(), const_cast<git_tree*>(a),
                            const_cast<git_tree*>(b), nullptr),
      "compare trees"));
  std::vector<std::string> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff, i);
    out.push_back(d->new_file.path ? d->new_file.path : d->old_file.path);
  }
  git_diff_free(diff);
  return out;
}

std::string SnapshotMessage(const BatchState& s,
                            const std::vector<std::string>& files,
                            const std::vector<std::string>& kept) {
  std::string message = absl::StrCat(kSnapshotPrefix, " ", IsoTimeNow(), "\n\n");
  if (files.empty()) {
    absl::StrAppend(&message, "The state before the first clada batch.\n");
  } else {
    absl::StrAppend(&message, "Uncommitted changes before the clada batch:\n");
    for (size_t i = 0; i < files.size() && i < kSnapshotBodyFiles; ++i) {
      const bool is_kept =
          std::find(kept.begin(), kept.end(), files[i]) != kept.end();
      absl::StrAppend(&message, "- ", files[i],
                      is_kept ? " (untracked: kept because the batch changes it)"
                              : "",
                      "\n");
    }
    if (files.size() > kSnapshotBodyFiles) {
      absl::StrAppend(&message, "- and ", files.size() - kSnapshotBodyFiles,
                      " more\n");
    }
  }
  absl::StrAppend(&message, "\n", kIndexTrailer, OidHex(s.index_tree), "\n",
                  kBatchTrailer, s.batch_id, "\n");
  return message;
}

// Keeps the pre-batch index reachable when no commit holds it.
absl::Status KeepIndexTree(BatchState& s, const git_oid& snapshot,
                           const git_commit* parent) {
  const WorkTree& wt = *s.wt;
  ASSIGN_OR_RETURN(git_oid holder,
                   CommitTree(wt, s.index_tree, parent,
                              absl::StrCat("clada: the index before batch ",
                                           s.batch_id, "\n"),
                              s.options, nullptr));
  git_reference* ref = nullptr;
  const std::string name = absl::StrCat(kIndexRefPrefix, OidHex(snapshot));
  RETURN_IF_ERROR(GitStatus(
      git_reference_create(&ref, wt.repo.get(), name.c_str(), &holder, 1,
                           "clada: the index before a batch"),
      absl::StrCat("write ", name)));
  git_reference_free(ref);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BatchCommitResult> CommitBatch(
    BatchState& s, const std::vector<ActionRecord>& records) {
  BatchCommitResult result;
  const WorkTree& wt = *s.wt;
  RETURN_IF_ERROR(CheckNoGitOperationInProgress(wt));
  RETURN_IF_ERROR(CheckNotSteppedBack(wt));
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(wt.repo.get()));
  const git_oid* head_id = head ? git_commit_id(head.get()) : nullptr;
  const bool head_moved =
      (head_id == nullptr) != !s.head_at_begin.has_value() ||
      (head_id != nullptr && !git_oid_equal(head_id, &*s.head_at_begin));
  // HEAD moved on to a descendant: commits made during the batch, by its
  // code (`git commit` in an exec) or by someone else. The snapshot is still
  // made (on the old HEAD, off the branch, under refs/clada/snapshot/) and
  // the AI commit names both, so `clada undo` takes the batch back, those
  // commits included (issue 34).
  CommitPtr begin_commit;
  if (head_moved && head_id != nullptr && s.head_at_begin &&
      git_graph_descendant_of(wt.repo.get(), head_id, &*s.head_at_begin) == 1) {
    ASSIGN_OR_RETURN(begin_commit, LookupCommit(wt.repo.get(), *s.head_at_begin));
  }
  const bool moved_on = begin_commit != nullptr;
  if (moved_on) {
    result.head_moved = absl::StrCat(ShortOid(*s.head_at_begin), " -> ", ShortOid(*head_id));
    s.notes.push_back(absl::StrCat(
        "HEAD moved during the batch (", ShortOid(*s.head_at_begin), " -> ", ShortOid(*head_id),
        "): the batch's code, or someone else, committed; the AI commit records it, and `clada undo` "
        "takes the batch back to ", ShortOid(*s.head_at_begin), ", those commits included"));
  } else if (head_moved && head_id != nullptr) {
    s.notes.push_back(absl::StrCat(
        "HEAD moved during the batch (",
        s.head_at_begin ? ShortOid(*s.head_at_begin) : "none", " -> ",
        ShortOid(*head_id),
        "): someone committed meanwhile; the AI commit builds on it"));
  }
  ASSIGN_OR_RETURN(TreePtr snapshot_tree, LookupTree(wt, s.snapshot_tree));

  // Every path that may differ from the state at BeginBatch.
  ASSIGN_OR_RETURN(std::vector<ChangedPath> changed, ListChangedPaths(wt));
  std::set<std::string> candidates;
  for (const ChangedPath& c : changed) {
    if (s.left_out.count(c.path) > 0) continue;
    if (IsDirectoryEntry(c.path)) {
      if (s.has_exec && s.left_out.count(c.path) == 0) {
        s.notes.push_back(absl::StrCat(
            "'", c.path, "' is a nested git repository: it is not committed"));
      }
      continue;
    }
    candidates.insert(c.path);
  }
  for (const TreeChange& c : s.tracked) candidates.insert(c.path);
  for (const auto& [p, c] : s.kept_untracked) candidates.insert(p);
  // Ignored files the batch created under its planned paths: git's status
  // never lists them, and undo must take them back too.
  std::set<std::string> new_ignored;
  {
    git_index* raw_index = nullptr;
    RETURN_IF_ERROR(GitStatus(git_repository_index(&raw_index, wt.repo.get()), "open the index"));
    IndexPtr index(raw_index);
    RETURN_IF_ERROR(GitStatus(git_index_read(raw_index, /*force=*/0), "read the index"));
    std::set<std::string> under_plan;
    for (const std::string& rel : s.planned_rel) CollectUntrackedUnder(wt, raw_index, rel, &under_plan);
    under_plan.erase(LockRelPath(wt));
    for (const std::string& p : under_plan) {
      if (s.kept_untracked.count(p) > 0 || candidates.count(p) > 0) continue;
      ASSIGN_OR_RETURN(bool ignored, IsIgnored(wt, p));
      if (ignored) {
        new_ignored.insert(p);
        candidates.insert(p);
      }
    }
  }
  const std::vector<std::string> candidate_list(candidates.begin(),
                                                candidates.end());
  ASSIGN_OR_RETURN(std::vector<TreeChange> now,
                   ReadChanges(wt, snapshot_tree.get(), candidate_list));

  // A change is the batch's in as many lookups as its path has components
  // (a loop over every touched path was quadratic in a batch of many files).
  const PathPrefixes prefixes = TouchedPrefixes(records, wt.workdir);
  const bool takes_all =
      std::any_of(records.begin(), records.end(),
                  [](const ActionRecord& r) { return r.touches_anything; });
  std::vector<TreeChange> batch_changes;
  std::vector<std::string> foreign_rel;
  std::vector<TreeChange> snapshot_edits;  // kept files dropped, exec's added
  std::vector<std::string> kept_in_snapshot;
  // Ignored files the batch changed: their states before and after.
  std::vector<TreeChange> ignored_before, ignored_after;
  auto ignored_change = [&](TreeChange& now_state, const TreeChange& before_state) {
    result.ignored_uncommitted.push_back(WorkdirPath(wt, now_state.path));
    ignored_before.push_back(before_state);
    ignored_after.push_back(std::move(now_state));
  };
  auto foreign = [&](const std::string& p) {
    foreign_rel.push_back(p);
    result.foreign_changes.push_back(WorkdirPath(wt, p));
  };
  // Moved out of `now`, which is not read again: a batch of a hundred
  // thousand files would hold two copies of its changes.
  batch_changes.reserve(now.size());
  auto batch = [&](TreeChange& c, bool touched) {
    if (!touched) result.unattributed_changes.push_back(WorkdirPath(wt, c.path));
    batch_changes.push_back(std::move(c));
  };
  for (TreeChange& c : now) {
    const bool touched = prefixes.Covers(c.path);
    auto kept = s.kept_untracked.find(c.path);
    if (new_ignored.count(c.path) > 0) {
      if (c.remove) continue;  // made and removed again
      TreeChange absent;
      absent.path = c.path;
      absent.remove = true;
      if (touched || takes_all) {
        ignored_change(c, absent);
      } else {
        foreign(c.path);
      }
      continue;
    }
    if (kept != s.kept_untracked.end()) {
      if (!SameState(c, &kept->second) && (touched || takes_all) &&
          s.ignored.count(c.path) > 0) {
        // Ignored: out of every commit; undo gives its old bytes back.
        TreeChange drop;
        drop.path = c.path;
        drop.remove = true;
        snapshot_edits.push_back(drop);
        ignored_change(c, kept->second);
      } else if (!SameState(c, &kept->second) && (touched || takes_all)) {
        kept_in_snapshot.push_back(c.path);
        batch(c, touched);
      } else {
        // Unchanged (or not the batch's): it stays untracked, out of git.
        TreeChange drop;
        drop.path = c.path;
        drop.remove = true;
        snapshot_edits.push_back(drop);
        if (!SameState(c, &kept->second)) foreign(c.path);
      }
      continue;
    }
    const TreeChange before = EntryIn(snapshot_tree.get(), c.path);
    if (before.remove && s.untracked_at_begin.count(c.path) > 0) {
      // The user's own untracked file: never committed unless an exec of
      // this batch changed it, and then its old bytes go into the snapshot.
      auto blob = s.exec_untracked.find(c.path);
      if (blob == s.exec_untracked.end() || SameState(c, &blob->second))
        continue;
      if (touched || takes_all) {
        kept_in_snapshot.push_back(c.path);
        snapshot_edits.push_back(blob->second);
        batch(c, touched);
      } else {
        foreign(c.path);
      }
      continue;
    }
    if (SameState(c, &before)) continue;  // as it was at BeginBatch
    if (touched || takes_all) {
      batch(c, touched);
    } else {
      foreign(c.path);
    }
  }
  std::vector<TreeChange>().swap(now);  // its changes were moved out
  if (moved_on && !s.exec_untracked.empty()) {
    // The user's untracked files that a commit made during the batch took
    // in (`git add -A`): tracked and unchanged now, so no status lists them.
    // Their bytes go into the snapshot, so undo gives them back untracked.
    std::set<std::string> in_snapshot;
    for (const TreeChange& c : snapshot_edits) in_snapshot.insert(c.path);
    git_tree* moved_tree = nullptr;
    RETURN_IF_ERROR(GitStatus(git_commit_tree(&moved_tree, head.get()), "read HEAD's tree"));
    TreePtr owned_moved_tree(moved_tree);
    for (const auto& [path, blob] : s.exec_untracked) {
      if (blob.remove || in_snapshot.count(path) > 0) continue;
      if (EntryIn(moved_tree, path).remove) continue;
      kept_in_snapshot.push_back(path);
      snapshot_edits.push_back(blob);
    }
  }
  if (!foreign_rel.empty()) {
    s.notes.push_back(absl::StrCat(
        foreign_rel.size(),
        " path(s) changed during the batch by someone else and left "
        "uncommitted: ",
        absl::StrJoin(foreign_rel, ", ")));
  }
  auto done_without_commit = [&](std::string why) -> BatchCommitResult {
    result.summary = std::move(why);
    result.unattributed_changes.clear();
    absl::Status removed = RemoveJournal(wt);
    if (!removed.ok()) s.notes.push_back(std::string(removed.message()));
    return result;
  };
  if (s.exec_began) {
    // Ignored files outside the plan an exec changed: their old bytes were
    // never kept (every ignored file before every exec would be too much:
    // node_modules, build output), so they are reported, by change time.
    std::set<std::string> known(new_ignored.begin(), new_ignored.end());
    for (const TreeChange& c : ignored_after) known.insert(c.path);
    git_status_options opts;
    RETURN_IF_ERROR(GitStatus(git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION), "initialise status"));
    opts.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
    opts.flags = GIT_STATUS_OPT_INCLUDE_IGNORED | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS;
    git_status_list* list = nullptr;
    RETURN_IF_ERROR(GitStatus(git_status_list_new(&list, wt.repo.get(), &opts), "list the ignored files"));
    for (size_t i = 0; i < git_status_list_entrycount(list); ++i) {
      const git_status_entry* e = git_status_byindex(list, i);
      if ((e->status & GIT_STATUS_IGNORED) == 0 || e->index_to_workdir == nullptr) continue;
      const char* rel = e->index_to_workdir->new_file.path;
      if (rel == nullptr || known.count(rel) > 0) continue;
      const absl::string_view r(rel);
      if (absl::StartsWith(r, ".clada/") || absl::StrContains(r, "/.clada/")) continue;  // clada's own state
      struct stat st;
      if (::lstat(WorkdirPath(wt, rel).c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
      const struct timespec& began = *s.exec_began;
      if (st.st_ctim.tv_sec > began.tv_sec ||
          (st.st_ctim.tv_sec == began.tv_sec && st.st_ctim.tv_nsec >= began.tv_nsec)) {
        result.exec_changed_ignored.push_back(WorkdirPath(wt, rel));
      }
    }
    git_status_list_free(list);
  }
  if (!ignored_after.empty()) {
    std::vector<std::string> names;
    for (const TreeChange& c : ignored_after) names.push_back(c.path);
    s.notes.push_back(absl::StrCat(
        "ignored by git, changed but not committed (`clada undo` still takes "
        "the change back): ",
        absl::StrJoin(names, ", ")));
  }
  if (batch_changes.empty() && ignored_after.empty() && !moved_on) {
    return done_without_commit("the batch changed nothing: no commit");
  }

  // The snapshot as it is kept: without the planned untracked files the
  // batch left alone, with the old bytes of untracked files an exec changed.
  git_oid final_snapshot = s.snapshot_tree;
  if (!snapshot_edits.empty()) {
    std::sort(snapshot_edits.begin(), snapshot_edits.end(),
              [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
    ASSIGN_OR_RETURN(final_snapshot,
                     BuildBatchTree(wt, snapshot_tree.get(), snapshot_edits));
  }
  ASSIGN_OR_RETURN(git_oid empty_tree, EmptyTree(wt));
  const git_oid head_tree = head ? *git_commit_tree_id(head.get()) : empty_tree;
  // HEAD moved: someone committed during the batch; the snapshot (taken on
  // the old HEAD) cannot go below it, so the AI commit builds on the new one.
  const git_oid snapshot_base = moved_on ? *git_commit_tree_id(begin_commit.get()) : head_tree;
  const bool make_snapshot =
      (!head_moved || moved_on) &&
      (head == nullptr || !git_oid_equal(&final_snapshot, &snapshot_base) ||
       !git_oid_equal(&s.index_tree, &snapshot_base));
  const git_oid baseline_id = head_moved ? head_tree : final_snapshot;
  ASSIGN_OR_RETURN(TreePtr baseline, LookupTree(wt, baseline_id));
  std::sort(batch_changes.begin(), batch_changes.end(),
            [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
  ASSIGN_OR_RETURN(git_oid ai_tree,
                   BuildBatchTree(wt, baseline.get(), batch_changes));
  if (git_oid_equal(&ai_tree, &baseline_id) && ignored_after.empty() && !moved_on) {
    return done_without_commit("the batch's changes match HEAD: no commit");
  }

  // Kept before any commit names them, so no AI commit lacks them.
  if (!ignored_after.empty()) {
    RETURN_IF_ERROR(KeepIgnoredChanges(wt, s.batch_id, ignored_before, ignored_after));
  }
  CommitPtr parent = std::move(head);
  if (make_snapshot) {
    const git_commit* below = moved_on ? begin_commit.get() : parent.get();
    ASSIGN_OR_RETURN(TreePtr final_tree, LookupTree(wt, final_snapshot));
    TreePtr head_tree_obj;
    if (below != nullptr) {
      ASSIGN_OR_RETURN(head_tree_obj, LookupTree(wt, snapshot_base));
    }
    ASSIGN_OR_RETURN(std::vector<std::string> files,
                     DiffPaths(wt, head_tree_obj.get(), final_tree.get()));
    ASSIGN_OR_RETURN(git_oid snap,
                     CommitTree(wt, final_snapshot, below,
                                SnapshotMessage(s, files, kept_in_snapshot),
                                s.options, moved_on ? nullptr : "HEAD"));
    s.snapshot = OidHex(snap);
    if (!git_oid_equal(&s.index_tree, &snapshot_base) &&
        !git_oid_equal(&s.index_tree, &final_snapshot)) {
      RETURN_IF_ERROR(KeepIndexTree(s, snap, below));
    }
    if (moved_on) {
      git_reference* ref = nullptr;
      const std::string name = absl::StrCat(kSnapshotRefPrefix, OidHex(snap));
      RETURN_IF_ERROR(GitStatus(git_reference_create(&ref, wt.repo.get(), name.c_str(), &snap, 1,
                                                     "clada: the snapshot of a batch whose code moved HEAD"),
                                absl::StrCat("write ", name)));
      git_reference_free(ref);
    } else {
      ASSIGN_OR_RETURN(parent, LookupCommit(wt.repo.get(), snap));
    }
  }
  std::vector<std::string> batch_paths;
  batch_paths.reserve(batch_changes.size());
  for (const TreeChange& c : batch_changes) batch_paths.push_back(c.path);
  std::string ignored_lines;
  if (!ignored_after.empty()) {
    ignored_lines = "\nIgnored files (kept out of git; `clada undo` restores them):\n";
    for (size_t i = 0; i < ignored_after.size() && i < kSnapshotBodyFiles; ++i) {
      absl::StrAppend(&ignored_lines, "- ", ignored_after[i].path,
                      " (ignored by git: changed, not committed)\n");
    }
    if (ignored_after.size() > kSnapshotBodyFiles) {
      absl::StrAppend(&ignored_lines, "- and ", ignored_after.size() - kSnapshotBodyFiles, " more\n");
    }
  }
  std::string body = s.recovering ? BuildInterruptedMessage(s.planned_rel, batch_paths, foreign_rel)
                                  : BuildBatchMessage(records, foreign_rel, wt.workdir, batch_paths);
  if (!ignored_after.empty() && !s.recovering) {
    // The subject names the actions that changed an ignored file too.
    std::vector<std::string> all = batch_paths;
    for (const TreeChange& c : ignored_after) all.push_back(c.path);
    body = absl::StrCat(BuildBatchSubject(records, wt.workdir, all), body.substr(body.find('\n')));
  }
  std::string moved_lines;
  if (moved_on) {
    moved_lines = absl::StrCat("\nHEAD moved during the batch: ", ShortOid(*s.head_at_begin), " -> ",
                               ShortOid(*git_commit_id(parent.get())),
                               " (committed by the batch's code or by someone else); `clada undo` takes the "
                               "batch back to ", ShortOid(*s.head_at_begin), ".\n");
  }
  std::string moved_trailers;
  if (moved_on) {
    moved_trailers = absl::StrCat(kMovedFromTrailer, OidHex(*s.head_at_begin), "\n");
    if (s.snapshot) absl::StrAppend(&moved_trailers, kSnapshotTrailer, *s.snapshot, "\n");
  }
  const std::string message =
      absl::StrCat(body, ignored_lines, moved_lines, "\n", moved_trailers, kBatchTrailer, s.batch_id, "\n");
  ASSIGN_OR_RETURN(git_oid commit,
                   CommitTree(wt, ai_tree, parent.get(), message, s.options));
  result.commit_id = OidHex(commit);
  result.summary = message.substr(0, message.find('\n'));

  // The index: the batch's paths as committed, and the user's own changes
  // as snapshotted (unless someone staged something else there meanwhile).
  std::vector<TreeChange> index_changes = std::move(batch_changes);  // not read again
  if (make_snapshot && !moved_on) {
    // A foreign change stays in the work tree: the index entry keeps the
    // snapshot's bytes and the stat taken at BeginBatch, so it shows.
    std::set<std::string> skip(batch_paths.begin(), batch_paths.end());
    for (const TreeChange& c : s.tracked) {
      if (skip.count(c.path) == 0) index_changes.push_back(c);
    }
  }
  absl::Status index_status = UpdateIndexFor(wt, index_changes);
  if (!index_status.ok()) {
    s.notes.push_back(absl::StrCat(
        "committed ", ShortOid(commit), ", but the index was not updated (",
        index_status.message(),
        "); `git reset` refreshes it without touching any file"));
  }
  absl::Status removed = RemoveJournal(wt);
  if (!removed.ok()) s.notes.push_back(std::string(removed.message()));
  return result;
}

bool HasJournal(const WorkTree& wt) {
  struct stat st;
  return ::lstat(JournalPath(wt).c_str(), &st) == 0;
}

absl::StatusOr<std::vector<std::string>> RecoverInterruptedBatch(
    const std::string& root, const GitOptions& options) {
  ASSIGN_OR_RETURN(std::optional<WorkTree> wt, OpenWorkTree(root));
  if (!wt) return std::vector<std::string>();
  ASSIGN_OR_RETURN(std::optional<BatchState> loaded, LoadJournal(*wt));
  if (!loaded) return std::vector<std::string>();
  BatchState& s = *loaded;
  s.options = options;
  const WorkTree& w = *s.wt;
  ASSIGN_OR_RETURN(CommitPtr head, HeadCommit(w.repo.get()));
  // Killed after its commits (or between them): finish what is left.
  if (head != nullptr && Trailer(head.get(), kBatchTrailer) == s.batch_id) {
    if (IsAiCommit(head.get())) {
      RETURN_IF_ERROR(RemoveJournal(w));
      return std::vector<std::string>();
    }
    s.head_at_begin = *git_commit_id(head.get());
    s.snapshot_tree = *git_commit_tree_id(head.get());
    s.index_tree = s.snapshot_tree;
    s.kept_untracked.clear();
  }
  ActionRecord record;
  record.action = "interrupted batch";
  record.success = false;
  for (const std::string& rel : s.planned_rel)
    record.touched_paths.mut().push_back(WorkdirPath(w, rel));
  record.touches_anything = s.has_exec;
  ASSIGN_OR_RETURN(BatchCommitResult r, CommitBatch(s, {record}));
  std::vector<std::string> notes = s.notes;
  if (r.commit_id) {
    notes.insert(notes.begin(),
                 absl::StrCat("the previous clada run was interrupted mid-batch "
                              "(killed); what it changed is now recorded as ",
                              r.commit_id->substr(0, 7), " '", r.summary,
                              "': `clada undo` takes it back"));
  } else {
    notes.insert(notes.begin(),
                 "the previous clada run was interrupted mid-batch (killed); "
                 "it had changed nothing");
  }
  return notes;
}

namespace {

// Without git: the journal only names what the interrupted batch meant to
// touch.
std::string PlainJournalPath(const std::string& root) {
  return root + "/.clada/journal";
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

namespace {

// What the note about a killed plain run needs from its journal: the
// count, whether it ran an exec, and the first paths. Read by a SAX
// parser from the journal's first 256 KB only (a parse error where they
// are cut short ends it), so a journal of any size is read in bounded
// memory.
struct PlainJournalHead {
  static constexpr size_t kNamed = 20;  // a note of 300,000 paths would be megabytes
  std::vector<std::string> paths;       // the first kNamed
  int64_t count = -1;                   // -1: not read (a journal cut short)
  bool has_exec = false;
};

class PlainJournalReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit PlainJournalReader(PlainJournalHead* head) : head_(head) {}
  bool key(string_t& k) override {
    key_ = depth_ == 1 ? k : "";
    return true;
  }
  bool start_object(std::size_t) override { return Enter(); }
  bool start_array(std::size_t) override {
    in_paths_ = depth_ == 1 && key_ == "paths";
    return Enter();
  }
  bool end_object() override { return Leave(); }
  bool end_array() override {
    in_paths_ = false;
    return Leave();
  }
  bool string(string_t& v) override {
    if (in_paths_ && depth_ == 2 && head_->paths.size() < PlainJournalHead::kNamed)
      head_->paths.push_back(v);
    return true;
  }
  bool boolean(bool v) override {
    if (depth_ == 1 && key_ == "has_exec") head_->has_exec = v;
    return true;
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (depth_ == 1 && key_ == "count") head_->count = static_cast<int64_t>(v);
    return true;
  }
  bool null() override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // a journal cut short (or torn): keep what was read
  }

 private:
  bool Enter() { return ++depth_ <= 2; }
  bool Leave() {
    --depth_;
    return true;
  }
  PlainJournalHead* head_;
  std::string key_;
  int depth_ = 0;
  bool in_paths_ = false;
};

// Without git: reports a journal a killed run left, then writes this one's.
// The journal is {"version":2,"count":N,"has_exec":B,"time":T,"paths":[...]}:
// the count and exec come first, so its first 256 KB say what the note
// needs however many paths follow (a batch of 400,000 paths leaves a
// journal of tens of megabytes).
void PlainJournal(const std::string& root, const BatchPlan& plan,
                  std::vector<std::string>* notes, bool write) {
  const std::string path = internal::PlainJournalPath(root);
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    PlainJournalHead head;
    std::string unreadable;
    absl::StatusOr<std::string> text = core::ReadFileHead(path, 256 << 10);
    if (text.ok()) {
      PlainJournalReader reader(&head);
      nlohmann::json::sax_parse(*text, &reader);
    } else {
      unreadable = absl::StrCat(" (its journal '", path, "' could not be read: ",
                                text.status().message(), ")");
    }
    const int64_t count = head.count >= 0 ? head.count
                                          : static_cast<int64_t>(head.paths.size());
    const int64_t more = count - static_cast<int64_t>(head.paths.size());
    notes->push_back(absl::StrCat(
        "the previous clada run was interrupted mid-batch (killed); without "
        "git nothing recorded it", unreadable, ". It was about to change: ",
        head.paths.empty() ? "(no file paths)" : absl::StrJoin(head.paths, ", "),
        more > 0 ? absl::StrCat(" and ", more, " more (listed in the journal it left, now removed)")
                 : head.count < 0 && !head.paths.empty() ? " and perhaps more" : "",
        head.has_exec ? ", and it ran an exec" : ""));
    ::unlink(path.c_str());
  }
  if (!write) return;
  // Written path by path, through a buffer of 64 KB: the journal of
  // 300,000 paths built whole first (and grown twice over as it was) was a
  // batch's largest allocation, 40 MB.
  if (!core::CreateStateDirectory(root + "/.clada").ok()) return;
  (void)core::WriteFileAtomicPieces(path, [&](core::AppendPiece append) {
    constexpr size_t kBuffer = 64 << 10;
    std::string text = absl::StrCat(
        "{\"version\":2,\"count\":", plan.paths.size(), ",\"has_exec\":",
        plan.has_exec ? "true" : "false", ",\"time\":",
        nlohmann::json(internal::IsoTimeNow()).dump(), ",\"paths\":[");
    text.reserve(kBuffer + 4096);
    for (size_t i = 0; i < plan.paths.size(); ++i) {
      if (i > 0) text += ',';
      text += nlohmann::json(internal::PlannedPath(root, plan.paths[i])).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (text.size() >= kBuffer) {
        RETURN_IF_ERROR(append(text));
        text.clear();
      }
    }
    text += "]}\n";
    return append(text);
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<BatchTransaction>> BeginBatch(
    const std::string& working_root, const GitOptions& options,
    const BatchPlan& plan) {
  auto state = std::make_unique<BatchState>();
  state->options = options;
  state->has_exec = plan.has_exec;
  state->read_only = plan.paths.empty() && !plan.has_exec;
  if (options.mode == GitOptions::Mode::kOff) {
    state->notes.push_back("git is off (--no-git): nothing is committed");
    ASSIGN_OR_RETURN(std::string root, internal::CanonicalRoot(working_root));
    PlainJournal(root, plan, &state->notes, !state->read_only);
    state->plain_root = root;
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
    PlainJournal(root, plan, &state->notes, !state->read_only);
    state->plain_root = root;
    return std::make_unique<BatchTransaction>(std::move(state));
  }
  RETURN_IF_ERROR(internal::CheckNoGitOperationInProgress(*wt));
  RETURN_IF_ERROR(internal::CheckNotSteppedBack(*wt));
  ASSIGN_OR_RETURN(std::vector<std::string> recovered,
                   internal::RecoverInterruptedBatch(root, options));
  state->notes = std::move(recovered);
  state->wt = std::move(*wt);
  const WorkTree& w = *state->wt;
  ASSIGN_OR_RETURN(CommitPtr head, internal::HeadCommit(w.repo.get()));
  if (head != nullptr && git_repository_head_detached(w.repo.get()) == 1) {
    state->notes.push_back(absl::StrCat(
        "HEAD is detached at ", internal::ShortOid(*git_commit_id(head.get())),
        ": clada's commits are on no branch; create one with `git switch -c "
        "<name>` to keep "
        "them"));
  }
  if (head != nullptr) state->head_at_begin = *git_commit_id(head.get());
  state->active = true;
  if (state->read_only) return std::make_unique<BatchTransaction>(std::move(state));
  state->batch_id = internal::NewBatchId();
  RETURN_IF_ERROR(internal::CaptureBeginState(*state, root, plan, head.get()));
  RETURN_IF_ERROR(internal::WriteJournal(*state));
  if (plan.has_exec) {
    struct stat st;
    if (::stat(internal::JournalPath(w).c_str(), &st) == 0) state->exec_began = st.st_ctim;
  }
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
  if (!s.plain_root.empty()) ::unlink(internal::PlainJournalPath(s.plain_root).c_str());
  if (!s.active) {
    result.summary = "git not used: no commit";
    return result;
  }
  if (s.read_only) {
    result.summary = "the batch only read: no commit";
    return result;
  }
  return internal::CommitBatch(s, records);
}

}  // namespace clada::git_tx
