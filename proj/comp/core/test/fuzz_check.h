// Check(cond) for the libFuzzer targets: aborts naming the failed promise
// (file, line and the condition), so that libFuzzer keeps the input. Unlike
// assert it holds in every build.
//
// Example:
//   #include "proj/comp/core/test/fuzz_check.h"
//   Check(span.begin <= span.end && span.end <= size);
#ifndef CLADA_PROJ_COMP_CORE_TEST_FUZZ_CHECK_H_
#define CLADA_PROJ_COMP_CORE_TEST_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define Check(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

#endif  // CLADA_PROJ_COMP_CORE_TEST_FUZZ_CHECK_H_
