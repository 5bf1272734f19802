// Reads the two YAML blocks of a component's doc/API.md.
//
// doc/API.md carries, in fenced ```yaml blocks, the component's declared
// dependencies (`dependencies:` mapping path -> what is used) and exports
// (`exports:` with `headers:`, `functions:`, `types:`). xd5 needs the
// dependency keys and exports.headers; everything else in the file is prose.
//
// Example:
//   ApiDoc doc = ParseApiDoc(text);
//   for (const std::string& p : doc.problems) std::cout << p << "\n";
//   // doc.dependencies == {"proj/comp/core", "external/abseil"}

#ifndef CLADA_TOOLS_XD5_SRC_API_DOC_H_
#define CLADA_TOOLS_XD5_SRC_API_DOC_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace clada::xd5 {

struct ApiDoc {
  bool has_dependencies = false;            // a `dependencies:` block was read
  std::vector<std::string> dependencies;    // its keys, in file order
  bool has_exports = false;                 // an `exports:` block was read
  std::vector<std::string> export_headers;  // exports.headers (absent: empty)
  // What is wrong with the file itself, each a message such as
  // `line 12: YAML error: ...`, ready to follow "path/doc/API.md: ".
  std::vector<std::string> problems;
};

// Parses MARKDOWN. Never fails: every problem is listed in ApiDoc::problems,
// and whatever could still be read is returned.
ApiDoc ParseApiDoc(absl::string_view markdown);

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_API_DOC_H_
