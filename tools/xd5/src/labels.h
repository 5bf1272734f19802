// Maps Bazel labels to the names doc/API.md uses for them.
//
// XD5 names a dependency by path: //proj/comp/core (or //proj/comp/core:core)
// is `proj/comp/core`; an external repository @abseil//:lib (any target in
// it) is `external/abseil`. A label of the component's own package is not a
// dependency on another component; xd5 follows it inside the BUILD file.
//
// Example:
//   DepRef r = ClassifyDep("@yaml_cpp//:lib", "tools/xd5");
//   // r.local == false, r.key == "external/yaml_cpp"

#ifndef CLADA_TOOLS_XD5_SRC_LABELS_H_
#define CLADA_TOOLS_XD5_SRC_LABELS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace clada::xd5 {

struct DepRef {
  bool local = false;  // a target of the same package
  std::string target;  // for a local label: the target name
  std::string key;     // otherwise: the API.md dependency key
};

// Classifies LABEL, written in a BUILD file of package PKG ("proj/comp/x").
//   //a/b, //a/b:b          -> key "a/b"
//   //a/b:t (t != b)        -> key "a/b:t"
//   @repo, @repo//any:thing -> key "external/repo"
//   @//a/b                  -> as //a/b
//   :t, t, //PKG:t          -> local, target "t"
DepRef ClassifyDep(absl::string_view label, absl::string_view pkg);

// Turns an entry of `hdrs` of package PKG into the path doc/API.md lists:
// "src/a.h", ":src/a.h" and "//PKG:src/a.h" all become "src/a.h". Labels of
// other packages are returned unchanged.
std::string HeaderPath(absl::string_view label, absl::string_view pkg);

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_LABELS_H_
