// The file executor's semantics for one file operation on an in-memory
// tree, for the tests: patch-text's test helper
// (test/envelope_memory_apply.h), named in this reader's namespace.
#ifndef CLADA_PROJ_COMP_APPLY_PATCH_READER_TEST_MEMORY_APPLY_H_
#define CLADA_PROJ_COMP_APPLY_PATCH_READER_TEST_MEMORY_APPLY_H_

#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"
#include "proj/comp/patch-text/test/envelope_memory_apply.h"

namespace clada::apply_patch_reader::testing {

using patch_text::testing::ApplyFileOp;
using patch_text::testing::FileMap;
using patch_text::testing::OpOutcome;

}  // namespace clada::apply_patch_reader::testing

#endif  // CLADA_PROJ_COMP_APPLY_PATCH_READER_TEST_MEMORY_APPLY_H_
