// Helpers shared by the tests that drive the real `clada` binary.
#ifndef CLADA_PROJ_TEST_TEST_UTIL_H_
#define CLADA_PROJ_TEST_TEST_UTIL_H_

#include <string>

namespace clada::testing {

// A new directory whose name starts with `prefix`, under the test's own
// temporary directory (Bazel's TEST_TMPDIR, emptied before each run; /tmp
// outside Bazel), canonical; "" on failure.
std::string MakeTempDir(const std::string& prefix);

// The whole file, or "" when it cannot be read.
std::string ReadAll(const std::string& path);

// `s` quoted for /bin/sh.
std::string ShellQuote(const std::string& s);

// Runs `cmd` with /bin/sh; returns the wait status.
int Sh(const std::string& cmd);

// The absolute path of the built `clada` (a `data` dependency of the test).
std::string CladaBinary();

}  // namespace clada::testing

#endif  // CLADA_PROJ_TEST_TEST_UTIL_H_
