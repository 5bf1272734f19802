// Test helper: applies one file operation to an in-memory tree of files, with
// the semantics the file executor will have (doc/ARCH.md, "Wiring"):
// - Add over an existing file replaces it and says so with its old line count;
// - Delete of a missing file (or of a directory) fails;
// - Update of a missing file fails; its hunks apply all or nothing;
// - Move to an existing file replaces it and says so (Codex does it silently);
//   the parser already turned a Move to the file's own path into no move.
#ifndef CLADA_PROJ_COMP_PATCH_TEXT_TEST_ENVELOPE_MEMORY_APPLY_H_
#define CLADA_PROJ_COMP_PATCH_TEXT_TEST_ENVELOPE_MEMORY_APPLY_H_

#include <map>
#include <string>
#include <vector>

#include "proj/comp/patch-text/src/envelope_format.h"

namespace clada::patch_text::testing {

using FileMap = std::map<std::string, std::string>;

struct OpOutcome {
  bool ok = true;
  std::string error;
  std::vector<std::string> warnings;
};

// Changes *files only when the operation succeeds.
OpOutcome ApplyFileOp(const FileOp& op, FileMap* files);

}  // namespace clada::patch_text::testing

#endif  // CLADA_PROJ_COMP_PATCH_TEXT_TEST_ENVELOPE_MEMORY_APPLY_H_
