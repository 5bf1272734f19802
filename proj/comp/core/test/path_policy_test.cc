#include "proj/comp/core/src/path_policy.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/file_io.h"

namespace clada::core {
namespace {

struct Sandbox {
  std::string root;    // working root (canonical)
  std::string outside;  // a directory beside it
};

// Builds ROOT with src/, a symlink pointing out and one pointing in.
Sandbox MakeSandbox() {
  char tmpl[] = "/tmp/clada_path_XXXXXX";
  std::string base = ::mkdtemp(tmpl);
  Sandbox s{base + "/root", base + "/outside"};
  EXPECT_TRUE(CreateDirectories(s.root + "/src").ok());
  EXPECT_TRUE(CreateDirectories(s.outside).ok());
  EXPECT_TRUE(WriteFileAtomic(s.root + "/src/a.txt", "a").ok());
  EXPECT_TRUE(WriteFileAtomic(s.outside + "/secret.txt", "s").ok());
  EXPECT_EQ(::symlink(s.outside.c_str(), (s.root + "/out_link").c_str()), 0);
  EXPECT_EQ(::symlink((s.outside + "/secret.txt").c_str(), (s.root + "/out_file_link").c_str()), 0);
  EXPECT_EQ(::symlink((s.root + "/src").c_str(), (s.root + "/in_link").c_str()), 0);
  return s;
}

class ResolvePathCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(ResolvePathCase, MatchesExpectation) {
  const nlohmann::json& c = GetParam();
  Sandbox s = MakeSandbox();
  absl::StatusOr<PathPolicy> policy = MakePathPolicy(s.root, {});
  ASSERT_TRUE(policy.ok()) << policy.status();
  std::string input = absl::StrReplaceAll(c["input"].get<std::string>(), {{"ROOT", s.root}});
  absl::StatusOr<std::string> got = ResolvePath(*policy, input);
  if (c.contains("expected")) {
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, absl::StrReplaceAll(c["expected"].get<std::string>(), {{"ROOT", s.root}}));
  } else {
    ASSERT_FALSE(got.ok()) << "resolved to " << *got;
    EXPECT_EQ(got.status().message().substr(0, c["error"].get<std::string>().size()), c["error"].get<std::string>())
        << got.status();
  }
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in("proj/comp/core/test-data/resolve_path.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  return doc["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(Cases, ResolvePathCase, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<nlohmann::json>& info) {
                           return info.param["name"].get<std::string>();
                         });

TEST(MakePathPolicy, RejectsMissingRoot) {
  EXPECT_FALSE(MakePathPolicy("/definitely/not/here", {}).ok());
}

TEST(MakePathPolicy, AllowAddsRoot) {
  Sandbox s = MakeSandbox();
  absl::StatusOr<PathPolicy> policy = MakePathPolicy(s.root, {s.outside});
  ASSERT_TRUE(policy.ok());
  absl::StatusOr<std::string> got = ResolvePath(*policy, "out_link/secret.txt");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, s.outside + "/secret.txt");
}

TEST(NormalizeAbsolutePath, CollapsesSegments) {
  EXPECT_EQ(NormalizeAbsolutePath("/a//b/./c/../d"), "/a/b/d");
  EXPECT_EQ(NormalizeAbsolutePath("/../.."), "/");
}

}  // namespace
}  // namespace clada::core
