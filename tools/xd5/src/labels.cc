#include "tools/xd5/src/labels.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace clada::xd5 {
namespace {

absl::string_view Basename(absl::string_view path) {
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

DepRef ClassifyDep(absl::string_view label, absl::string_view pkg) {
  DepRef ref;
  if (absl::ConsumePrefix(&label, "@")) {
    if (!absl::StartsWith(label, "//")) {
      size_t end = label.find("//");
      ref.key = absl::StrCat("external/", label.substr(0, end));
      return ref;
    }
    // "@//a/b": the main repository; fall through as "//a/b".
  }
  if (!absl::ConsumePrefix(&label, "//")) {
    absl::ConsumePrefix(&label, ":");
    ref.local = true;
    ref.target = std::string(label);
    return ref;
  }
  size_t colon = label.find(':');
  absl::string_view path = label.substr(0, colon);
  absl::string_view target = colon == absl::string_view::npos
                                 ? Basename(path)
                                 : label.substr(colon + 1);
  if (path == pkg) {
    ref.local = true;
    ref.target = std::string(target);
  } else if (target == Basename(path)) {
    ref.key = std::string(path);
  } else {
    ref.key = absl::StrCat(path, ":", target);
  }
  return ref;
}

std::string HeaderPath(absl::string_view label, absl::string_view pkg) {
  if (absl::ConsumePrefix(&label, ":")) return std::string(label);
  std::string own = absl::StrCat("//", pkg, ":");
  if (absl::ConsumePrefix(&label, own)) return std::string(label);
  return std::string(label);
}

}  // namespace clada::xd5
