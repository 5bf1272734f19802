// The file executor's semantics for one file patch on an in-memory tree, for
// the tests: patch-text's test helper (test/diff_memory_apply.h), named in
// this reader's namespace for its tests.
#ifndef CLADA_PROJ_COMP_UDIFF_READER_TEST_MEMORY_APPLY_H_
#define CLADA_PROJ_COMP_UDIFF_READER_TEST_MEMORY_APPLY_H_

#include "proj/comp/patch-text/test/diff_memory_apply.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"

namespace clada::udiff_reader::testing {

using patch_text::testing::ApplyToTree;
using patch_text::testing::FileMap;
using patch_text::testing::Outcome;

}  // namespace clada::udiff_reader::testing

#endif  // CLADA_PROJ_COMP_UDIFF_READER_TEST_MEMORY_APPLY_H_
