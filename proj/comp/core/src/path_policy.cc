#include "proj/comp/core/src/path_policy.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "proj/comp/core/src/state_dir.h"

namespace clada::core {
namespace {

// realpath(3) of an existing path; empty when it does not exist.
std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return "";
  return buf;
}

// Canonicalises the longest existing prefix of a normalised absolute path
// and appends the rest. Symlinks inside the existing part are resolved.
std::string CanonicalizeExistingPrefix(const std::string& normalized) {
  std::string real = RealPath(normalized);
  if (!real.empty()) return real;
  size_t cut = normalized.size();
  while (true) {
    cut = normalized.rfind('/', cut - 1);
    if (cut == std::string::npos || cut == 0) {
      return normalized;  // nothing below / exists; keep lexical form
    }
    std::string head = normalized.substr(0, cut);
    std::string real_head = RealPath(head);
    if (!real_head.empty()) {
      std::string tail = normalized.substr(cut);  // starts with '/'
      return real_head == "/" ? tail : real_head + tail;
    }
  }
}

bool HasComponent(absl::string_view path, absl::string_view name) {
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part == name) return true;
  }
  return false;
}

// The deny list: system trees and secrets that no action may touch,
// whatever the allowed roots say.
std::string DeniedReason(const std::string& canonical) {
  static const char* const kSystemTrees[] = {"/etc", "/proc", "/sys", "/dev", "/boot"};
  for (const char* tree : kSystemTrees) {
    if (IsWithin(canonical, tree)) return absl::StrCat("it is inside ", tree);
  }
  if (HasComponent(canonical, ".git")) {
    return "it is inside a .git directory (git internals are managed by clada's git "
           "integration, not by actions)";
  }
  if (HasComponent(canonical, ".ssh")) return "it is inside a .ssh directory";
  if (HasComponent(canonical, kStateDirName)) {
    return "it is inside .clada, clada's own state (settings, approved commands, locks, listener state, "
           "working set), which no action may read or change; the user edits it by hand or with clada's commands";
  }
  return "";
}

}  // namespace

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
  policy.working_root = RealPath(working_root);
  if (policy.working_root.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("working root '", working_root, "' does not exist (", std::strerror(errno), ")"));
  }
  policy.allowed_roots.push_back(policy.working_root);
  for (const std::string& extra : extra_roots) {
    std::string absolute = extra.empty() || extra[0] == '/' ? extra : policy.working_root + "/" + extra;
    std::string real = RealPath(absolute);
    if (real.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("allowed root '", extra, "' does not exist"));
    }
    policy.allowed_roots.push_back(real);
  }
  return policy;
}

absl::StatusOr<std::string> ResolvePath(const PathPolicy& policy, absl::string_view path) {
  if (path.empty()) return absl::InvalidArgumentError("invalid_path: the path is empty");
  if (path.find('\0') != absl::string_view::npos) {
    return absl::InvalidArgumentError("invalid_path: the path contains a NUL byte");
  }
  if (path.size() >= PATH_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid_path: the path is ", path.size(), " bytes long (limit ", PATH_MAX - 1, ")"));
  }
  std::string absolute = path[0] == '/' ? std::string(path) : absl::StrCat(policy.working_root, "/", path);
  std::string canonical = CanonicalizeExistingPrefix(NormalizeAbsolutePath(absolute));

  bool inside = false;
  for (const std::string& root : policy.allowed_roots) {
    if (IsWithin(canonical, root)) {
      inside = true;
      break;
    }
  }
  if (!inside) {
    return absl::PermissionDeniedError(absl::StrCat(
        "path_escape: '", path, "' resolves to '", canonical, "', which is outside the allowed roots (",
        absl::StrJoin(policy.allowed_roots, ", "),
        "). Use a path inside the working root, or let the user add a root with --allow DIR"));
  }
  std::string reason = DeniedReason(canonical);
  if (!reason.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat("path_denied: '", path, "' resolves to '", canonical, "', which is refused because ", reason));
  }
  return canonical;
}

std::string DisplayPath(const PathPolicy& policy, absl::string_view path) {
  if (path == policy.working_root) return ".";
  if (IsWithin(path, policy.working_root)) return std::string(path.substr(policy.working_root.size() + 1));
  return std::string(path);
}

}  // namespace clada::core
