#include "proj/comp/core/src/path_policy.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/state_dir.h"

namespace clada::core {
namespace {

// realpath(3) of a path; on failure, empty with `err` set to errno.
std::string RealPath(const std::string& path, int& err) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    err = errno;
    return "";
  }
  err = 0;
  return buf;
}

// A failure of realpath(3) that says only "this does not exist (yet)".
// Anything else (ENAMETOOLONG, ELOOP, EACCES, EIO ...) means the path could
// not be checked, and a path that cannot be checked is refused: the kernel
// may still open it, and where it leads is unknown.
bool MeansMissing(int err) { return err == ENOENT || err == ENOTDIR; }

absl::Status Unresolvable(absl::string_view input, const std::string& prefix, int err) {
  return WithCode(absl::PermissionDeniedError(absl::StrCat(
                      "path_denied: '", input, "' cannot be checked: resolving '", prefix,
                      "' failed: ", std::strerror(err), " (", ErrnoName(err),
                      "); a path clada cannot resolve is refused. Use a shorter path without symlink loops")),
                  "path_denied");
}

// What one openat2(2) with RESOLVE_NO_SYMLINKS says of `normalized`
// (absolute, without ".", ".." or empty components), where realpath(3)
// reads every component with readlink(2) (a path eight deep: 8.4 µs
// against 2.2):
//   kOwn      every component exists and none is a symlink, the last
//             included: the path is its own realpath (and `*mode`, when
//             given, is the last one's st_mode, every one before it being
//             a directory);
//   kMissing  a component is missing (ENOENT) or not a directory
//             (ENOTDIR), and none before it is a symlink: realpath would
//             fail the same way;
//   kUnknown  anything else (a symlink, EACCES, ENAMETOOLONG, a kernel
//             before 5.6, a seccomp filter): realpath decides.
enum class Walk { kOwn, kMissing, kUnknown };

Walk WalkWithoutSymlinks(const std::string& normalized, mode_t* mode = nullptr) {
#if defined(SYS_openat2) && defined(RESOLVE_NO_SYMLINKS)
  static std::atomic<bool> unsupported{false};
  if (unsupported.load(std::memory_order_relaxed)) return Walk::kUnknown;
  struct open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;  // implies RESOLVE_NO_MAGICLINKS
  const long fd = ::syscall(SYS_openat2, AT_FDCWD, normalized.c_str(), &how, sizeof how);
  if (fd >= 0) {
    struct stat st;
    const bool known = mode == nullptr || ::fstat(static_cast<int>(fd), &st) == 0;
    ::close(static_cast<int>(fd));
    if (!known) return Walk::kUnknown;
    if (mode != nullptr) *mode = st.st_mode;
    return Walk::kOwn;
  }
  if (errno == ENOENT || errno == ENOTDIR) return Walk::kMissing;
  // Not there (before 5.6), or refused by a seccomp filter: never asked again.
  if (errno == ENOSYS || errno == EPERM) unsupported.store(true, std::memory_order_relaxed);
#endif
  return Walk::kUnknown;
}

// Canonicalises the longest existing prefix of a normalised absolute path
// and appends the rest. Symlinks inside the existing part are resolved.
// `*existing_mode` is the path's st_mode when one openat2(2) found all of
// it there without a symlink (every component before the last is then a
// directory), else 0.
// Errors: path_denied when realpath fails for a reason other than a
// missing component.
absl::StatusOr<std::string> CanonicalizeExistingPrefix(absl::string_view input, const std::string& normalized,
                                                       mode_t* existing_mode) {
  int err = 0;
  *existing_mode = 0;
  const Walk walk = WalkWithoutSymlinks(normalized, existing_mode);
  if (walk == Walk::kOwn) return normalized;
  *existing_mode = 0;
  if (walk == Walk::kUnknown) {
    std::string real = RealPath(normalized, err);
    if (!real.empty()) return real;
    if (!MeansMissing(err)) return Unresolvable(input, normalized, err);
  }
  size_t cut = normalized.size();
  while (true) {
    cut = normalized.rfind('/', cut - 1);
    if (cut == std::string::npos || cut == 0) {
      return normalized;  // nothing below / exists; keep lexical form
    }
    std::string head = normalized.substr(0, cut);
    const Walk head_walk = WalkWithoutSymlinks(head);
    if (head_walk == Walk::kOwn) return normalized;  // head is real; the tail appended is the rest
    if (head_walk == Walk::kMissing) continue;
    std::string real_head = RealPath(head, err);
    if (!real_head.empty()) {
      std::string tail = normalized.substr(cut);  // starts with '/'
      return real_head == "/" ? tail : real_head + tail;
    }
    if (!MeansMissing(err)) return Unresolvable(input, head, err);
  }
}

// Decodes one UTF-8 code point at `i` (advancing it); an invalid byte is
// returned as itself (>= 0x80), which folds to nothing ASCII.
char32_t NextCodePoint(absl::string_view s, size_t& i) {
  unsigned char c = s[i++];
  if (c < 0x80) return c;
  int extra = c >= 0xF0 && c < 0xF8 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
  if (extra < 0 || i + extra > s.size()) return c;
  char32_t cp = c & (0x3F >> extra);
  for (int k = 0; k < extra; ++k) {
    unsigned char next = s[i + k];
    if ((next & 0xC0) != 0x80) return c;
    cp = (cp << 6) | (next & 0x3F);
  }
  i += extra;
  return cp;
}

// Code points HFS+ ignores in names (git's is_hfs_dotgit skips the same).
bool IgnoredByHfs(char32_t cp) {
  return (cp >= 0x200C && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x206A && cp <= 0x206F) ||
         cp == 0xFEFF;
}

// A path component as a case-insensitive file system sees it, as far as
// ASCII goes: ASCII letters lowercased; the code points that full Unicode
// case folding (ext4/f2fs casefold, APFS, HFS+) or NTFS's upper-case table
// make equal to an ASCII letter mapped to it (U+212A KELVIN SIGN -> k,
// U+017F LONG S -> s, U+0131 DOTLESS I and U+0130 I WITH DOT -> i); code
// points HFS+ ignores dropped; every other code point kept as "\x01" (it
// matches no ASCII name). Trailing dots and spaces are dropped, as Windows
// drops them (".git." is ".git" on NTFS).
std::string FoldComponent(absl::string_view part) {
  std::string out;
  for (size_t i = 0; i < part.size();) {
    char32_t cp = NextCodePoint(part, i);
    if (cp < 0x80) {
      out += absl::ascii_tolower(static_cast<unsigned char>(cp));
    } else if (cp == 0x212A) {
      out += 'k';
    } else if (cp == 0x017F) {
      out += 's';
    } else if (cp == 0x0131 || cp == 0x0130) {
      out += 'i';
    } else if (!IgnoredByHfs(cp)) {
      out += '\x01';
    }
  }
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

// True when a folded component names `dot_name` (".git"): exactly, or as
// its NTFS short (8.3) name, "git~1" ... "git~9".
bool NamesDenied(const std::string& folded, absl::string_view dot_name) {
  if (folded == dot_name) return true;
  absl::string_view bare = dot_name.substr(1);
  return folded.size() == bare.size() + 2 && absl::string_view(folded).substr(0, bare.size()) == bare &&
         folded[bare.size()] == '~' && folded.back() >= '1' && folded.back() <= '9';
}

// The first component of `path` that names `dot_name` on a case-insensitive
// file system, or "" when none does.
std::string ComponentNaming(absl::string_view path, absl::string_view dot_name) {
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    if (NamesDenied(FoldComponent(part), dot_name)) return std::string(part);
  }
  return "";
}

// " ('.Git' is '.git' on a case-insensitive file system)" when spelled otherwise.
std::string Spelling(const std::string& part, absl::string_view dot_name) {
  if (part == dot_name) return "";
  return absl::StrCat(" ('", part, "' is '", dot_name, "' on a case-insensitive file system)");
}

// The deny list: system trees and secrets that no action may touch,
// whatever the allowed roots say.
std::string DeniedReason(const std::string& canonical) {
  static const char* const kSystemTrees[] = {"/etc", "/proc", "/sys", "/dev", "/boot"};
  for (const char* tree : kSystemTrees) {
    if (IsWithin(canonical, tree)) return absl::StrCat("it is inside ", tree);
  }
  std::string part = ComponentNaming(canonical, ".git");
  if (!part.empty()) {
    return absl::StrCat("it is inside a .git directory", Spelling(part, ".git"),
                        " (git internals are managed by clada's git integration, not by actions)");
  }
  part = ComponentNaming(canonical, ".ssh");
  if (!part.empty()) return absl::StrCat("it is inside a .ssh directory", Spelling(part, ".ssh"));
  part = ComponentNaming(canonical, kStateDirName);
  if (!part.empty()) {
    return absl::StrCat("it is inside .clada", Spelling(part, kStateDirName),
                        ", clada's own state (settings, approved commands, locks, listener state, working set), "
                        "which no action may read or change; the user edits it by hand or with clada's commands");
  }
  return "";
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// What git's is_git_directory() looks for in a directory: HEAD, and
// objects/ plus refs/ (or a commondir file that points at them elsewhere).
// `adding` is a name about to be created in `dir` (folded), "" for none.
// Any HEAD counts, whatever it holds: stricter than git, never looser.
bool HasGitLayout(const std::string& dir, const std::string& adding) {
  bool head = adding == "head" || Exists(dir + "/HEAD");
  if (!head) return false;
  if (adding == "commondir" || Exists(dir + "/commondir")) return true;
  bool objects = adding == "objects" || Exists(dir + "/objects");
  bool refs = adding == "refs" || Exists(dir + "/refs");
  return objects && refs;
}

// Refuses a path inside a directory git would take for a repository, and
// a path that would complete that layout (issue 17 #4: an answer that
// plants HEAD, objects/ and refs/ makes every git command there run its
// config). Checked from the allowed root `root` down to `canonical`.
// `existing_mode` is canonical's st_mode when it is known to exist with
// every component before it a directory (CanonicalizeExistingPrefix),
// else 0: each component is then looked at.
std::string PlantedRepositoryReason(const std::string& canonical, const std::string& root, mode_t existing_mode) {
  // The root itself is the user's choice (it may be a bare repository the
  // user works in); only what lies below it is checked.
  std::string dir = root;
  if (canonical == root) return "";
  absl::string_view rest = absl::string_view(canonical).substr(root == "/" ? 1 : root.size() + 1);
  for (absl::string_view part : absl::StrSplit(rest, '/', absl::SkipEmpty())) {
    std::string folded = FoldComponent(part);
    bool layout_name = folded == "head" || folded == "objects" || folded == "refs" || folded == "commondir";
    std::string child = dir == "/" ? absl::StrCat("/", part) : absl::StrCat(dir, "/", part);
    // One lstat for "exists" and "is a directory": `canonical` came from
    // realpath(3), so an existing component is no symlink (but a dangling
    // one it could not resolve, which is no directory either way) and
    // lstat's answer is stat's. None when the walk already told.
    struct stat st;
    bool exists;
    if (existing_mode != 0) {
      exists = true;
      st.st_mode = child.size() == canonical.size() ? existing_mode : S_IFDIR;
    } else {
      exists = ::lstat(child.c_str(), &st) == 0;
    }
    if (layout_name && !exists && HasGitLayout(dir, folded)) {
      return absl::StrCat("creating '", part, "' in '", dir,
                          "' would give it the layout of a git repository (HEAD, objects/, refs/), and every git "
                          "command run there would obey its config");
    }
    if (!exists) return "";  // nothing below a new directory can complete an existing one
    dir = std::move(child);
    if (S_ISDIR(st.st_mode) && HasGitLayout(dir, "")) {
      return absl::StrCat("'", dir, "' has the layout of a git repository (HEAD, objects/, refs/)");
    }
  }
  return "";
}

}  // namespace

bool IsDeniedName(absl::string_view component) {
  const std::string folded = FoldComponent(component);
  return NamesDenied(folded, ".git") || NamesDenied(folded, ".ssh") || NamesDenied(folded, kStateDirName);
}

std::string ProtectedFileWithin(const PathPolicy& policy, absl::string_view path) {
  for (const std::string& file : policy.protected_files) {
    if (IsWithin(file, path)) return file;
  }
  if (policy.protected_files.empty()) return "";
  // By identity too: on a case-insensitive file system `NOTES` is the
  // `notes` holding the listened file, and a bind mount shows it under
  // another name. `path` is at or above a protected file when it is the
  // same directory (device and inode) as one of the file's parents.
  struct stat dir;
  if (::lstat(std::string(path).c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode)) return "";
  for (const std::string& file : policy.protected_files) {
    std::string up = file;
    for (size_t slash = up.rfind('/'); slash != std::string::npos && slash > 0; slash = up.rfind('/')) {
      up.resize(slash);
      struct stat st;
      if (::stat(up.c_str(), &st) == 0 && st.st_dev == dir.st_dev && st.st_ino == dir.st_ino) return file;
    }
  }
  return "";
}

bool IsWithin(absl::string_view path, absl::string_view root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  if (path.size() < root.size() || path.substr(0, root.size()) != root) return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

std::string NormalizeAbsolutePath(absl::string_view path) {
  std::vector<absl::string_view> parts;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  return absl::StrCat("/", absl::StrJoin(parts, "/"));
}

absl::StatusOr<PathPolicy> MakePathPolicy(const std::string& working_root,
                                          const std::vector<std::string>& extra_roots) {
  PathPolicy policy;
  int err = 0;
  policy.working_root = RealPath(working_root, err);
  if (policy.working_root.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("working root '", working_root, "' does not exist (", std::strerror(err), ")"));
  }
  policy.allowed_roots.push_back(policy.working_root);
  for (const std::string& extra : extra_roots) {
    std::string absolute = extra.empty() || extra[0] == '/' ? extra : policy.working_root + "/" + extra;
    std::string real = RealPath(absolute, err);
    if (real.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("allowed root '", extra, "' does not exist"));
    }
    policy.allowed_roots.push_back(real);
  }
  return policy;
}

namespace {
// The most components a canonical path may have (see ResolvePath).
constexpr int kMaxPathComponents = 99;
}  // namespace

absl::StatusOr<std::string> ResolvePath(const PathPolicy& policy, absl::string_view path) {
  if (path.empty()) return WithCode(absl::InvalidArgumentError("invalid_path: the path is empty"), "invalid_path");
  if (path.find('\0') != absl::string_view::npos) {
    return WithCode(absl::InvalidArgumentError("invalid_path: the path contains a NUL byte"), "invalid_path");
  }
  if (path.size() >= PATH_MAX) {
    return WithCode(absl::InvalidArgumentError(absl::StrCat("invalid_path: the path is ", path.size(),
                                                            " bytes long (limit ", PATH_MAX - 1, ")")),
                    "invalid_path");
  }
  std::string absolute = path[0] == '/' ? std::string(path) : absl::StrCat(policy.working_root, "/", path);
  mode_t existing_mode = 0;
  absl::StatusOr<std::string> resolved =
      CanonicalizeExistingPrefix(path, NormalizeAbsolutePath(absolute), &existing_mode);
  if (!resolved.ok()) return resolved.status();
  const std::string& canonical = *resolved;
  // git (libgit2) stops at a directory nested 100 levels below a work
  // tree's top ("directory nesting too deep"), and then every status,
  // commit and undo fails until it is removed by hand. Counted from `/`,
  // which no work tree is above: 99 components at most.
  if (std::count(canonical.begin(), canonical.end(), '/') > kMaxPathComponents) {
    return WithCode(absl::InvalidArgumentError(absl::StrCat(
                        "path_too_deep: '", path, "' is ", std::count(canonical.begin(), canonical.end(), '/'),
                        " folders deep from /; clada keeps paths to ", kMaxPathComponents,
                        " (git cannot track a folder nested 100 deep in a repository, and every later commit and "
                        "undo would fail)")),
                    "path_too_deep");
  }

  const std::string* root_of_path = nullptr;
  for (const std::string& root : policy.allowed_roots) {
    if (IsWithin(canonical, root) && (root_of_path == nullptr || root.size() > root_of_path->size())) {
      root_of_path = &root;
    }
  }
  if (root_of_path == nullptr) {
    return WithCode(absl::PermissionDeniedError(absl::StrCat(
                        "path_escape: '", path, "' resolves to '", canonical, "', which is outside the allowed roots (",
                        absl::StrJoin(policy.allowed_roots, ", "),
                        "). Use a path inside the working root, or let the user add a root with --allow DIR")),
                    "path_escape");
  }
  std::string reason = DeniedReason(canonical);
  if (reason.empty()) reason = PlantedRepositoryReason(canonical, *root_of_path, existing_mode);
  if (reason.empty() && !policy.protected_files.empty()) {
    // By identity too, not only by spelling: on a case-insensitive file
    // system `CHAT.md` is the listened `chat.md` (and a hard link is the
    // same file under any name).
    struct stat target;
    const bool exists = ::stat(canonical.c_str(), &target) == 0;
    for (const std::string& file : policy.protected_files) {
      struct stat kept;
      if (IsWithin(canonical, file) || (exists && ::stat(file.c_str(), &kept) == 0 && kept.st_dev == target.st_dev &&
                                        kept.st_ino == target.st_ino)) {
        reason = "it is a file clada itself keeps during this run (the file `clada listen` is watching, the report "
                 "it writes beside it, or the lock file of the lock_file setting): no action may read or change them";
        break;
      }
    }
  }
  if (!reason.empty()) {
    return WithCode(absl::PermissionDeniedError(absl::StrCat("path_denied: '", path, "' resolves to '", canonical,
                                                             "', which is refused because ", reason)),
                    "path_denied");
  }
  return canonical;
}

std::string DisplayPath(const PathPolicy& policy, absl::string_view path) {
  if (path == policy.working_root) return ".";
  if (IsWithin(path, policy.working_root)) return std::string(path.substr(policy.working_root.size() + 1));
  return std::string(path);
}

}  // namespace clada::core
