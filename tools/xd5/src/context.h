// `xd5 context NAME`: the docs of a component and of everything it depends
// on, dependencies first, each file between `=== START FILE: path ===` and
// `=== END FILE: path ===`, ready to paste into an LLM (XD5's deterministic
// context assembly).
//
// Example:
//   std::vector<std::string> missing;
//   std::string text = AssembleContext(ws, *ws.Find("fs-ops"), false,
//   &missing);

#ifndef CLADA_TOOLS_XD5_SRC_CONTEXT_H_
#define CLADA_TOOLS_XD5_SRC_CONTEXT_H_

#include <string>
#include <vector>

#include "tools/xd5/src/workspace.h"

namespace clada::xd5 {

// The docs (ABSTRACT.md, API.md, ARCH.md) of TARGET and of the components it
// reaches in the declared graph, in dependency order. Paths are
// workspace-relative, or absolute when ABSOLUTE. Doc files that do not exist
// are skipped and appended to MISSING.
std::string AssembleContext(const Workspace& ws, const Component& target,
                            bool absolute, std::vector<std::string>* missing);

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_CONTEXT_H_
