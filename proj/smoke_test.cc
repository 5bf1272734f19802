#include <git2.h>
#include <gtest/gtest.h>
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
TEST(Smoke, Links) {
  git_libgit2_init();
  EXPECT_TRUE(RE2::FullMatch("abc", "a.c"));
  EXPECT_EQ(YAML::Load("a: 1")["a"].as<int>(), 1);
  absl::StatusOr<int> s = absl::NotFoundError(absl::StrCat("x", 1));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(nlohmann::json::parse("[1]").size(), 1u);
}
