// The file executor's semantics for one file patch on an in-memory tree, for
// the tests: add refuses an existing file, delete and update a missing one;
// a rename writes the new path and removes the old; a failure changes nothing.
#ifndef CLADA_PROJ_COMP_PATCH_TEXT_TEST_DIFF_MEMORY_APPLY_H_
#define CLADA_PROJ_COMP_PATCH_TEXT_TEST_DIFF_MEMORY_APPLY_H_

#include <map>
#include <string>
#include <vector>

#include "proj/comp/patch-text/src/diff_format.h"

namespace clada::patch_text::testing {

using FileMap = std::map<std::string, std::string>;

struct Outcome {
  bool ok = false;
  bool already_applied = false;  // the file held the patch's result: unchanged
  std::string error;
  std::vector<std::string> warnings;
};

Outcome ApplyToTree(const FilePatch& patch, FileMap* files);

}  // namespace clada::patch_text::testing

#endif  // CLADA_PROJ_COMP_PATCH_TEXT_TEST_DIFF_MEMORY_APPLY_H_
