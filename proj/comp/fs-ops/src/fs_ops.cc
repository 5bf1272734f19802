#include "proj/comp/fs-ops/src/fs_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/answer_lines.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/terms.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/fs-ops/src/file_store.h"
#include "proj/comp/fs-ops/src/git_ignore.h"
#include "proj/comp/fs-ops/src/glob_pattern.h"
#include "proj/comp/fs-ops/src/line_range.h"
#include "proj/comp/fs-ops/src/placeholder.h"
#include "proj/comp/fs-ops/src/search_replace.h"
#include "proj/comp/fs-ops/src/text_edit.h"
#include "proj/comp/fs-ops/src/tree_search.h"
#include "proj/comp/fs-ops/src/unified_diff.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"
#include "proj/comp/patch-text/src/diff_format.h"
#include "proj/comp/patch-text/src/envelope_format.h"
#include "proj/comp/fs-ops/src/utf8.h"

namespace clada::fs_ops {
namespace {

using core::ActionOutcome;
using core::Json;
using internal::EditResult;

// One action being run: typed parameters, path resolution, display paths.
class Call {
 public:
  Call(const core::Action& action, const core::ExecContext& ctx, FileStore& store)
      : action_(action), ctx_(ctx), store_(store) {}

  const core::ExecContext& ctx() const { return ctx_; }
  FileStore& store() const { return store_; }
  const std::string& name() const { return action_.name; }
  // The action's block label (task-3, csl-2, s01, ...).
  const std::string& label() const { return action_.metadata.block_id; }
  bool IsLineParam(const char* key) const { return action_.IsLineParam(key); }
  // What the edit may do beyond its parameters (core::EditOptions).
  const core::EditOptions& edit_options() const { return action_.edit_options; }
  // Adds `w` to `out` unless the action already carries it: a reader gives
  // the warnings of a diff's or patch's text with its action, and the text
  // read again here would give them a second time.
  void AddTextWarning(std::vector<std::string>& out, const std::string& w) const {
    if (std::find(action_.warnings.begin(), action_.warnings.end(), w) == action_.warnings.end()) out.push_back(w);
  }

  absl::StatusOr<std::string> Str(const char* key) const {
    ASSIGN_OR_RETURN(std::optional<std::string> v, OptStr(key));
    if (!v.has_value()) return Missing(key);
    return *std::move(v);
  }

  absl::StatusOr<std::optional<std::string>> OptStr(const char* key) const {
    const Json* v = Find(key);
    if (v == nullptr || v->is_null()) return std::optional<std::string>();
    if (!v->is_string()) return WrongType(key, "a string", *v);
    return std::optional<std::string>(v->get<std::string>());
  }

  // Integers arrive typed from the action parser; a string of digits is
  // accepted too.
  absl::StatusOr<std::optional<int64_t>> OptInt(const char* key) const {
    const Json* v = Find(key);
    if (v == nullptr || v->is_null()) return std::optional<int64_t>();
    if (v->is_number_integer()) return std::optional<int64_t>(v->get<int64_t>());
    if (v->is_string()) {
      int64_t n = 0;
      std::string s = v->get<std::string>();
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(s), &n)) return std::optional<int64_t>(n);
    }
    return WrongType(key, "an integer", *v);
  }

  absl::StatusOr<std::optional<bool>> OptBool(const char* key) const {
    const Json* v = Find(key);
    if (v == nullptr || v->is_null()) return std::optional<bool>();
    if (v->is_boolean()) return std::optional<bool>(v->get<bool>());
    if (v->is_string() && v->get<std::string>() == "true") return std::optional<bool>(true);
    if (v->is_string() && v->get<std::string>() == "false") return std::optional<bool>(false);
    return WrongType(key, "a boolean (true or false)", *v);
  }

  // Canonical path for `path`, following symlinks (the policy checks where
  // they lead).
  absl::StatusOr<std::string> Resolve(absl::string_view path) const {
    return WithRelativeHint(path, core::ResolvePath(ctx_.paths, path));
  }

  // Canonical path naming `path` itself: a symlink as the final component
  // is not followed (file_delete and file_move act on the link, as rm and mv
  // do). Its parent is resolved and checked like any path.
  absl::StatusOr<std::string> ResolveNoFollow(absl::string_view path) const {
    if (!path.empty() && path.find('\0') == absl::string_view::npos) {
      std::string absolute = path[0] == '/' ? std::string(path) : absl::StrCat(ctx_.paths.working_root, "/", path);
      std::string norm = core::NormalizeAbsolutePath(absolute);
      size_t slash = norm.rfind('/');
      if (norm != "/" && slash != std::string::npos) {
        std::string name = norm.substr(slash + 1);
        absl::StatusOr<std::string> parent = core::ResolvePath(ctx_.paths, slash == 0 ? "/" : norm.substr(0, slash));
        if (parent.ok()) {
          std::string candidate = *parent == "/" ? absl::StrCat("/", name) : absl::StrCat(*parent, "/", name);
          struct stat st;
          if (store_.Lstat(candidate, &st) == 0 && S_ISLNK(st.st_mode)) {
            if (core::IsDeniedName(name)) {
              return core::WithCode(
                  absl::PermissionDeniedError(absl::StrCat("path_denied: '", path, "' resolves to '", candidate,
                                                           "', which is refused because it is a ", name, " entry")),
                  "path_denied");
            }
            return candidate;
          }
        }
      }
    }
    return WithRelativeHint(path, core::ResolvePath(ctx_.paths, path));
  }

  // An absolute path refused (outside the roots) that names an existing
  // file when read from the working root: "/src/a.ts" meant "src/a.ts".
  absl::StatusOr<std::string> WithRelativeHint(absl::string_view path, absl::StatusOr<std::string> resolved) const {
    if (resolved.ok() || path.empty() || path[0] != '/' || path.find('\0') != absl::string_view::npos) {
      return resolved;
    }
    const size_t start = path.find_first_not_of('/');
    if (start == absl::string_view::npos) return resolved;
    absl::string_view relative = path.substr(start);
    absl::StatusOr<std::string> meant = core::ResolvePath(ctx_.paths, relative);
    struct stat st;
    if (relative.empty() || !meant.ok() || store_.Lstat(*meant, &st) != 0) return resolved;
    return absl::Status(resolved.status().code(),
                        absl::StrCat(resolved.status().message(), " (did you mean '", Display(*meant),
                                     "', relative to the working root, without the leading '/'?)"));
  }

  std::string Display(absl::string_view canonical) const { return core::DisplayPath(ctx_.paths, canonical); }

 private:
  const Json* Find(const char* key) const {
    if (!action_.params.is_object()) return nullptr;
    auto it = action_.params.find(key);
    return it == action_.params.end() ? nullptr : &*it;
  }
  absl::Status Missing(const char* key) const {
    return absl::InvalidArgumentError(
        absl::StrCat("the required parameter '", key, "' is missing; add ", key, " = \"...\" to the block"));
  }
  static absl::Status WrongType(const char* key, absl::string_view want, const Json& got) {
    std::string shown = got.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
    if (shown.size() > 80) shown = shown.substr(0, 80) + "...";
    return absl::InvalidArgumentError(absl::StrCat("parameter '", key, "' must be ", want, ", not ", shown));
  }

  const core::Action& action_;
  const core::ExecContext& ctx_;
  FileStore& store_;
};

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string LimitText(int64_t limit) {
  if (limit < 1024 * 1024) return absl::StrCat(limit, " bytes");
  return absl::StrCat(limit, " bytes (", (limit + 512 * 1024) / (1024 * 1024), " MB)");
}

// ------------------------------------------------------------ did you mean

// The Levenshtein distance of `a` and `b`, or cap + 1 when it is over cap.
int EditDistance(absl::string_view a, absl::string_view b, int cap) {
  if (static_cast<int>(a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > cap) return cap + 1;
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    int best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
      best = std::min(best, row[j]);
    }
    if (best > cap) return cap + 1;
  }
  return std::min(row[b.size()], cap + 1);
}

// Whether the existing name `have` is likely what `want` meant: the same
// but for case, or a typo away with the same extension, in a stem long
// enough for a typo to be told from another name ("confg.yaml" is
// "config.yaml"; "x.txt" is not "a.txt").
bool NameIsClose(absl::string_view want, absl::string_view have) {
  if (absl::EqualsIgnoreCase(want, have)) return true;
  const size_t want_dot = want.rfind('.'), have_dot = have.rfind('.');
  absl::string_view want_stem = want.substr(0, want_dot), have_stem = have.substr(0, have_dot);
  absl::string_view want_ext = want_dot == absl::string_view::npos ? "" : want.substr(want_dot);
  absl::string_view have_ext = have_dot == absl::string_view::npos ? "" : have.substr(have_dot);
  if (!absl::EqualsIgnoreCase(want_ext, have_ext)) return false;
  const int cap = want_stem.size() >= 8 ? 2 : want_stem.size() >= 5 ? 1 : 0;
  return cap > 0 &&
         EditDistance(absl::AsciiStrToLower(want_stem), absl::AsciiStrToLower(have_stem), cap) <= cap;
}

// Entries no walk of fs-ops shows (as tree_search), and trees too big to
// search for a name.
bool SkippedInSearch(absl::string_view name) {
  return name == ".git" || name == ".ssh" || name == ".clada" || name == "node_modules";
}

// How many directory entries the search for a missing path's name reads.
constexpr int kSuggestionEntries = 5000;

// What a bounded walk does after an entry: look into it (a directory), not
// (an entry left out), or stop the walk.
enum class Walk { kDescend, kSkip, kStop };

// Breadth first under `root`, each directory's entries by name, at most
// kSuggestionEntries entries and 8 levels below it, the entries
// SkippedInSearch left out: visit(entry, path) for each, while `more()`
// holds before each directory. True when it saw everything under `root`
// (no bound stopped it, nor a kStop with directories still to read).
template <typename More, typename Visit>
bool WalkBounded(const Call& call, const std::string& root, More more, Visit visit) {
  std::deque<std::pair<std::string, int>> queue = {{root, 0}};
  int read = 0;
  bool whole = true;
  while (!queue.empty() && more()) {
    auto [d, depth] = queue.front();
    queue.pop_front();
    std::vector<DirEntry> entries;
    if (call.store().List(d, &entries) != 0) continue;
    std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    for (const DirEntry& e : entries) {
      if (++read > kSuggestionEntries) return false;
      if (SkippedInSearch(e.name)) continue;
      std::string p = d == "/" ? absl::StrCat("/", e.name) : absl::StrCat(d, "/", e.name);
      const Walk next = visit(e, p);
      if (next == Walk::kStop) return whole && queue.empty();
      if (next == Walk::kSkip || !e.is_dir) continue;
      if (depth < 8) {
        queue.push_back({std::move(p), depth + 1});
      } else {
        whole = false;
      }
    }
  }
  return whole && queue.empty();
}

// Existing paths `missing` (canonical; it does not exist) most likely
// meant, best first, at most three: each missing component replaced by a
// close name of its directory (case, a typo), then the same file name in
// other directories of the working root, nearest to the asked path first.
std::vector<std::string> NearbyPaths(const Call& call, const std::string& missing) {
  const std::string& root = call.ctx().paths.working_root;
  if (missing == root || !core::IsWithin(missing, root)) return {};
  std::vector<std::string> parts =
      absl::StrSplit(absl::string_view(missing).substr(root.size() + (root == "/" ? 0 : 1)), '/', absl::SkipEmpty());
  if (parts.empty()) return {};
  std::vector<std::string> found;
  // Component by component.
  std::string dir = root == "/" ? "" : root;
  bool walked = true;
  for (const std::string& part : parts) {
    std::string exact = absl::StrCat(dir, "/", part);
    struct stat st;
    if (call.store().Lstat(exact, &st) == 0) {
      dir = std::move(exact);
      continue;
    }
    std::vector<DirEntry> entries;
    if (call.store().List(dir.empty() ? "/" : dir, &entries) != 0) {
      walked = false;
      break;
    }
    std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    const DirEntry* best = nullptr;
    for (const DirEntry& e : entries) {
      if (SkippedInSearch(e.name)) continue;
      if (absl::EqualsIgnoreCase(e.name, part)) {
        best = &e;
        break;
      }
      if (best == nullptr && NameIsClose(part, e.name)) best = &e;
    }
    if (best == nullptr) {
      walked = false;
      break;
    }
    dir = absl::StrCat(dir, "/", best->name);
  }
  if (walked && dir != missing) found.push_back(dir);
  // The same name elsewhere: breadth first from the working root, within a
  // bounded number of entries.
  const std::string& name = parts.back();
  std::vector<std::string> elsewhere;
  WalkBounded(
      call, root, [&elsewhere] { return elsewhere.size() < 10; },
      [&](const DirEntry& e, const std::string& p) {
        if (absl::EqualsIgnoreCase(e.name, name) && p != missing &&
            std::find(found.begin(), found.end(), p) == found.end()) {
          elsewhere.push_back(p);
        }
        return Walk::kDescend;
      });
  std::stable_sort(elsewhere.begin(), elsewhere.end(), [&](const std::string& a, const std::string& b) {
    return EditDistance(a, missing, 1000) < EditDistance(b, missing, 1000);
  });
  for (std::string& p : elsewhere) found.push_back(std::move(p));
  if (found.size() > 3) found.resize(3);
  return found;
}

// " (did you mean 'q'?)" for a missing path with a likely meaning, or "".
std::string DidYouMean(const Call& call, const std::string& missing) {
  std::vector<std::string> near = NearbyPaths(call, missing);
  if (near.empty()) return "";
  std::vector<std::string> shown;
  for (const std::string& p : near) shown.push_back(absl::StrCat("'", call.Display(p), "'"));
  std::string list = shown.size() == 1 ? shown[0]
                                       : absl::StrCat(absl::StrJoin(shown.begin(), shown.end() - 1, ", "), " or ",
                                                      shown.back());
  return absl::StrCat(" (did you mean ", list, "?)");
}

// The regular files named `name` under the working root, breadth first
// within the bound of NearbyPaths' walk (the same entries skipped, and every
// denied name), at most `max` of them. `*complete` is false when the bound
// stopped the walk before its end.
std::vector<std::string> FilesNamed(const Call& call, absl::string_view name, size_t max, bool* complete) {
  std::vector<std::string> found;
  *complete = WalkBounded(
      call, call.ctx().paths.working_root, [&found, max] { return found.size() < max; },
      [&](const DirEntry& e, const std::string& p) {
        if (core::IsDeniedName(e.name)) return Walk::kSkip;
        if (e.is_dir) return Walk::kDescend;
        struct stat st;
        if (e.name == name && call.store().Lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
          found.push_back(p);
          if (found.size() >= max) return Walk::kStop;
        }
        return Walk::kDescend;
      });
  return found;
}

// The file an edit with EditOptions::find_file_by_name edits: its
// path; or, when nothing is there, the one regular file of that file name
// under the working root, with a warning naming both paths (an LLM often
// writes a path short or from the wrong folder). Several files of that
// name: an error naming them. None: the path, for RequireFile's error.
// Only for blocks: elsewhere a missing path is an error with "did you mean".
absl::StatusOr<std::string> BlockPath(const Call& call, const std::string& param, std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  if (!call.edit_options().find_file_by_name) return path;
  struct stat st;
  const int err = call.store().Stat(path, &st);
  if (err != ENOENT && err != ENOTDIR) return path;
  const std::string name = path.substr(path.rfind('/') + 1);
  constexpr size_t kMaxNamed = 10;
  bool complete = true;
  std::vector<std::string> found = FilesNamed(call, name, kMaxNamed, &complete);
  if (found.empty()) return path;
  const std::string asked = call.Display(path);
  if (found.size() == 1 && complete) {
    ASSIGN_OR_RETURN(std::string resolved, call.Resolve(found[0]));
    warnings->push_back(absl::StrCat("the path '", param, "' does not exist; '", call.Display(resolved),
                                     "' is the one file named '", name,
                                     "' in the project, so the block edited it. Write its full path next time"));
    return resolved;
  }
  std::vector<std::string> shown;
  for (const std::string& p : found) shown.push_back(absl::StrCat("'", call.Display(p), "'"));
  if (found.size() == 1) {
    return absl::NotFoundError(absl::StrCat(
        "file '", asked, "' does not exist; ", shown[0], " has its name, but the search for other files named '", name,
        "' stopped after ", kSuggestionEntries,
        " entries, so it may not be the only one; nothing was changed. Write the block's path in full"));
  }
  return absl::NotFoundError(absl::StrCat(
      "file '", asked, "' does not exist, and ", found.size() >= kMaxNamed ? "at least " : "", found.size(),
      " files are named '", name, "': ", internal::JoinNumbers(shown),
      "; nothing was changed. Write the block's path in full, as the one it means"));
}

// Stats `path` (following links) for actions that need an existing file.
absl::Status RequireFile(const Call& call, const std::string& path, absl::string_view what, struct stat* st) {
  if (int err = call.store().Stat(path, st); err != 0) {
    if (err == ENOENT || err == ENOTDIR) {
      return absl::NotFoundError(
          absl::StrCat(what, " '", call.Display(path), "' does not exist", DidYouMean(call, path),
                       ". Check the path with ls or glob",
                       call.name() == "file_read" || call.name() == "files_read" || call.name() == "file_read_numbered"
                           ? ""
                           : ", or create the file first"));
    }
    return core::ErrnoStatus(err, "cannot access", call.Display(path));
  }
  if (S_ISDIR(st->st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " '", call.Display(path), "' is a directory, not a file; use ls to list it"));
  }
  if (!S_ISREG(st->st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " '", call.Display(path),
                     "' is not a regular file (a FIFO, socket or device); it was not opened, so nothing waits on it"));
  }
  return absl::OkStatus();
}

// A file's text with its BOM split off.
struct TextFile {
  bool bom = false;
  std::string body;
  mode_t mode = 0;
};

absl::StatusOr<std::string> ReadLimited(const Call& call, const std::string& path, absl::string_view what,
                                        bool for_edit) {
  struct stat st;
  RETURN_IF_ERROR(RequireFile(call, path, what, &st));
  int64_t limit = call.ctx().limits.max_file_bytes;
  if (limit >= 0 && st.st_size > limit) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", call.Display(path), "' is ", st.st_size, " bytes, over the limit of ", LimitText(limit),
                     " for ", for_edit ? "editing" : "reading", " files; ",
                     for_edit ? absl::StrCat("rewrite it whole with ", core::Term("file_write"),
                                             ", or edit it with a command via exec")
                              : "search it with grep, or read part of it with a command via exec"));
  }
  // The store opens without blocking and refuses what is not a regular
  // file (a FIFO put there since the check above).
  std::string text;
  int err = call.store().ReadRegular(path, limit, &text, &st);
  if (err == kNotRegular) {
    return absl::FailedPreconditionError(absl::StrCat(what, " '", call.Display(path),
                                                      "' is not a regular file (a FIFO, socket or device); it was "
                                                      "not opened, so nothing waits on it"));
  }
  if (err == EFBIG) {
    return absl::FailedPreconditionError(absl::StrCat("'", call.Display(path), "' grew over the limit of ",
                                                      LimitText(limit), " while being read; try again"));
  }
  if (err != 0) return core::ErrnoStatus(err, "cannot read", call.Display(path));
  return text;
}

// Reads a file for a text edit: within the size limit, UTF-8, no NUL.
absl::StatusOr<TextFile> ReadForEdit(const Call& call, const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadLimited(call, path, "file", true));
  TextFile f;
  if (absl::StartsWith(text, internal::kUtf8Bom)) {
    f.bom = true;
    text.erase(0, internal::kUtf8Bom.size());
  }
  RETURN_IF_ERROR(internal::CheckUtf8Text(text, call.Display(path)));
  f.body = std::move(text);
  return f;
}

// Reads a file to show it: binary files are refused, invalid UTF-8 is
// shown with U+FFFD (and a warning).
absl::StatusOr<TextFile> ReadForView(const Call& call, const std::string& path, std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(std::string text, ReadLimited(call, path, "file", false));
  TextFile f;
  if (absl::StartsWith(text, internal::kUtf8Bom)) {
    f.bom = true;
    text.erase(0, internal::kUtf8Bom.size());
  }
  const void* nul = memchr(text.data(), '\0', text.size());
  if (nul != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "'", call.Display(path), "' is a binary file (NUL byte at offset ", static_cast<const char*>(nul) - text.data(),
        "), not text; it is not shown. Use ls to see its size"));
  }
  size_t bad = 0;
  if (!internal::IsValidUtf8(text, &bad)) {
    warnings->push_back(absl::StrCat("'", call.Display(path), "' is not valid UTF-8 (first bad byte at offset ", bad,
                                     "); invalid bytes are shown as U+FFFD, and text edits will refuse this file"));
    text = internal::ToValidUtf8(text);
  }
  f.body = std::move(text);
  return f;
}

absl::Status WriteText(const Call& call, const std::string& path, bool bom, absl::string_view body) {
  absl::Status s = bom ? call.store().WriteAtomic(path, absl::StrCat(internal::kUtf8Bom, body))
                       : call.store().WriteAtomic(path, body);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("cannot write '", call.Display(path), "': ", s.message()));
  }
  return absl::OkStatus();
}

// WriteText for an edit's result not built whole: its pieces go to the
// temp file a megabyte at a time (the BOM first when the file had one), as
// atomic as WriteText.
absl::Status WriteSpliced(const Call& call, const std::string& path, bool bom, const internal::SplicedText& t) {
  constexpr size_t kChunk = 1 << 20;
  absl::Status s = call.store().WriteAtomicPieces(path, [&](core::AppendPiece append) -> absl::Status {
    std::string chunk;
    chunk.reserve(kChunk);
    if (bom) chunk.append(internal::kUtf8Bom.data(), internal::kUtf8Bom.size());
    for (size_t i = 0; i < t.PieceCount(); ++i) {
      const absl::string_view piece = t.Piece(i);
      if (chunk.size() + piece.size() > kChunk && !chunk.empty()) {
        RETURN_IF_ERROR(append(chunk));
        chunk.clear();
      }
      if (piece.size() >= kChunk) {
        RETURN_IF_ERROR(append(piece));
      } else {
        chunk.append(piece.data(), piece.size());
      }
    }
    return chunk.empty() ? absl::OkStatus() : append(chunk);
  });
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("cannot write '", call.Display(path), "': ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status MakeParents(const Call& call, const std::string& path) {
  std::string parent = Parent(path);
  absl::Status s = call.store().MakeDirs(parent);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("cannot create the parent directory '", call.Display(parent), "' of '",
                                               call.Display(path), "': ", s.message()));
  }
  return absl::OkStatus();
}

bool Exists(const Call& call, const std::string& path) {
  struct stat st;
  return call.store().Lstat(path, &st) == 0;
}

// Splits a multiline paths parameter: one path per line, blank lines ignored.
std::vector<std::string> SplitPaths(absl::string_view paths) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(paths, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) out.emplace_back(line);
  }
  return out;
}

ActionOutcome Touched(ActionOutcome out, std::vector<std::string> paths) {
  out.touched_paths = std::move(paths);
  return out;
}

// The batch's line record (core::AnswerLines, when the engine keeps one):
// each change of a file's text, a file created, deleted or moved.
void NoteEdit(const Call& call, const std::string& path, absl::string_view before, absl::string_view after) {
  if (call.ctx().answer_lines != nullptr) call.ctx().answer_lines->Record(path, before, after, call.label());
}
// An edit of places: the record from its pieces, the result not built.
void NoteSplicedEdit(const Call& call, const std::string& path, const internal::SplicedText& t) {
  if (call.ctx().answer_lines == nullptr) return;
  const core::PiecedText after{t.PieceCount(), [&t](size_t i) { return t.Piece(i); }};
  call.ctx().answer_lines->Record(path, t.original(), after, call.label());
}
void NoteCreated(const Call& call, const std::string& path) {
  if (call.ctx().answer_lines != nullptr) call.ctx().answer_lines->Created(path, call.label());
}
void NoteGone(const Call& call, const std::string& path) {
  if (call.ctx().answer_lines != nullptr) call.ctx().answer_lines->Forget(path);
}
void NoteMoved(const Call& call, const std::string& from, const std::string& to) {
  if (call.ctx().answer_lines != nullptr) call.ctx().answer_lines->Move(from, to);
}

// The file a write through `param` (resolved to `path`) goes to.
// ResolvePath follows a symlink whose target exists; a dangling one (its
// target does not exist yet) it names as itself, and writing there would
// replace the link with a file. So its target is resolved and checked like
// any path, as a shell's `>` follows it: inside the allowed roots it is
// created, outside it is path_escape.
absl::StatusOr<std::string> FollowDanglingLink(const Call& call, absl::string_view param, std::string path) {
  constexpr int kMaxHops = 40;  // as the kernel's ELOOP limit
  for (int hop = 0; hop < kMaxHops; ++hop) {
    struct stat st;
    if (call.store().Lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::string target;
    if (int err = call.store().Readlink(path, &target); err != 0) {
      return core::ErrnoStatus(err, "cannot read the symlink", call.Display(path));
    }
    std::string absolute = !target.empty() && target[0] == '/' ? target : absl::StrCat(Parent(path), "/", target);
    absl::StatusOr<std::string> next = call.Resolve(absolute);
    if (!next.ok()) {
      // "path_escape: '<absolute>' resolves to ..." names the link instead.
      std::string message(next.status().message());
      std::string quoted = absl::StrCat("'", absolute, "'");
      size_t at = message.find(quoted);
      std::string link = absl::StrCat("'", param, "' (a symlink to '", target, "', which does not exist yet)");
      if (at != std::string::npos) {
        message.replace(at, quoted.size(), link);
      } else {
        absl::StrAppend(&message, " (", link, ")");
      }
      return core::WithCode(absl::Status(next.status().code(), message), core::ErrorCode(next.status()));
    }
    path = *std::move(next);
  }
  return absl::FailedPreconditionError(
      absl::StrCat("'", param, "' is a chain of more than ", kMaxHops, " symlinks (a loop?); nothing was written"));
}

// ---------------------------------------------------------------- file_write

// Lines of `text`: its line breaks, plus a last line without one.
int64_t CountLines(absl::string_view text) {
  return internal::CountNewlines(text) + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// Content given as lines (a heredoc) ends with a line break.
std::string AsLines(const Call& call, std::string content) {
  if (call.IsLineParam("content") && !content.empty() && content.back() != '\n') content.push_back('\n');
  return content;
}

// What a write changed, for the LLM to check its edit: data["diff"], a
// unified diff with two lines of context, and its counts; a rewrite too
// different to align within the diff's work bound says so in
// data["diff_skipped"] instead, with both line counts.
void PutDiff(internal::UnifiedDiff d, Json& data);
void DescribeChange(const std::string& shown, absl::string_view before, absl::string_view after, Json& data) {
  if (before.find('\0') != absl::string_view::npos || after.find('\0') != absl::string_view::npos) {
    // Binary bytes as diff lines would be noise, or a flood.
    if (before != after) {
      data["diff_skipped"] = absl::StrCat("binary file replaced: ", before.size(), " bytes -> ", after.size(), " bytes");
    }
    return;
  }
  PutDiff(internal::DiffTexts(before, after, shown), data);
}

// The diff of an edit of places (DiffSplices: from the places, neither text
// split whole). Its text is bounded: the larger of the action's output
// limit (max_output) and 16 MiB. Below the bound the diff is whole, as
// DiffTexts', and the report cuts it to its share (head and tail); over it
// (a 100 MB file with a place on every line: some 250 MB of diff) it is
// not kept, and only its line counts are given.
void DescribeSplicedChange(const Call& call, const std::string& shown, const internal::SplicedText& t, Json& data) {
  if (!t.spans().empty() && t.TextFor(0).find('\0') != absl::string_view::npos) {
    data["diff_skipped"] = absl::StrCat("binary file replaced: ", t.original().size(), " bytes -> ", t.size(), " bytes");
    return;
  }
  constexpr int64_t kMinDiffBound = int64_t{16} << 20;
  const int64_t limit = std::max<int64_t>(call.ctx().limits.max_output_bytes, kMinDiffBound);
  internal::UnifiedDiff d = internal::DiffSplices(t, shown, {}, limit);
  if (d.too_long) {
    data["diff_skipped"] = absl::StrCat("diff not shown: it is over ", limit, " bytes; ", d.removed,
                                        d.removed == 1 ? " line" : " lines", " removed, ", d.added,
                                        d.added == 1 ? " line" : " lines", " added");
    data["lines_added"] = d.added;
    data["lines_removed"] = d.removed;
    return;
  }
  PutDiff(std::move(d), data);
}

// data["diff"] and its counts, or data["diff_skipped"] when `d` was not
// computed.
void PutDiff(internal::UnifiedDiff d, Json& data) {
  if (!d.computed) {
    data["diff_skipped"] = absl::StrCat("whole file replaced: ", d.old_lines, d.old_lines == 1 ? " line" : " lines",
                                        " -> ", d.new_lines, d.new_lines == 1 ? " line" : " lines",
                                        " (too different to diff line by line)");
    return;
  }
  if (d.text.empty()) return;
  data["diff"] = std::move(d.text);
  data["lines_added"] = d.added;
  data["lines_removed"] = d.removed;
}

// How many first lines of a new file the result shows.
constexpr int kNewFileLinesShown = 5;

// A new file: its line count and first lines (data["first_lines"]).
void DescribeNewFile(absl::string_view content, Json& data) {
  data["lines"] = CountLines(content);
  size_t end = 0;
  for (int i = 0; i < kNewFileLinesShown && end < content.size(); ++i) {
    size_t nl = content.find('\n', end);
    end = nl == absl::string_view::npos ? content.size() : nl + 1;
  }
  data["first_lines"] = std::string(content.substr(0, end));
}

// " (1 line)", " (12 lines)": how long the file was, for an error.
std::string LinesWere(int64_t lines) { return absl::StrCat(" (", lines, lines == 1 ? " line)" : " lines)"); }

// The refusal of a write or an edit that would put a lazy placeholder
// (placeholder.h) over real code: the one error every action gives for it.
// `where` names the line ("content line 3"), `was` the file's size before.
absl::Status PlaceholderRefused(const internal::PlaceholderLine& ph, absl::string_view where, absl::string_view shown,
                                absl::string_view was, absl::string_view fix) {
  return absl::FailedPreconditionError(absl::StrCat(where, " is a placeholder for code left out, not code: '",
                                                    absl::StripAsciiWhitespace(ph.text), "'. Written over '", shown,
                                                    "'", was, ", it would delete the code it stands for; nothing was "
                                                    "written. ", fix));
}

// The first placeholder line an edit brings into a file: among the lines of
// `after` that differ from `before` (their common first and last lines are
// not read), one that is not also a line of what it replaced (the lines of
// `before` between them). Its line_number is the line of `after`.
std::optional<internal::PlaceholderLine> EditPlaceholder(absl::string_view before, absl::string_view after) {
  const size_t shorter = std::min(before.size(), after.size());
  size_t head = 0;
  while (head < shorter && before[head] == after[head]) ++head;
  if (head == after.size() && head == before.size()) return std::nullopt;
  while (head > 0 && after[head - 1] != '\n') --head;  // from the start of its line
  size_t tail = 0;
  while (tail < shorter - head && before[before.size() - 1 - tail] == after[after.size() - 1 - tail]) ++tail;
  size_t end = after.size() - tail;
  if (size_t nl = after.find('\n', end); end > head && after[end - 1] != '\n') {
    end = nl == absl::string_view::npos ? after.size() : nl + 1;  // to the end of its line
  }
  // The lines of `before` the edit replaced: a placeholder line is text
  // only where they hold it (the file holding it elsewhere covers nothing).
  size_t before_end = before.size() - tail;
  if (size_t nl = before.find('\n', before_end); before_end > head && before[before_end - 1] != '\n') {
    before_end = nl == absl::string_view::npos ? before.size() : nl + 1;
  }
  const absl::string_view replaced = before.substr(head, before_end > head ? before_end - head : 0);
  std::optional<internal::PlaceholderLine> ph = internal::FindPlaceholder(after.substr(head, end - head), replaced);
  if (ph.has_value()) ph->line_number += internal::CountNewlines(after.substr(0, head));
  return ph;
}

// EditPlaceholder for an edit of places, the result not built: the lines
// of each run the places change (every other line of the result is a line
// of the original).
std::optional<internal::PlaceholderLine> SplicedPlaceholder(const internal::SplicedText& t) {
  std::optional<internal::PlaceholderLine> found;
  internal::ForEachChangedRun(t, [&](const internal::ChangedRun& run) {
    // Text only where the run's own old lines hold it, as EditPlaceholder.
    found = internal::FindPlaceholder(run.new_text,
                                      t.original().substr(run.old_begin, run.old_end - run.old_begin));
    if (found.has_value()) found->line_number += run.new_line - 1;
    return !found.has_value();
  });
  return found;
}

absl::StatusOr<ActionOutcome> FileWrite(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string raw_content, call.Str("content"));
  std::string content = AsLines(call, std::move(raw_content));
  ASSIGN_OR_RETURN(std::string resolved, call.Resolve(param));
  ASSIGN_OR_RETURN(std::string path, FollowDanglingLink(call, param, std::move(resolved)));
  struct stat st;
  bool existed = call.store().Stat(path, &st) == 0;
  if (existed && S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", call.Display(path), "' is a directory; give a file path inside it"));
  }
  // The file being replaced, to count its lines and to tell a placeholder
  // from the file's own text (one over the size limit is not read).
  std::optional<std::string> old_text;
  if (existed && S_ISREG(st.st_mode)) {
    absl::StatusOr<std::string> old = ReadLimited(call, path, "file", true);
    if (old.ok()) old_text = *std::move(old);
  }
  if (existed && st.st_size > 0) {
    std::optional<internal::PlaceholderLine> ph =
        internal::FindPlaceholder(content, old_text.has_value() ? absl::string_view(*old_text) : "");
    if (ph.has_value()) {
      std::string was = old_text.has_value() ? LinesWere(CountLines(*old_text)) : "";
      return PlaceholderRefused(*ph, absl::StrCat("content line ", ph->line_number), call.Display(path), was,
                                absl::StrCat("Send the whole file with every line, or change only the part that "
                                             "changes with ",
                                             core::TermOr("file_replace_text", "file_replace_lines")));
    }
  }
  // A file rewritten whole keeps its BOM and its CRLF line breaks, as an
  // edit does: content written with bare LFs over a CRLF file is given
  // CRLFs (content with a CRLF of its own is written as given).
  if (old_text.has_value()) {
    if (absl::StartsWith(*old_text, internal::kUtf8Bom) && !absl::StartsWith(content, internal::kUtf8Bom)) {
      content.insert(0, internal::kUtf8Bom.data(), internal::kUtf8Bom.size());
    }
    if (internal::DominantBreak(internal::CountLineEndings(*old_text)) == "\r\n" &&
        content.find("\r\n") == std::string::npos && content.find('\n') != std::string::npos) {
      content = internal::ConvertLineBreaks(content, "\r\n");
    }
    if (*old_text == content && !content.empty()) {
      // The file already holds exactly this text (a re-sent answer: an
      // apply_patch `*** Add File`, a write that ran before): nothing is
      // written, as for an edit already applied.
      const int64_t lines = CountLines(content);
      ActionOutcome out = ActionOutcome::Ok({{"path", call.Display(path)},
                                             {"bytesWritten", 0},
                                             {"created", false},
                                             {"lines", lines},
                                             {"already_applied", true}});
      out.warnings.push_back("the file already holds exactly this text, so nothing was written");
      return out;
    }
  }
  RETURN_IF_ERROR(MakeParents(call, path));
  RETURN_IF_ERROR(WriteText(call, path, false, content));
  if (old_text.has_value()) {
    NoteEdit(call, path, *old_text, content);
  } else {
    NoteCreated(call, path);
  }
  int64_t lines = CountLines(content);
  Json data = {{"path", call.Display(path)},
               {"bytesWritten", static_cast<int64_t>(content.size())},
               {"created", !existed},
               {"lines", lines}};
  ActionOutcome out;
  if (!existed) DescribeNewFile(content, data);
  if (old_text.has_value()) {
    DescribeChange(call.Display(path), *old_text, content, data);
    int64_t before = CountLines(*old_text);
    data["previous_lines"] = before;
    data["summary"] = absl::StrCat("wrote ", lines, " line", lines == 1 ? "" : "s", " (was ", before, ")");
    if (2 * (before - lines) > before) {
      out.warnings.push_back(absl::StrCat("'", call.Display(path), "' had ", before, " lines and now has ", lines,
                                          ": more than half of its lines are gone. If the content was cut short, "
                                          "send the whole file again"));
    }
  } else {
    data["summary"] = absl::StrCat("wrote ", lines, " line", lines == 1 ? "" : "s");
  }
  out.success = true;
  out.data = std::move(data);
  out.touched_paths = {path};
  return out;
}

// --------------------------------------------------------------- file_append

absl::StatusOr<ActionOutcome> FileAppend(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string raw_content, call.Str("content"));
  std::string content = AsLines(call, std::move(raw_content));
  ASSIGN_OR_RETURN(std::string resolved, call.Resolve(param));
  ASSIGN_OR_RETURN(std::string path, FollowDanglingLink(call, param, std::move(resolved)));
  if (!Exists(call, path)) {
    RETURN_IF_ERROR(MakeParents(call, path));
    RETURN_IF_ERROR(WriteText(call, path, false, content));
    NoteCreated(call, path);
    Json data = {
        {"path", call.Display(path)}, {"bytesAppended", static_cast<int64_t>(content.size())}, {"created", true}};
    DescribeNewFile(content, data);
    return Touched(ActionOutcome::Ok(std::move(data)), {path});
  }
  ASSIGN_OR_RETURN(TextFile f, ReadForEdit(call, path));
  if (call.edit_options().append_once && !content.empty() &&
      internal::NormalizeBreaks(f.body) == internal::NormalizeBreaks(content)) {
    // A SEARCH/REPLACE block with an empty SEARCH creates a file: one that
    // holds exactly its text was made by this block before (a re-sent
    // answer), and appending it again would double the file.
    ActionOutcome out = ActionOutcome::Ok({{"path", call.Display(path)},
                                           {"bytesAppended", 0},
                                           {"created", false},
                                           {"already_applied", true}});
    out.warnings.push_back("the file already holds exactly this text (the block that creates it ran before), so "
                           "nothing was appended");
    return out;
  }
  EditResult r = internal::AppendText(f.body, content, call.IsLineParam("content"));
  RETURN_IF_ERROR(WriteText(call, path, f.bom, r.content));
  NoteEdit(call, path, f.body, r.content);
  Json data = {{"path", call.Display(path)},
               {"bytesAppended", static_cast<int64_t>(r.content.size() - f.body.size())},
               {"created", false}};
  DescribeChange(call.Display(path), f.body, r.content, data);
  ActionOutcome out = Touched(ActionOutcome::Ok(std::move(data)), {path});
  out.warnings = std::move(r.warnings);
  return out;
}

// ------------------------------------------------------------ replace family

using TextEdit = std::function<absl::StatusOr<EditResult>(absl::string_view body, absl::string_view label)>;

// Reads, edits with `edit`, writes; the shared shape of the replace actions.
// `path` is resolved; `warnings` go with a success.
absl::StatusOr<ActionOutcome> EditFileAt(const Call& call, const std::string& path, const TextEdit& edit,
                                         std::vector<std::string> warnings = {}) {
  ASSIGN_OR_RETURN(TextFile f, ReadForEdit(call, path));
  ASSIGN_OR_RETURN(EditResult r, edit(f.body, call.Display(path)));
  Json data = {{"path", call.Display(path)}, {"replacements_made", r.replacements}};
  if (r.already_applied) {
    data["already_applied"] = true;
    ActionOutcome out = ActionOutcome::Ok(std::move(data));
    out.warnings = std::move(warnings);
    out.warnings.push_back(
        "the file already holds the result of this edit (new_text is there, and the text to replace is absent or only "
        "inside it), so nothing was changed");
    return out;
  }
  if (r.lines.size() == 1) data["line"] = r.lines[0];
  if (r.replacements == 0) {  // count = 0 and none found
    ActionOutcome out = ActionOutcome::Ok(std::move(data));
    out.warnings = std::move(warnings);
    return out;
  }
  if (std::optional<internal::PlaceholderLine> ph =
          r.spliced.has_value() ? SplicedPlaceholder(*r.spliced) : EditPlaceholder(f.body, r.content)) {
    return PlaceholderRefused(*ph, absl::StrCat("line ", ph->line_number, " of the edited file"), call.Display(path),
                              LinesWere(CountLines(f.body)),
                              "Write out every line the new text keeps, or change a smaller part: the text to "
                              "replace needs only the lines that change");
  }
  if (r.spliced.has_value()) {  // the result is not built: written, recorded and diffed from the places
    RETURN_IF_ERROR(WriteSpliced(call, path, f.bom, *r.spliced));
    NoteSplicedEdit(call, path, *r.spliced);
    DescribeSplicedChange(call, call.Display(path), *r.spliced, data);
  } else {
    RETURN_IF_ERROR(WriteText(call, path, f.bom, r.content));
    NoteEdit(call, path, f.body, r.content);
    DescribeChange(call.Display(path), f.body, r.content, data);
  }
  ActionOutcome out = Touched(ActionOutcome::Ok(std::move(data)), {path});
  out.warnings = std::move(warnings);
  for (std::string& w : r.warnings) out.warnings.push_back(std::move(w));
  return out;
}

// The most an edit's result may hold: the max_file_size setting (edits
// that replace everywhere check it before they build the result).
uint64_t MaxResultBytes(const Call& call) {
  const int64_t limit = call.ctx().limits.max_file_bytes;
  return limit >= 0 ? static_cast<uint64_t>(limit) : internal::kNoSizeLimit;
}

absl::StatusOr<ActionOutcome> EditFile(const Call& call, const std::string& param, const TextEdit& edit) {
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  return EditFileAt(call, path, edit);
}

// An edit with EditOptions::find_file_by_name finds its file by its name
// when its path does not exist; with tolerant_match, its text with the
// tolerance tiers after an exact miss (internal::ReplaceSearchBlock); every
// other edit is exact.
absl::StatusOr<ActionOutcome> FileReplaceText(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string old_text, call.Str("old_text"));
  ASSIGN_OR_RETURN(std::string new_text, call.Str("new_text"));
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(std::string path, BlockPath(call, param, &warnings));
  const bool tolerant = call.edit_options().tolerant_match;
  // The tolerance tiers stop at the action's deadline: its own timeout from
  // now, or the batch's total timeout when that comes first.
  absl::Time deadline = call.ctx().limits.deadline;
  if (call.ctx().limits.timeout_ms > 0) {
    deadline = std::min(deadline, absl::Now() + absl::Milliseconds(call.ctx().limits.timeout_ms));
  }
  return EditFileAt(
      call, path,
      [&](absl::string_view body, absl::string_view label) {
        return tolerant ? internal::ReplaceSearchBlock(body, old_text, new_text, label, deadline)
                        : internal::ReplaceUnique(body, old_text, new_text, label);
      },
      std::move(warnings));
}

absl::StatusOr<ActionOutcome> FileReplaceAllText(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string old_text, call.Str("old_text"));
  ASSIGN_OR_RETURN(std::string new_text, call.Str("new_text"));
  ASSIGN_OR_RETURN(std::optional<int64_t> count, call.OptInt("count"));
  return EditFile(call, param, [&](absl::string_view body, absl::string_view label) {
    return internal::ReplaceEvery(body, old_text, new_text, count, label, MaxResultBytes(call), true);
  });
}

absl::StatusOr<ActionOutcome> FileReplaceTextRange(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string start, call.Str("old_text_start"));
  ASSIGN_OR_RETURN(std::string end, call.Str("old_text_end"));
  ASSIGN_OR_RETURN(std::string new_text, call.Str("new_text"));
  ASSIGN_OR_RETURN(std::optional<int64_t> count, call.OptInt("count"));
  ASSIGN_OR_RETURN(std::optional<bool> all, call.OptBool("all"));
  if (all.value_or(false)) {
    // The action parser fills in count's default 1, so only another number
    // is a contradiction.
    if (count.has_value() && *count != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "count = ", *count, " and all = true ask for different things: give count for an exact number of ranges, or "
          "all = true (without count) for every range"));
    }
    count.reset();
  } else if (!count.has_value()) {
    count = 1;
  }
  return EditFile(call, param, [&](absl::string_view body, absl::string_view label) {
    return internal::ReplaceRanges(body, start, end, new_text, count, label, MaxResultBytes(call), true);
  });
}

std::string LinesText(int64_t first, int64_t last) {
  return first == last ? absl::StrCat(first) : absl::StrCat(first, "-", last);
}

// Lines `range` of `path` as the model read it, before this answer: where
// they are now after the answer's earlier edits (ExecContext::answer_lines),
// or lines_changed_by_earlier_edit when one of those edits changed them.
absl::StatusOr<internal::LineRange> LinesNow(const Call& call, const std::string& path, internal::LineRange range) {
  if (call.ctx().answer_lines == nullptr) return range;
  const core::AnswerLines::Mapped m = call.ctx().answer_lines->Map(path, range.first, range.last);
  if (m.ok) return internal::LineRange{m.first, m.last};
  const std::string what =
      m.created ? absl::StrCat("'", call.Display(path), "' was created by ", m.by, " of this answer")
      : m.changed_last < m.changed_first
          ? absl::StrCat(m.by, " of this answer inserted lines before line ", m.changed_first, " of '",
                         call.Display(path), "'")
          : absl::StrCat(m.by, " of this answer changed line", m.changed_first == m.changed_last ? " " : "s ",
                         LinesText(m.changed_first, m.changed_last), " of '", call.Display(path), "'");
  return core::WithCode(
      absl::FailedPreconditionError(absl::StrCat(
          "lines_changed_by_earlier_edit: line numbers refer to the file as you read it, before this answer, and ",
          what, ", so lines ", LinesText(range.first, range.last),
          " no longer name the lines you saw there; nothing was changed. Make this edit with a text edit (the old "
          "text and its replacement), or read the file again and send it in the next answer")),
      "lines_changed_by_earlier_edit");
}

absl::StatusOr<ActionOutcome> FileReplaceLines(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string lines, call.Str("lines"));
  ASSIGN_OR_RETURN(std::string new_content, call.Str("new_content"));
  ASSIGN_OR_RETURN(internal::LineRange range, internal::ParseLineRange(lines));
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  ASSIGN_OR_RETURN(internal::LineRange now, LinesNow(call, path, range));
  ASSIGN_OR_RETURN(ActionOutcome out, EditFileAt(call, path, [&](absl::string_view body, absl::string_view label) {
                     return internal::ReplaceLines(body, now, new_content, label);
                   }));
  out.data.erase("replacements_made");
  out.data.erase("line");
  out.data["lines_replaced"] = range.last - range.first + 1;
  out.data["lines"] = LinesText(range.first, range.last);
  if (now.first != range.first) {
    // Where they were in the file as it is now, after the answer's earlier edits.
    out.data["lines_now"] = LinesText(now.first, now.last);
  }
  return out;
}

// One file's unified-diff hunks (patch-text): at their lines as git apply,
// else placed by their context through hunk-apply, with a warning.
// A diff that creates a file (--- /dev/null) applies, as git apply, only
// where no file is: one already there is never overwritten by it.
absl::StatusOr<ActionOutcome> DiffCreatesFile(const Call& call, const std::string& param,
                                              const patch_text::FilePatch& patch) {
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  struct stat st;
  if (call.store().Lstat(path, &st) == 0) {
    if (S_ISREG(st.st_mode) && st.st_size > 0 && (!patch.executable || (st.st_mode & 0100) != 0)) {
      // A file holding exactly the diff's lines (and mode) was made by it
      // before: a re-sent answer. Already applied, nothing written.
      absl::StatusOr<std::string> text = ReadLimited(call, path, "file", false);
      absl::StatusOr<patch_text::Applied> same =
          text.ok() ? patch_text::ApplyFilePatch(*text, patch) : absl::StatusOr<patch_text::Applied>(text.status());
      if (same.ok() && same->already_applied) {
        ActionOutcome out = ActionOutcome::Ok({{"path", call.Display(path)},
                                               {"bytesWritten", 0},
                                               {"created", false},
                                               {"already_applied", true}});
        out.warnings.push_back(
            "the file already holds exactly the lines this diff creates it with (the diff ran before), so nothing "
            "was written");
        for (const std::string& w : patch.warnings) call.AddTextWarning(out.warnings, w);
        return out;
      }
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "'", call.Display(path), "' already exists, and a diff that creates it (--- /dev/null) applies only where "
        "no file is, as git apply; nothing was written. Send a diff of its changes (read it first), or ",
        core::Term("file_write")));
  }
  ASSIGN_OR_RETURN(patch_text::Applied applied, patch_text::ApplyFilePatch("", patch));
  RETURN_IF_ERROR(MakeParents(call, path));
  RETURN_IF_ERROR(WriteText(call, path, false, applied.content));
  NoteCreated(call, path);
  if (patch.executable) {
    // `new file mode 100755`: executable by whoever may read it, as git
    // apply makes it (0644 as created: 0755).
    struct stat made;
    int err = call.store().Stat(path, &made);
    if (err == 0) err = call.store().Chmod(path, (made.st_mode & 07777) | ((made.st_mode & 0444) >> 2));
    if (err != 0) return core::ErrnoStatus(err, "cannot make executable", call.Display(path));
  }
  const int64_t lines = CountLines(applied.content);
  Json data = {{"path", call.Display(path)},
               {"bytesWritten", static_cast<int64_t>(applied.content.size())},
               {"created", true},
               {"lines", lines},
               {"summary", absl::StrCat("wrote ", lines, lines == 1 ? " line" : " lines")}};
  DescribeNewFile(applied.content, data);
  ActionOutcome out = ActionOutcome::Ok(std::move(data));
  out.warnings = std::move(applied.warnings);
  for (const std::string& w : patch.warnings) call.AddTextWarning(out.warnings, w);
  return Touched(std::move(out), {path});
}

// A diff that copies a file (`copy from`/`copy to`) writes the copy, as
// git apply: from the source's bytes with the hunks applied, with the
// source's mode, where no file is yet; the source is kept.
absl::StatusOr<ActionOutcome> DiffCopiesFile(const Call& call, const std::string& param,
                                             const patch_text::FilePatch& patch) {
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  ASSIGN_OR_RETURN(std::string from, call.Resolve(*patch.copy_from));
  if (Exists(call, path)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "'", call.Display(path), "' already exists, and a diff that copies ", call.Display(from),
        " to it (copy from/copy to) applies only where no file is, as git apply; nothing was written. Send a diff "
        "of its changes (read it first), or ",
        core::Term("file_write")));
  }
  struct stat src;
  RETURN_IF_ERROR(RequireFile(call, from, "copy source", &src));
  ASSIGN_OR_RETURN(std::string text, ReadLimited(call, from, "copy source", false));
  absl::StatusOr<patch_text::Applied> applied = patch_text::ApplyFilePatch(text, patch);
  if (!applied.ok()) {
    return absl::Status(applied.status().code(),
                        absl::StrCat("the copy of '", call.Display(from), "' to '", call.Display(path),
                                     "': ", applied.status().message(), "; nothing was written"));
  }
  RETURN_IF_ERROR(MakeParents(call, path));
  RETURN_IF_ERROR(WriteText(call, path, false, applied->content));
  NoteCreated(call, path);
  struct stat made;
  int err = call.store().Stat(path, &made);
  if (err == 0 && (made.st_mode & 07777) != (src.st_mode & 07777)) {
    err = call.store().Chmod(path, src.st_mode & 07777);
  }
  if (err != 0) return core::ErrnoStatus(err, "cannot set the mode of", call.Display(path));
  const int64_t lines = CountLines(applied->content);
  Json data = {{"path", call.Display(path)},
               {"copied_from", call.Display(from)},
               {"bytesWritten", static_cast<int64_t>(applied->content.size())},
               {"created", true},
               {"hunks_applied", static_cast<int64_t>(patch.hunks.size())},
               {"lines", lines},
               {"summary", absl::StrCat("copied from ", call.Display(from), ", ", lines, lines == 1 ? " line" : " lines")}};
  ActionOutcome out = ActionOutcome::Ok(std::move(data));
  out.warnings = std::move(applied->warnings);
  for (const std::string& w : patch.warnings) call.AddTextWarning(out.warnings, w);
  return Touched(std::move(out), {path});
}

// A diff that deletes a file (+++ /dev/null) deletes it, as git apply, only
// when the file holds exactly the lines the diff removes: a file changed
// since the diff was made is kept.
absl::StatusOr<ActionOutcome> DiffDeletesFile(const Call& call, const std::string& param,
                                              const patch_text::FilePatch& patch) {
  ASSIGN_OR_RETURN(std::string path, call.ResolveNoFollow(param));
  struct stat st;
  if (call.store().Lstat(path, &st) != 0) {
    return absl::NotFoundError(absl::StrCat("'", call.Display(path), "' does not exist", DidYouMean(call, path),
                                            ", so there is nothing to delete (check the path with ls or glob)"));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", call.Display(path), "' is not a regular file; a diff deletes files only"));
  }
  ASSIGN_OR_RETURN(std::string text, ReadLimited(call, path, "file", false));
  absl::StatusOr<patch_text::Applied> applied = patch_text::ApplyFilePatch(text, patch);
  if (!applied.ok() || !applied->content.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "'", call.Display(path), "' does not hold the lines the diff deletes",
        applied.ok() ? "" : absl::StrCat(" (", applied.status().message(), ")"),
        "; it may have changed since the diff was made, so it was kept. Read it, then send a diff of its current "
        "text, or ",
        core::Term("file_delete")));
  }
  if (int err = call.store().Unlink(path); err != 0) return core::ErrnoStatus(err, "cannot delete", call.Display(path));
  const int64_t lines = CountLines(text);
  Json data = {{"path", call.Display(path)},
               {"previous_lines", lines},
               {"summary", absl::StrCat("had ", lines, lines == 1 ? " line" : " lines")}};
  return Touched(ActionOutcome::Ok(std::move(data)), {path});
}

// The code of a hunk that could not be applied: the same as every other
// edit's (a hunk found at several places or at none is what a SEARCH found
// so is; hunks partly applied already: some are not found).
absl::Status WithHunkCode(absl::Status status, hunk_apply::ApplyError::Code code) {
  switch (code) {
    case hunk_apply::ApplyError::Code::kAmbiguous:
      return core::WithCode(std::move(status), "match_count_mismatch");
    case hunk_apply::ApplyError::Code::kNotFound:
    case hunk_apply::ApplyError::Code::kAnchorNotFound:
    case hunk_apply::ApplyError::Code::kPartlyApplied:
      return core::WithCode(std::move(status), "search_not_found");
    case hunk_apply::ApplyError::Code::kOk:
      break;
  }
  return status;
}

EditResult UnchangedResult(absl::string_view body) {
  EditResult e;
  e.content = std::string(body);
  e.already_applied = true;
  return e;
}

// A diff or patch every hunk of which is in the file already: EditFileAt's
// "already applied" result, its last warning said of hunks.
void SayHunksAlreadyApplied(ActionOutcome& out, absl::string_view what) {
  if (!out.data.value("already_applied", false)) return;
  out.data["hunks_applied"] = 0;
  std::string said = absl::StrCat("the file already holds the result of this ", what,
                                  " (every hunk's new lines are there, and its old lines are not), so nothing was "
                                  "changed");
  if (out.warnings.empty()) {
    out.warnings.push_back(std::move(said));
  } else {
    out.warnings.back() = std::move(said);
  }
}

absl::StatusOr<ActionOutcome> FileApplyDiff(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string diff, call.Str("diff"));
  if (!absl::StartsWith(diff, "--- ") && !absl::StartsWith(diff, "diff --git ")) {
    diff = absl::StrCat("--- a/file\n+++ b/file\n", diff);  // the hunks alone
  }
  // The parameter is the whole diff (not an answer still being written): a
  // line after it ends a hunk shorter than its counts as written, with the
  // counts warning, where the end of the text would read as cut off.
  if (!diff.empty() && diff.back() != '\n') diff += '\n';
  diff += "(end of the diff)\n";
  const patch_text::Diffs parsed = patch_text::ParseDiffs(diff);
  if (!parsed.errors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(parsed.errors[0].message, ": ", parsed.errors[0].fix));
  }
  if (parsed.files.size() == 1 && parsed.files[0].copy_from.has_value()) {
    return DiffCopiesFile(call, param, parsed.files[0]);
  }
  if (parsed.files.size() == 1 && !parsed.files[0].move_to.has_value() &&
      parsed.files[0].kind == patch_text::FileKind::kAdd) {
    return DiffCreatesFile(call, param, parsed.files[0]);
  }
  if (parsed.files.size() == 1 && !parsed.files[0].move_to.has_value() &&
      parsed.files[0].kind == patch_text::FileKind::kDelete) {
    return DiffDeletesFile(call, param, parsed.files[0]);
  }
  if (parsed.files.size() != 1 || parsed.files[0].kind != patch_text::FileKind::kUpdate ||
      parsed.files[0].hunks.empty() || parsed.files[0].move_to.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "diff must hold the hunks of one file (@@ -LINE,COUNT +LINE,COUNT @@ and its lines), or create one "
        "(--- /dev/null) or delete one (+++ /dev/null); move files with ",
        core::Term("file_move")));
  }
  const patch_text::FilePatch& patch = parsed.files[0];
  ASSIGN_OR_RETURN(ActionOutcome out, EditFile(call, param, [&](absl::string_view body, absl::string_view label)
                                                                    -> absl::StatusOr<EditResult> {
    hunk_apply::ApplyError why;
    absl::StatusOr<patch_text::Applied> r = patch_text::ApplyFilePatch(body, patch, &why);
    if (!r.ok()) {
      absl::Status status(r.status().code(), absl::StrCat(label, ": ", r.status().message()));
      if (why.code != hunk_apply::ApplyError::Code::kPartlyApplied) return status;
      return WithHunkCode(std::move(status), why.code);
    }
    if (r->already_applied) return UnchangedResult(body);
    EditResult e;
    e.content = std::move(r->content);
    e.replacements = static_cast<int64_t>(patch.hunks.size());
    e.warnings = std::move(r->warnings);
    return e;
  }));
  out.data.erase("replacements_made");
  out.data["hunks_applied"] = static_cast<int64_t>(patch.hunks.size());
  SayHunksAlreadyApplied(out, "diff");
  for (const std::string& w : patch.warnings) call.AddTextWarning(out.warnings, w);
  return out;
}

// One file's Codex apply_patch update (patch-text's envelope), its hunks
// placed by hunk-apply: unique at the first tier that matches, anchors
// narrowing, line endings per line; all or none.
absl::StatusOr<ActionOutcome> FileApplyPatch(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string text, call.Str("patch"));
  absl::string_view body_text = absl::StripLeadingAsciiWhitespace(text);
  std::string wrapped = text;
  if (!absl::StartsWithIgnoreCase(body_text, "*** Begin Patch")) {
    if (!absl::StartsWithIgnoreCase(body_text, "*** Update File:")) {
      wrapped = absl::StrCat("*** Update File: ", param, "\n", text);
    }
    if (!wrapped.empty() && wrapped.back() != '\n') wrapped += '\n';
    wrapped = absl::StrCat("*** Begin Patch\n", wrapped, "*** End Patch\n");
  }
  const std::vector<patch_text::Patch> patches = patch_text::ParsePatches(wrapped);
  for (const patch_text::Patch& p : patches) {
    if (!p.errors.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(p.errors[0].message, "; ", p.errors[0].fix));
    }
  }
  if (patches.size() != 1 || patches[0].ops.size() != 1 ||
      patches[0].ops[0].kind != patch_text::OpKind::kUpdate || patches[0].ops[0].move_to().has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "patch must hold one file's update (its @@ hunks); add, delete and move files with ", core::Term("file_write"),
        ", ", core::Term("file_delete"), " and ", core::Term("file_move")));
  }
  const patch_text::FileOp& op = patches[0].ops[0];
  ASSIGN_OR_RETURN(ActionOutcome out, EditFile(call, param, [&](absl::string_view body, absl::string_view label)
                                                                    -> absl::StatusOr<EditResult> {
    hunk_apply::ApplyError why;
    absl::StatusOr<hunk_apply::Applied> r = hunk_apply::ApplyHunks(body, op.hunks(), &why);
    if (!r.ok()) {
      return WithHunkCode(absl::Status(r.status().code(), absl::StrCat(label, ": ", r.status().message())), why.code);
    }
    if (r->already_applied) return UnchangedResult(body);
    EditResult e;
    e.content = std::move(r->content);
    e.replacements = static_cast<int64_t>(op.hunks().size());
    e.warnings = std::move(r->warnings);
    return e;
  }));
  out.data.erase("replacements_made");
  out.data["hunks_applied"] = static_cast<int64_t>(op.hunks().size());
  SayHunksAlreadyApplied(out, "patch");
  for (const std::string& w : patches[0].warnings) call.AddTextWarning(out.warnings, w);
  for (const std::string& w : op.warnings()) call.AddTextWarning(out.warnings, w);
  return out;
}

absl::StatusOr<ActionOutcome> FilesReplaceAllText(const Call& call) {
  ASSIGN_OR_RETURN(std::string paths, call.Str("paths"));
  ASSIGN_OR_RETURN(std::string old_text, call.Str("old_text"));
  ASSIGN_OR_RETURN(std::string new_text, call.Str("new_text"));
  std::vector<std::string> params = SplitPaths(paths);
  if (params.empty()) {
    return absl::InvalidArgumentError("paths names no file; give one path per line");
  }
  // Checked once here rather than once per file in the error (an empty
  // old_text is reported per file, as the other actions report it).
  if (!old_text.empty()) RETURN_IF_ERROR(internal::RequireChange(old_text, new_text));
  Json results = Json::array();
  std::vector<std::string> touched;
  std::vector<std::string> failures;
  std::string first_code;  // the first failure's
  std::vector<std::string> edited;   // "'p' (N replacements)"
  std::vector<std::string> already;  // "'p'"
  absl::flat_hash_set<std::string> seen;
  for (const std::string& param : params) {
    absl::StatusOr<std::string> canonical = call.Resolve(param);
    if (canonical.ok() && !seen.insert(*canonical).second) continue;  // listed twice
    absl::StatusOr<ActionOutcome> one =
        canonical.ok() ? EditFile(call, *canonical,
                                  [&](absl::string_view body, absl::string_view label) {
                                    return internal::ReplaceEvery(body, old_text, new_text, std::nullopt, label,
                                                                  MaxResultBytes(call), true);
                                  })
                       : absl::StatusOr<ActionOutcome>(canonical.status());
    Json item = {{"path", canonical.ok() ? call.Display(*canonical) : param}};
    if (one.ok()) {
      int64_t made = one->data["replacements_made"].get<int64_t>();
      item["replacements_made"] = made;
      for (const char* key : {"diff", "diff_skipped", "lines_added", "lines_removed"}) {
        if (one->data.contains(key)) item[key] = std::move(one->data[key]);
      }
      std::string shown = absl::StrCat("'", item["path"].get<std::string>(), "'");
      if (one->data.contains("already_applied")) {
        item["already_applied"] = true;
        already.push_back(std::move(shown));
      } else {
        edited.push_back(absl::StrCat(shown, " (", made, made == 1 ? " replacement)" : " replacements)"));
      }
      touched.insert(touched.end(), one->touched_paths.begin(), one->touched_paths.end());
    } else {
      item["replacements_made"] = 0;
      item["error"] = core::BareTerms(one.status().message());  // data: said by no dialect
      if (first_code.empty()) first_code = core::ErrorCode(one.status());
      failures.push_back(absl::StrCat("'", item["path"].get<std::string>(), "': ", one.status().message()));
    }
    results.push_back(std::move(item));
  }
  Json data = {{"results", results}};
  if (!failures.empty()) {
    // The report shows the error, not data.results, so the error itself
    // says what was written: the edited files stay edited.
    Json changed = Json::array();
    Json failed = Json::array();
    for (const Json& item : results) {
      if (item.contains("error")) {
        failed.push_back(item["path"]);
      } else if (!item.contains("already_applied")) {
        changed.push_back(item["path"]);
      }
    }
    size_t n = results.size();
    std::string summary;
    if (!changed.empty()) {
      data["partial"] = true;
      summary = absl::StrCat("partly applied: ", changed.size(), " of ", n, " file", n == 1 ? "" : "s",
                             " changed, ", failures.size(), " failed; ");
    } else {
      summary = absl::StrCat(failures.size(), " of ", n, " file", n == 1 ? "" : "s", " failed; ");
    }
    data["changed"] = std::move(changed);
    data["failed"] = std::move(failed);
    absl::StrAppend(&summary,
                    edited.empty() ? "no file was edited" : absl::StrCat("edited: ", absl::StrJoin(edited, ", ")));
    if (!already.empty()) absl::StrAppend(&summary, "; already applied, so unchanged: ", absl::StrJoin(already, ", "));
    ActionOutcome out = ActionOutcome::Failure(first_code, absl::StrCat(summary, ":\n", absl::StrJoin(failures, "\n")),
                                               std::move(data));
    out.touched_paths = std::move(touched);
    return out;
  }
  return Touched(ActionOutcome::Ok(std::move(data)), std::move(touched));
}

// ------------------------------------------------------------------- reading

absl::StatusOr<ActionOutcome> FileRead(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(TextFile f, ReadForView(call, path, &warnings));
  Json data = {{"path", call.Display(path)}, {"content", std::move(f.body)}};
  if (f.bom) data["bom"] = true;
  ActionOutcome out = ActionOutcome::Ok(std::move(data));
  out.warnings = std::move(warnings);
  return out;
}

absl::StatusOr<ActionOutcome> FileReadNumbered(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::optional<std::string> lines, call.OptStr("lines"));
  ASSIGN_OR_RETURN(std::optional<std::string> delimiter, call.OptStr("delimiter"));
  std::optional<internal::LineRange> range;
  if (lines.has_value()) {
    ASSIGN_OR_RETURN(range, internal::ParseLineRange(*lines));
  }
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(TextFile f, ReadForView(call, path, &warnings));
  if (range.has_value() && call.ctx().answer_lines != nullptr) {
    // A listing numbers the file as it is now: say so when an earlier
    // block of the answer changed it (its edits number the file as read).
    const std::string by = call.ctx().answer_lines->LastChangeBy(path);
    if (!by.empty()) {
      warnings.push_back(absl::StrCat("'", call.Display(path), "' was changed by ", by,
                                      " of this answer: lines ", *lines,
                                      " and the numbers shown are its lines now (the ones for the next answer), "
                                      "not those of the file as you read it before this answer"));
    }
  }
  ASSIGN_OR_RETURN(internal::NumberedText n,
                   internal::NumberLines(f.body, range, delimiter.value_or(": "), call.Display(path)));
  Json data = {{"path", call.Display(path)}, {"content", std::move(n.content)}};
  if (n.total_lines > 0) {
    data["lines"] = n.first == n.last ? absl::StrCat(n.first) : absl::StrCat(n.first, "-", n.last);
  }
  data["total_lines"] = n.total_lines;
  // How much of the file this is, on the report's line for the action.
  if (n.total_lines == 0) {
    data["summary"] = "empty file, 0 lines";
  } else if (n.first == 1 && n.last == n.total_lines) {
    data["summary"] = absl::StrCat(n.total_lines, n.total_lines == 1 ? " line" : " lines");
  } else {
    data["summary"] = absl::StrCat("lines ", data["lines"].get<std::string>(), " of ", n.total_lines);
  }
  ActionOutcome out = ActionOutcome::Ok(std::move(data));
  out.warnings = std::move(warnings);
  out.warnings.insert(out.warnings.end(), n.warnings.begin(), n.warnings.end());
  return out;
}

absl::StatusOr<ActionOutcome> FilesRead(const Call& call) {
  ASSIGN_OR_RETURN(std::string paths, call.Str("paths"));
  std::vector<std::string> params = SplitPaths(paths);
  if (params.empty()) return absl::InvalidArgumentError("paths names no file; give one path per line");
  Json files = Json::array();
  std::string content;
  std::vector<std::string> problems;
  std::vector<std::string> missing;
  std::string problem_code;  // the first problem's
  std::vector<std::string> warnings;
  for (const std::string& param : params) {
    absl::StatusOr<std::string> path = call.Resolve(param);
    absl::StatusOr<TextFile> f =
        path.ok() ? ReadForView(call, *path, &warnings) : absl::StatusOr<TextFile>(path.status());
    if (!f.ok()) {
      if (f.status().code() == absl::StatusCode::kNotFound) {
        missing.push_back(absl::StrCat("'", path.ok() ? call.Display(*path) : param, "'",
                                       path.ok() ? DidYouMean(call, *path) : ""));
      } else {
        problems.push_back(std::string(f.status().message()));
        if (problem_code.empty()) problem_code = core::ErrorCode(f.status());
      }
      continue;
    }
    std::string shown = call.Display(*path);
    absl::StrAppend(&content, "=== START FILE: ", shown, " ===\n", f->body,
                    f->body.empty() || f->body.back() == '\n' ? "" : "\n", "=== END FILE: ", shown, " ===\n");
    files.push_back({{"path", shown}, {"content", std::move(f->body)}});
  }
  Json data = {{"files", std::move(files)}, {"content", std::move(content)}};
  if (!missing.empty() || !problems.empty()) {
    std::vector<std::string> parts;
    if (!missing.empty()) {
      parts.push_back(absl::StrCat(missing.size() == 1 ? "this file does not exist: " : "these files do not exist: ",
                                   absl::StrJoin(missing, ", "), " (check the paths with ls or glob)"));
    }
    parts.insert(parts.end(), problems.begin(), problems.end());
    std::string error = absl::StrCat(absl::StrJoin(parts, "; "), ". The other ", data["files"].size(),
                                     " file(s) were read and are in the result");
    ActionOutcome out =
        ActionOutcome::Failure(missing.empty() ? problem_code : "not_found", std::move(error), std::move(data));
    out.warnings = std::move(warnings);
    return out;
  }
  ActionOutcome out = ActionOutcome::Ok(std::move(data));
  out.warnings = std::move(warnings);
  return out;
}

// ------------------------------------------------------- delete, move, dirs

absl::StatusOr<ActionOutcome> FileDelete(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string path, call.ResolveNoFollow(param));
  struct stat st;
  if (call.store().Lstat(path, &st) != 0) {
    return absl::NotFoundError(absl::StrCat("'", call.Display(path), "' does not exist", DidYouMean(call, path),
                                            ", so there is nothing to delete (check the path with ls or glob)"));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", call.Display(path), "' is a directory; use ", core::Term("dir_delete"),
                     " to delete directories"));
  }
  // How much was deleted, when the file is one fs-ops would read.
  std::optional<int64_t> lines;
  if (S_ISREG(st.st_mode)) {
    absl::StatusOr<std::string> text = ReadLimited(call, path, "file", false);
    if (text.ok()) lines = CountLines(*text);
  }
  if (int err = call.store().Unlink(path); err != 0) return core::ErrnoStatus(err, "cannot delete", call.Display(path));
  Json data = {{"path", call.Display(path)}};
  if (S_ISLNK(st.st_mode)) data["symlink"] = true;
  if (lines.has_value()) {
    data["previous_lines"] = *lines;
    data["summary"] = absl::StrCat("had ", *lines, *lines == 1 ? " line" : " lines");
  }
  return Touched(ActionOutcome::Ok(std::move(data)), {path});
}

// Copies a regular file across file systems, then removes the source.
absl::Status CopyThenRemove(const Call& call, const std::string& from, const std::string& to, mode_t mode) {
  std::string bytes;
  struct stat st;
  if (int err = call.store().ReadRegular(from, -1, &bytes, &st); err != 0) {
    return core::ErrnoStatus(err == kNotRegular ? EINVAL : err, "cannot read", call.Display(from));
  }
  RETURN_IF_ERROR(WriteText(call, to, false, bytes));
  ::chmod(to.c_str(), mode & 07777);  // only reached on disk: EXDEV
  if (int err = call.store().Unlink(from); err != 0) return core::ErrnoStatus(err, "cannot remove the moved file", from);
  return absl::OkStatus();
}

// Why moving `from` onto `to` must be refused although the two are
// different names, or OK. rename(2) of one name of a file onto another name
// of the same file does nothing and succeeds, and a symlink renamed over the
// file it points to becomes a link to itself: the file's content is gone.
// `mv` refuses both ("are the same file"). `dst` is null when `to` does not
// exist.
absl::Status CheckNotSameFile(const Call& call, const std::string& from, const struct stat& src, const std::string& to,
                              const struct stat* dst) {
  std::string from_shown = call.Display(from);
  std::string to_shown = call.Display(to);
  if (dst != nullptr && src.st_dev == dst->st_dev && src.st_ino == dst->st_ino) {
    // On a case-insensitive file system "A.txt" and "a.txt" in one directory
    // are one entry, and renaming between them changes the name's case.
    bool case_rename = Parent(from) == Parent(to) && absl::EqualsIgnoreCase(from, to);
    if (!case_rename) {
      return absl::FailedPreconditionError(
          absl::StrCat(core::Term("old_path"), " '", from_shown, "' and ", core::Term("new_path"), " '", to_shown,
                       "' are the same file (hard links to one file); nothing was moved. To remove the name '",
                       from_shown, "', use ", core::Term("file_delete")));
    }
  }
  if (!S_ISLNK(src.st_mode)) return absl::OkStatus();
  struct stat followed;
  if (dst != nullptr && call.store().Stat(from, &followed) == 0 && followed.st_dev == dst->st_dev &&
      followed.st_ino == dst->st_ino) {
    return absl::FailedPreconditionError(absl::StrCat(
        core::Term("old_path"), " '", from_shown, "' and ", core::Term("new_path"), " '", to_shown,
        "' are the same file (", from_shown,
        " is a link to it); nothing was moved: the link would replace the file and point at itself. To put the "
        "file at the link's name, move '",
        to_shown, "' to '", from_shown, "'; to remove the link, use ", core::Term("file_delete")));
  }
  // The link's text is kept as it is, so a relative one is read from
  // new_path's directory: does it name new_path itself? (Also when new_path
  // is a link, or does not exist: a link to itself is never what was meant.)
  std::string text;
  if (call.store().Readlink(from, &text) != 0 || text.empty()) return absl::OkStatus();
  std::string target = core::NormalizeAbsolutePath(text[0] == '/' ? text : absl::StrCat(Parent(to), "/", text));
  bool self = target == to;
  if (!self) {
    // The same through symlinked directories in the link's text.
    char dir[PATH_MAX];
    if (::realpath(Parent(target).c_str(), dir) != nullptr) {
      std::string name = target.substr(target.rfind('/') + 1);
      self = absl::StrCat(std::string(dir) == "/" ? "" : dir, "/", name) == to;
    }
  }
  if (!self) return absl::OkStatus();
  std::string lost;
  if (dst != nullptr) {
    lost =
        absl::StrCat(" (and the ", S_ISLNK(dst->st_mode) ? "link" : "file", " now at '", to_shown, "' would be lost)");
  }
  return core::WithCode(
      absl::FailedPreconditionError(absl::StrCat(core::Term("old_path"), " '", from_shown, "' is a symlink to '",
                                                 text, "', which at ", core::Term("new_path"), " '", to_shown,
                                                 "' would point at itself", lost,
                                                 "; nothing was moved. To move the file the link points "
                                                 "to, name that file in ",
                                                 core::Term("old_path"))),
      "symlink_not_allowed");
}

absl::StatusOr<ActionOutcome> FileMove(const Call& call) {
  ASSIGN_OR_RETURN(std::string old_param, call.Str("old_path"));
  ASSIGN_OR_RETURN(std::string new_param, call.Str("new_path"));
  ASSIGN_OR_RETURN(std::string from, call.ResolveNoFollow(old_param));
  ASSIGN_OR_RETURN(std::string to, call.ResolveNoFollow(new_param));
  struct stat src;
  if (call.store().Lstat(from, &src) != 0) {
    return absl::NotFoundError(absl::StrCat(core::Term("old_path"), " '", call.Display(from), "' does not exist",
                                            DidYouMean(call, from),
                                            ", so there is nothing to move (check the path with ls or glob)"));
  }
  if (from == to) {
    return absl::InvalidArgumentError(
        absl::StrCat(core::Term("old_path"), " and ", core::Term("new_path"), " are the same file ('",
                     call.Display(from), "'); nothing to move"));
  }
  if (S_ISDIR(src.st_mode)) {
    std::string kept = core::ProtectedFileWithin(call.ctx().paths, from);
    if (!kept.empty()) {
      return core::WithCode(
          absl::PermissionDeniedError(absl::StrCat(
              "path_denied: '", call.Display(from), "' holds '", call.Display(kept),
              "', the file clada listen is watching (or its report), which actions may not move; nothing was moved")),
          "path_denied");
    }
  }
  if (S_ISDIR(src.st_mode) && core::IsWithin(to, from)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot move directory '", call.Display(from), "' into itself ('", call.Display(to), "')"));
  }
  struct stat dst;
  bool overwrote = false;
  if (call.store().Lstat(to, &dst) == 0) {
    if (S_ISDIR(dst.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat(
          core::Term("new_path"), " '", call.Display(to),
          "' is an existing directory; give the full destination path including ",
          "the file name (e.g. '", call.Display(to), "/", from.substr(from.rfind('/') + 1), "')"));
    }
    if (S_ISDIR(src.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat(core::Term("old_path"), " '", call.Display(from),
                                                        "' is a directory and ", core::Term("new_path"), " '",
                                                        call.Display(to),
                                                        "' is an existing file; a directory cannot replace a file"));
    }
    RETURN_IF_ERROR(CheckNotSameFile(call, from, src, to, &dst));
    // A case-only rename on a case-insensitive file system replaces nothing.
    overwrote = src.st_dev != dst.st_dev || src.st_ino != dst.st_ino;
  } else {
    RETURN_IF_ERROR(CheckNotSameFile(call, from, src, to, nullptr));
  }
  RETURN_IF_ERROR(MakeParents(call, to));
  if (int err = call.store().Rename(from, to); err != 0) {
    if (err == EXDEV && S_ISREG(src.st_mode)) {
      RETURN_IF_ERROR(CopyThenRemove(call, from, to, src.st_mode));
    } else {
      return core::ErrnoStatus(err, absl::StrCat("cannot move '", call.Display(from), "' to"), call.Display(to));
    }
  }
  NoteMoved(call, from, to);
  Json data = {{"old_path", call.Display(from)}, {"new_path", call.Display(to)}, {"overwrote", overwrote}};
  data["summary"] = absl::StrCat("moved to ", call.Display(to), overwrote ? " (replacing the file there)" : "");
  return Touched(ActionOutcome::Ok(std::move(data)), {from, to});
}

absl::StatusOr<ActionOutcome> DirCreate(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  struct stat st;
  if (call.store().Stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return ActionOutcome::Ok({{"path", call.Display(path)}, {"created", false}});
    return absl::FailedPreconditionError(
        absl::StrCat("'", call.Display(path), "' exists and is a file, not a directory"));
  }
  absl::Status s = call.store().MakeDirs(path);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("cannot create '", call.Display(path), "': ", s.message()));
  }
  return Touched(ActionOutcome::Ok({{"path", call.Display(path)}, {"created", true}}), {path});
}

// Names of up to `max` entries of `dir` ("sub/" for directories) and the count.
std::pair<std::vector<std::string>, int64_t> SomeEntries(const Call& call, const std::string& dir, size_t max) {
  std::vector<DirEntry> entries;
  if (call.store().List(dir, &entries) != 0) return {{}, 0};
  std::vector<std::string> names;
  for (const DirEntry& e : entries) {
    if (names.size() < max) names.push_back(absl::StrCat(e.name, e.is_dir ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  return {names, static_cast<int64_t>(entries.size())};
}

// Finds what no action may delete below `dir` (not following links): a
// `.git`, `.ssh` or `.clada` entry in any spelling, or a protected file.
std::string FindProtected(const Call& call, const std::string& dir) {
  std::string kept = core::ProtectedFileWithin(call.ctx().paths, dir);
  if (!kept.empty()) return kept;
  std::vector<DirEntry> entries;
  if (call.store().List(dir, &entries) != 0) return "";
  for (const DirEntry& e : entries) {
    if (core::IsDeniedName(e.name)) return absl::StrCat(dir, "/", e.name);
  }
  for (const DirEntry& e : entries) {
    if (!e.is_dir) continue;
    std::string found = FindProtected(call, absl::StrCat(dir, "/", e.name));
    if (!found.empty()) return found;
  }
  return "";
}

// Deletes `dir` and everything below it, never following symlinks.
absl::Status RemoveTree(const Call& call, const std::string& dir, std::vector<std::string>* removed) {
  std::vector<DirEntry> listed;
  if (int err = call.store().List(dir, &listed); err != 0) {
    return core::ErrnoStatus(err, "cannot open directory", call.Display(dir));
  }
  std::vector<std::pair<std::string, bool>> entries;
  for (const DirEntry& e : listed) entries.emplace_back(absl::StrCat(dir, "/", e.name), e.is_dir);
  std::sort(entries.begin(), entries.end());  // deterministic touched_paths
  for (const auto& [path, is_dir] : entries) {
    if (is_dir) {
      RETURN_IF_ERROR(RemoveTree(call, path, removed));
    } else {
      if (int err = call.store().Unlink(path); err != 0) return core::ErrnoStatus(err, "cannot delete", call.Display(path));
      removed->push_back(path);
    }
  }
  if (int err = call.store().Rmdir(dir); err != 0) {
    return core::ErrnoStatus(err, "cannot delete directory", call.Display(dir));
  }
  removed->push_back(dir);
  return absl::OkStatus();
}

absl::StatusOr<ActionOutcome> DirDelete(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::optional<bool> recursive, call.OptBool("recursive"));
  ASSIGN_OR_RETURN(std::string path, call.ResolveNoFollow(param));
  struct stat st;
  if (call.store().Lstat(path, &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("'", call.Display(path), "' does not exist", DidYouMean(call, path),
                     ", so there is nothing to delete"));
  }
  if (S_ISLNK(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "'", call.Display(path), "' is a symlink, not a directory; remove the link itself with ",
        core::Term("file_delete")));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", call.Display(path), "' is a file, not a directory; use ", core::Term("file_delete")));
  }
  for (const std::string& root : call.ctx().paths.allowed_roots) {
    if (core::IsWithin(root, path)) {
      return absl::PermissionDeniedError(absl::StrCat("'", call.Display(path), "' is ", root == path ? "" : "above ",
                                                      "an allowed root ('", root,
                                                      "'); clada does not delete its own roots"));
    }
  }
  if (!recursive.value_or(false)) {
    if (int err = call.store().Rmdir(path); err != 0) {
      if (err == ENOTEMPTY || err == EEXIST) {
        auto [names, count] = SomeEntries(call, path, 5);
        return absl::FailedPreconditionError(
            absl::StrCat("'", call.Display(path), "' is not empty (", count,
                         count == 1 ? " entry: " : " entries, e.g. ", absl::StrJoin(names, ", "),
                         "); delete its contents first, or set recursive = true to delete it with "
                         "everything inside"));
      }
      return core::ErrnoStatus(err, "cannot delete directory", call.Display(path));
    }
    return Touched(ActionOutcome::Ok({{"path", call.Display(path)}, {"removed_entries", 0}}), {path});
  }
  std::string protected_entry = FindProtected(call, path);
  if (!protected_entry.empty()) {
    return core::WithCode(
        absl::PermissionDeniedError(
            absl::StrCat("path_denied: '", call.Display(path), "' contains '", call.Display(protected_entry),
                         "' (git internals, keys, clada's own state or the file clada listen watches), which actions "
                         "may not delete; nothing was deleted")),
        "path_denied");
  }
  std::vector<std::string> removed;
  absl::Status s = RemoveTree(call, path, &removed);
  if (!s.ok()) {
    ActionOutcome out = ActionOutcome::Failure(
        core::ErrorCode(s), absl::StrCat(s.message(), " (", removed.size(), " entries were deleted before the failure)"));
    out.touched_paths = std::move(removed);
    return out;
  }
  int64_t entries = static_cast<int64_t>(removed.size()) - 1;
  return Touched(ActionOutcome::Ok({{"path", call.Display(path)}, {"removed_entries", entries}}), std::move(removed));
}

// ------------------------------------------------------------ ls, grep, glob

internal::SearchLimits LimitsOf(const core::ExecContext& ctx) {
  internal::SearchLimits limits;
  limits.max_file_bytes = ctx.limits.max_file_bytes;
  limits.deadline = ctx.limits.deadline;
  return limits;
}

// A dry run's search sees the disk: where earlier actions of the batch
// changed something below the searched path, it says so.
void NoteDryRunView(const Call& call, const std::string& path, ActionOutcome* out) {
  if (call.store().dry() && call.store().ChangedAtOrBelow(path)) {
    out->warnings.push_back(absl::StrCat("dry run: earlier actions of this batch change files in '",
                                         call.Display(path),
                                         "'; these results show the files as they are on disk now"));
  }
}

absl::Status TotalTimeout(absl::string_view what) {
  return core::WithCode(absl::DeadlineExceededError(absl::StrCat(
                            "total_timeout: the batch's total timeout ran out during the ", what,
                            ", so it was stopped before the end; narrow the path or the pattern, or raise "
                            "--total-timeout")),
                        "total_timeout");
}

absl::StatusOr<ActionOutcome> Ls(const Call& call) {
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  struct stat st;
  if (call.store().Stat(path, &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("'", call.Display(path), "' does not exist", DidYouMean(call, path),
                     "; list its parent directory to see what is there"));
  }
  std::string dir = S_ISDIR(st.st_mode) ? path : Parent(path);
  std::string only = S_ISDIR(st.st_mode) ? "" : path.substr(path.rfind('/') + 1);
  Json entries = Json::array();
  Json data = {{"path", call.Display(path)}};
  if (call.store().dry() && call.store().ChangedAtOrBelow(dir)) {
    // The dry run's view: names and types from the store (no times).
    std::vector<DirEntry> listed;
    if (int err = call.store().List(dir, &listed); err != 0) {
      return core::ErrnoStatus(err, "cannot list", call.Display(dir));
    }
    std::sort(listed.begin(), listed.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    for (const DirEntry& e : listed) {
      if (!only.empty() && e.name != only) continue;
      if (e.name == ".git" || e.name == ".ssh" || e.name == ".clada") continue;  // as ListDirectory
      struct stat es;
      int64_t size = 0;
      std::string type = e.is_dir ? "directory" : "file";
      if (call.store().Lstat(absl::StrCat(dir, "/", e.name), &es) == 0) {
        if (S_ISLNK(es.st_mode)) type = "symlink";
        if (!S_ISDIR(es.st_mode) && !S_ISREG(es.st_mode) && !S_ISLNK(es.st_mode)) type = "other";
        if (!e.is_dir) size = es.st_size;
      }
      entries.push_back({{"name", e.name}, {"type", type}, {"size", size}, {"modified", ""}});
    }
    data["entries"] = std::move(entries);
    ActionOutcome out = ActionOutcome::Ok(std::move(data));
    NoteDryRunView(call, dir, &out);
    return out;
  }
  std::unique_ptr<internal::GitIgnore> ignore = internal::GitIgnore::ForDirectory(dir);
  absl::StatusOr<internal::Listing> listing = internal::ListDirectory(dir, *ignore);
  if (!listing.ok()) {
    return absl::Status(listing.status().code(),
                        absl::StrCat("cannot list '", call.Display(dir), "': ", listing.status().message()));
  }
  for (const internal::ListedEntry& e : listing->entries) {
    if (!only.empty() && e.name != only) continue;
    Json item = {{"name", e.name}, {"type", e.type}, {"size", e.size}, {"modified", e.modified}};
    if (!e.target.empty()) item["target"] = e.target;
    entries.push_back(std::move(item));
  }
  data["entries"] = std::move(entries);
  if (only.empty() && listing->ignored > 0) data["ignored"] = listing->ignored;
  return ActionOutcome::Ok(std::move(data));
}

absl::StatusOr<ActionOutcome> Grep(const Call& call) {
  ASSIGN_OR_RETURN(std::string pattern, call.Str("pattern"));
  ASSIGN_OR_RETURN(std::string param, call.Str("path"));
  ASSIGN_OR_RETURN(std::optional<std::string> include, call.OptStr("include"));
  ASSIGN_OR_RETURN(std::unique_ptr<internal::GrepQuery> query, internal::GrepQuery::Create(pattern));
  std::optional<internal::GlobPattern> include_glob;
  if (include.has_value() && !include->empty()) {
    absl::StatusOr<internal::GlobPattern> g = internal::GlobPattern::Compile(*include);
    if (!g.ok()) return absl::InvalidArgumentError(absl::StrCat("include: ", g.status().message()));
    include_glob = *std::move(g);
  }
  ASSIGN_OR_RETURN(std::string path, call.Resolve(param));
  struct stat st;
  if (call.store().Stat(path, &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("'", call.Display(path), "' does not exist", DidYouMean(call, path), "; give a file or directory"));
  }
  internal::SearchLimits limits = LimitsOf(call.ctx());
  internal::GrepOutcome g;
  bool dry_view = call.store().dry() && call.store().ChangedAtOrBelow(path);
  if (dry_view && !S_ISDIR(st.st_mode)) {
    // One file as the batch left it.
    std::string text;
    struct stat fst;
    int err = call.store().ReadRegular(path, limits.max_file_bytes, &text, &fst);
    if (err == kNotRegular) {
      ++g.special_skipped;
    } else if (err == EFBIG) {
      ++g.large_skipped;
    } else if (err != 0) {
      return core::ErrnoStatus(err, "cannot search", call.Display(path));
    } else if (memchr(text.data(), '\0', text.size()) != nullptr) {
      ++g.binary_skipped;
    } else {
      ++g.files_searched;
      std::vector<std::pair<int64_t, absl::string_view>> found;
      g.total_matches = query->SearchText(text, &found);
      for (const auto& [n, line] : found) {
        if (g.matches.size() >= limits.max_matches) break;
        g.matches.push_back({path, n, internal::ToValidUtf8(line.substr(0, limits.max_line_bytes))});
      }
      g.truncated = g.total_matches > static_cast<int64_t>(g.matches.size());
    }
  } else {
    struct stat disk_st;
    bool on_disk = !dry_view || DiskStore::Get().Stat(path, &disk_st) == 0;
    if (on_disk) {
      std::unique_ptr<internal::GitIgnore> ignore =
          internal::GitIgnore::ForDirectory(S_ISDIR(st.st_mode) ? path : Parent(path));
      absl::StatusOr<internal::GrepOutcome> found =
          internal::Grep(path, *query, include_glob.has_value() ? &*include_glob : nullptr, *ignore, limits);
      if (!found.ok()) return found.status();
      g = *std::move(found);
    }
  }
  if (g.timed_out) return TotalTimeout(absl::StrCat("search after ", g.files_searched, " files"));
  Json matches = Json::array();
  for (internal::GrepMatch& m : g.matches) {
    matches.push_back({{"file", call.Display(m.path)}, {"line_number", m.line_number}, {"line", std::move(m.line)}});
  }
  Json data = {
      {"matches", std::move(matches)}, {"total_matches", g.total_matches}, {"files_searched", g.files_searched}};
  ActionOutcome out;
  if (g.truncated) {
    data["truncated"] = true;
    out.warnings.push_back(absl::StrCat("showing the first ", g.matches.size(), " of ", g.total_matches,
                                        " matching lines; narrow the pattern, the path or include"));
  }
  if (g.binary_skipped > 0) data["binary_files_skipped"] = g.binary_skipped;
  if (g.large_skipped > 0) {
    data["large_files_skipped"] = g.large_skipped;
    out.warnings.push_back(
        absl::StrCat(g.large_skipped, " file(s) over ", LimitText(limits.max_file_bytes), " were not searched"));
  }
  if (g.special_skipped > 0) {
    data["special_files_skipped"] = g.special_skipped;
    out.warnings.push_back(S_ISDIR(st.st_mode)
                               ? absl::StrCat(g.special_skipped,
                                              " entr(ies) that are not regular files (FIFOs, sockets, devices) "
                                              "were not searched")
                               : absl::StrCat("'", call.Display(path),
                                              "' is not a regular file (a FIFO, socket or device); it was not "
                                              "searched"));
  }
  if (!S_ISDIR(st.st_mode) && g.binary_skipped > 0) {
    out.warnings.push_back(absl::StrCat("'", call.Display(path), "' is a binary file; it was not searched"));
  }
  out.success = true;
  out.data = std::move(data);
  NoteDryRunView(call, path, &out);
  return out;
}

absl::StatusOr<ActionOutcome> GlobAction(const Call& call) {
  ASSIGN_OR_RETURN(std::string pattern, call.Str("pattern"));
  ASSIGN_OR_RETURN(std::string param, call.Str("base_path"));
  ASSIGN_OR_RETURN(internal::GlobPattern glob, internal::GlobPattern::Compile(pattern));
  ASSIGN_OR_RETURN(std::string base, call.Resolve(param));
  struct stat st;
  if (call.store().Stat(base, &st) != 0) {
    return absl::NotFoundError(absl::StrCat("base_path '", call.Display(base), "' does not exist", DidYouMean(call, base)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("base_path '", call.Display(base), "' is a file; give the directory to search under"));
  }
  internal::SearchLimits limits = LimitsOf(call.ctx());
  internal::GlobOutcome g;
  struct stat disk_st;
  if (!call.store().dry() || DiskStore::Get().Stat(base, &disk_st) == 0) {
    std::unique_ptr<internal::GitIgnore> ignore = internal::GitIgnore::ForDirectory(base);
    ASSIGN_OR_RETURN(g, internal::Glob(base, glob, *ignore, limits));
  }
  if (g.timed_out) return TotalTimeout(absl::StrCat("walk after ", g.total, " matching files"));
  Json matches = Json::array();
  for (const std::string& p : g.paths) matches.push_back(call.Display(p));
  Json data = {{"matches", std::move(matches)}, {"total", g.total}};
  ActionOutcome out = ActionOutcome::Ok(std::move(data));
  if (g.truncated) {
    out.data["truncated"] = true;
    out.warnings.push_back(
        absl::StrCat("showing the first ", g.paths.size(), " of ", g.total, " matching files; narrow the pattern"));
  }
  if (g.special_skipped > 0) {
    out.data["special_files_skipped"] = g.special_skipped;
    out.warnings.push_back(absl::StrCat(g.special_skipped,
                                        " matching entr(ies) are not regular files (FIFOs, sockets, devices) and "
                                        "are left out"));
  }
  NoteDryRunView(call, base, &out);
  return out;
}

// ------------------------------------------------------------------ dispatch

using Handler = absl::StatusOr<ActionOutcome> (*)(const Call&);

const std::vector<std::pair<std::string, Handler>>& Handlers() {
  static const auto* handlers = new std::vector<std::pair<std::string, Handler>>{
      {"file_write", FileWrite},
      {"file_append", FileAppend},
      {"file_replace_text", FileReplaceText},
      {"file_replace_all_text", FileReplaceAllText},
      {"file_replace_text_range", FileReplaceTextRange},
      {"files_replace_all_text", FilesReplaceAllText},
      {"file_replace_lines", FileReplaceLines},
      {"file_apply_diff", FileApplyDiff},
      {"file_apply_patch", FileApplyPatch},
      {"file_read_numbered", FileReadNumbered},
      {"file_read", FileRead},
      {"files_read", FilesRead},
      {"file_delete", FileDelete},
      {"file_move", FileMove},
      {"dir_create", DirCreate},
      {"dir_delete", DirDelete},
      {"ls", Ls},
      {"grep", Grep},
      {"glob", GlobAction},
  };
  return *handlers;
}

// Makes every string in `j` valid UTF-8, so the result always serialises.
void SanitizeJson(Json& j) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (!internal::IsValidUtf8(s)) j = internal::ToValidUtf8(s);
  } else if (j.is_structured()) {
    for (auto& item : j) SanitizeJson(item);
  }
}

ActionOutcome Run(const core::Action& action, const core::ExecContext& ctx, FileStore& store) {
  Handler handler = nullptr;
  for (const auto& [name, h] : Handlers()) {
    if (name == action.name) handler = h;
  }
  if (handler == nullptr) {
    return ActionOutcome::Failure("unknown_action", absl::StrCat(action.name, ": fs-ops does not run this action; it runs ",
                                                                 absl::StrJoin(FsOpsActionNames(), ", ")));
  }
  Call call(action, ctx, store);
  absl::StatusOr<ActionOutcome> out = handler(call);
  if (out.ok() && out->success) {
    // A file or directory the action removed takes its line record along.
    for (const std::string& path : out->touched_paths) {
      struct stat st;
      if (store.Lstat(path, &st) != 0) NoteGone(call, path);
    }
  }
  if (!out.ok()) {
    return ActionOutcome::Failure(core::ErrorCode(out.status()), absl::StrCat(action.name, ": ", out.status().message()));
  }
  if (!out->success && !absl::StartsWith(out->error, action.name + ": ")) {
    out->error = absl::StrCat(action.name, ": ", out->error);
  }
  return *std::move(out);
}

}  // namespace

core::ActionOutcome ExecuteFileOperation(const core::Action& action, const core::ExecContext& ctx) {
  return ExecuteFileOperation(action, ctx, DiskStore::Get());
}

core::ActionOutcome ExecuteFileOperation(const core::Action& action, const core::ExecContext& ctx,
                                         FileStore& store) {
  ActionOutcome out;
  try {
    out = Run(action, ctx, store);
  } catch (const std::exception& e) {
    out = ActionOutcome::Failure("internal",
                                 absl::StrCat(action.name, ": internal error (", e.what(), "); nothing more is known"));
  } catch (...) {
    out = ActionOutcome::Failure("internal", absl::StrCat(action.name, ": internal error"));
  }
  out.error = internal::ToValidUtf8(out.error);
  for (std::string& w : out.warnings) w = internal::ToValidUtf8(w);
  SanitizeJson(out.data);
  return out;
}

const std::vector<std::string>& FsOpsActionNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>();
    for (const auto& [name, handler] : Handlers()) v->push_back(name);
    return v;
  }();
  return *names;
}

}  // namespace clada::fs_ops
