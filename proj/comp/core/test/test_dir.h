// A new directory for a test.
#ifndef CLADA_PROJ_COMP_CORE_TEST_TEST_DIR_H_
#define CLADA_PROJ_COMP_CORE_TEST_TEST_DIR_H_

#include <limits.h>
#include <stdlib.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace clada::core::testing {

// A new directory named `prefix` and six random characters under the
// test's temporary directory (Bazel's TEST_TMPDIR, emptied before each
// run; /tmp outside Bazel), canonical; "" on failure.
inline std::string MakeTestDir(const char* prefix) {
  const char* base = ::getenv("TEST_TMPDIR");
  char real[PATH_MAX];
  std::string tmpl =
      absl::StrCat(base != nullptr && ::realpath(base, real) != nullptr ? real : "/tmp", "/", prefix, "XXXXXX");
  return ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
}

}  // namespace clada::core::testing

#endif  // CLADA_PROJ_COMP_CORE_TEST_TEST_DIR_H_
