// `xd5 check` on the real workspace, as part of `bazel test //...`.
//
// The test depends on //:WORKSPACE; its runfiles entry is a symlink to the
// workspace's own WORKSPACE file, so its real path names the source tree.
// The target is tagged "local" and "external": it runs outside the sandbox
// and is never cached, so it sees the docs and BUILD files as they are now.

#include <limits.h>
#include <stdlib.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tools/xd5/src/cli.h"

namespace clada::xd5 {
namespace {

std::string RealWorkspaceRoot() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* name = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || name == nullptr) return "";
  std::string marker = std::string(srcdir) + "/" + name + "/WORKSPACE";
  char real[PATH_MAX];
  if (::realpath(marker.c_str(), real) == nullptr) return "";
  std::string path = real;
  return path.substr(0, path.rfind('/'));
}

TEST(Xd5Check, WorkspaceDocsAgreeWithBuild) {
  std::string root = RealWorkspaceRoot();
  ASSERT_FALSE(root.empty())
      << "cannot find the workspace through the runfiles of //:WORKSPACE";
  std::ostringstream out, err;
  int code = RunXd5({"--root", root, "check"}, out, err);
  std::cout << "xd5 check in " << root << ":\n" << out.str() << err.str();
  EXPECT_EQ(code, 0) << "fix the files named above:\n" << out.str();
}

}  // namespace
}  // namespace clada::xd5
