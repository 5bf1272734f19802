// Finds the components of a clada workspace and reads what xd5 compares:
// each component's docs, doc/API.md YAML and main Bazel library.
//
// Components are the directories proj/comp/<name>/ and, recursively, their
// sub-components <component>/comp/<name>/ (XD5). The orchestrator package
// proj/ counts as a component named "proj" once it exists, that is when
// proj/doc/ exists or proj/BUILD.bazel defines cc_library "orchestrator" or
// cc_binary "clada".
//
// Example:
//   ASSIGN_OR_RETURN(Workspace ws, LoadWorkspace("/work/main"));
//   DepGraph graph = BuildGraph(ws);

#ifndef CLADA_TOOLS_XD5_SRC_WORKSPACE_H_
#define CLADA_TOOLS_XD5_SRC_WORKSPACE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/xd5/src/api_doc.h"
#include "tools/xd5/src/graph.h"

namespace clada::xd5 {

inline constexpr const char* kDocFiles[] = {"ABSTRACT.md", "API.md", "ARCH.md"};

struct Component {
  std::string path;        // "proj/comp/fs-ops"; "proj" for the orchestrator
  std::string short_name;  // "fs-ops"; "proj"
  bool is_orchestrator = false;

  std::vector<std::string> missing_docs;  // of kDocFiles, those absent
  std::optional<ApiDoc> api;              // set when doc/API.md exists

  std::string build_file;  // workspace-relative BUILD.bazel (or BUILD) path
  std::string target;      // label of the main rule, "//proj/comp/x:x"
  bool rule_found = false;
  // The main rule's hdrs, package-relative; unset when they cannot be read.
  std::optional<std::vector<std::string>> hdrs;
  // API.md keys of the main rule's deps, following deps on targets of the
  // same package; sorted. Unset when they cannot be read.
  std::optional<std::vector<std::string>> dep_keys;
  std::map<std::string, std::string> dep_labels;  // key -> label as written
  // What is wrong with the BUILD file, each ready to follow "build_file: ".
  std::vector<std::string> build_problems;

  std::string DocPath(const std::string& file) const {
    return path + "/doc/" + file;
  }
};

struct Workspace {
  std::string root;                   // absolute
  std::vector<Component> components;  // sorted by path ("proj" first)

  // The component whose path or short name is NAME; nullptr if none.
  // AMBIGUOUS, when given, receives every path a short name matches.
  const Component* Find(const std::string& name,
                        std::vector<std::string>* ambiguous = nullptr) const;
};

// Reads the workspace at ROOT. Fails with NotFound when ROOT has no proj/
// directory; everything wrong inside a component is recorded in it instead.
absl::StatusOr<Workspace> LoadWorkspace(const std::string& root);

// The declared graph: each component's doc/API.md dependencies, or its Bazel
// deps when API.md is missing or has no dependencies block.
DepGraph BuildGraph(const Workspace& ws);

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_WORKSPACE_H_
