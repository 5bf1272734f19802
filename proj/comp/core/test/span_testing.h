// Test support for the readers that read a piece of an answer with its
// origin (a first line and a first byte).
#ifndef CLADA_PROJ_COMP_CORE_TEST_SPAN_TESTING_H_
#define CLADA_PROJ_COMP_CORE_TEST_SPAN_TESTING_H_

#include <cstddef>

#include "gtest/gtest.h"
#include "proj/comp/core/src/source_span.h"

namespace clada::core::testing {

// `based`, a span of a piece read from `first_byte` of its answer, is
// `padded`, the span of the same piece read after `padding` empty lines:
// the same lines, its bytes moved by the origin.
inline void ExpectSameSpanWithBase(const SourceSpan& based, const SourceSpan& padded, size_t first_byte,
                                   size_t padding) {
  EXPECT_EQ(based.first_line, padded.first_line);
  EXPECT_EQ(based.last_line, padded.last_line);
  EXPECT_EQ(based.begin - first_byte, padded.begin - padding);
  EXPECT_EQ(based.end - first_byte, padded.end - padding);
}

}  // namespace clada::core::testing

#endif  // CLADA_PROJ_COMP_CORE_TEST_SPAN_TESTING_H_
