#include "tools/xd5/src/context.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/xd5/src/graph.h"

namespace clada::xd5 {

std::string AssembleContext(const Workspace& ws, const Component& target,
                            bool absolute, std::vector<std::string>* missing) {
  std::string out;
  DepGraph graph = BuildGraph(ws);
  for (const std::string& node : graph.Closure(target.path)) {
    const Component* c = ws.Find(node);
    if (c == nullptr || c->path != node) continue;  // external library
    for (const char* file : kDocFiles) {
      std::string rel = c->DocPath(file);
      std::ifstream in(absl::StrCat(ws.root, "/", rel), std::ios::binary);
      if (!in) {
        missing->push_back(rel);
        continue;
      }
      std::ostringstream text;
      text << in.rdbuf();
      std::string body = text.str();
      if (!body.empty() && body.back() != '\n') body += '\n';
      std::string shown = absolute ? absl::StrCat(ws.root, "/", rel) : rel;
      absl::StrAppend(&out, out.empty() ? "" : "\n", "=== START FILE: ", shown,
                      " ===\n", body, "=== END FILE: ", shown, " ===\n");
    }
  }
  return out;
}

}  // namespace clada::xd5
