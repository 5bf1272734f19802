// `xd5 check`: does each component's doc/API.md say what its BUILD says?
//
// For every component it compares the keys of `dependencies:` with the
// Bazel deps of the main library, and `exports.headers` with its hdrs, both
// ways; it also reports missing doc files, BUILD constructs xd5 cannot read
// and dependency cycles in the declared graph.
//
// Example:
//   std::vector<std::string> lines = CheckWorkspace(ws, {});
//   // "proj/comp/fs-ops/doc/API.md: dependencies: add proj/comp/core (...)"

#ifndef CLADA_TOOLS_XD5_SRC_CHECK_H_
#define CLADA_TOOLS_XD5_SRC_CHECK_H_

#include <set>
#include <string>
#include <vector>

#include "tools/xd5/src/workspace.h"

namespace clada::xd5 {

// One line per problem, each starting with the workspace-relative file to
// fix. ONLY, when not empty, restricts the check to those component paths
// (cycles are reported when they pass through one of them). Empty: all is
// consistent.
std::vector<std::string> CheckWorkspace(const Workspace& ws,
                                        const std::set<std::string>& only);

// The line printed when CheckWorkspace finds nothing, e.g.
// "xd5 check: OK (3 components, 7 dependencies, 5 exported headers)".
std::string CheckSummary(const Workspace& ws,
                         const std::set<std::string>& only);

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_CHECK_H_
