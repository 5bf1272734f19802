// Cases from test-data/read_only.json: which snippets exec: approve runs
// without an approval (src/read_only.h).
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/read_only.h"

namespace clada::exec::internal {
namespace {

using Json = nlohmann::ordered_json;

std::vector<Json> Cases() {
  std::ifstream in("proj/comp/exec/test-data/read_only.json");
  const Json data = Json::parse(in);
  return std::vector<Json>(data["cases"].begin(), data["cases"].end());
}

std::string CaseName(const ::testing::TestParamInfo<Json>& info) { return info.param["name"].get<std::string>(); }

class ReadOnlyTest : public ::testing::TestWithParam<Json> {};

TEST_P(ReadOnlyTest, Refusal) {
  const Json& c = GetParam();
  std::string base = std::string(::getenv("TEST_TMPDIR")) + "/ro-XXXXXX";
  ASSERT_NE(::mkdtemp(base.data()), nullptr);
  const std::string root = base + "/proj";
  ASSERT_TRUE(core::CreateDirectories(root + "/src").ok());
  ASSERT_TRUE(core::CreateDirectories(root + "/.git").ok());
  ASSERT_TRUE(core::CreateDirectories(base + "/outside").ok());
  ASSERT_TRUE(core::CreateDirectories(root + "-sibling").ok());
  ASSERT_TRUE(core::WriteFileAtomic(root + "/src/a.txt", "a\n").ok());
  ASSERT_TRUE(core::WriteFileAtomic(base + "/outside/secret.txt", "s\n").ok());
  ASSERT_TRUE(core::WriteFileAtomic(root + "-sibling/secret.txt", "s\n").ok());
  ASSERT_EQ(::symlink((base + "/outside").c_str(), (root + "/out").c_str()), 0);
  absl::StatusOr<core::PathPolicy> paths = core::MakePathPolicy(root, {});
  ASSERT_TRUE(paths.ok()) << paths.status();
  std::string cwd = paths->working_root;
  if (c.contains("cwd")) cwd += "/" + c["cwd"].get<std::string>();
  const std::string code = absl::StrReplaceAll(c["code"].get<std::string>(), {{"{root}", paths->working_root}});

  std::optional<std::string> why = ReadOnlyRefusal(code, cwd, *paths);
  if (c["allowed"].get<bool>()) {
    EXPECT_FALSE(why.has_value()) << *why;
  } else {
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find(c["why_contains"].get<std::string>()), std::string::npos) << *why;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ReadOnlyTest, ::testing::ValuesIn(Cases()), CaseName);

}  // namespace
}  // namespace clada::exec::internal
