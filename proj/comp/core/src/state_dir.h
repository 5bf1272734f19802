// Where clada keeps its own state in a working root: `<root>/.clada`
// (settings, approved commands, locks, listener state, the working set).
// No action can reach it: core::ResolvePath refuses every path with a
// `.clada` component (path_denied). clada itself reads and writes it with
// the file functions of file_io.h directly, never through ResolvePath.
//
// Example:
//   std::string settings = clada::core::StatePath(root, clada::core::kSettingsFileName);
//   // "/home/me/proj/.clada/config.yaml"
#ifndef CLADA_PROJ_COMP_CORE_SRC_STATE_DIR_H_
#define CLADA_PROJ_COMP_CORE_SRC_STATE_DIR_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace clada::core {

// The state directory's name, a component of no path an action may name.
inline constexpr char kStateDirName[] = ".clada";
// The settings file in the state directory.
inline constexpr char kSettingsFileName[] = "config.yaml";

// `<root>/.clada`; `root` is the canonical working root.
inline std::string StateDir(absl::string_view root) { return absl::StrCat(root, "/", kStateDirName); }

// `<root>/.clada/<name>`.
inline std::string StatePath(absl::string_view root, absl::string_view name) {
  return absl::StrCat(root, "/", kStateDirName, "/", name);
}

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_STATE_DIR_H_
