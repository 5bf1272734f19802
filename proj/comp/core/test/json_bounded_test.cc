#include "proj/comp/core/src/json_bounded.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace clada::core {
namespace {

std::string Nested(int depth, char open, char close) {
  return std::string(depth, open) + std::string(depth, close);
}

// Issue 17 #10: nlohmann's parser crashed (SIGSEGV) on 100,000 levels.
TEST(ParseJsonBounded, RefusesDeepNestingWithoutCrashing) {
  for (const std::string& text : {Nested(100000, '[', ']'), std::string(100000, '[')}) {
    absl::StatusOr<nlohmann::json> got = ParseJsonBounded(text);
    ASSERT_FALSE(got.ok());
    EXPECT_TRUE(absl::StrContains(got.status().message(), "more than 64 levels deep")) << got.status();
  }
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  EXPECT_FALSE(ParseJsonBounded(objects).ok());
}

TEST(ParseJsonBounded, AcceptsUpToTheLimit) {
  absl::StatusOr<nlohmann::json> got = ParseJsonBounded(Nested(64, '[', ']'));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_FALSE(ParseJsonBounded(Nested(65, '[', ']')).ok());
}

TEST(ParseJsonBounded, BracketsInStringsDoNotCount) {
  std::string text = "{\"a\": \"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  absl::StatusOr<nlohmann::json> got = ParseJsonBounded(text);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)["a"].get<std::string>().size(), 2001u);
}

TEST(ParseJsonBounded, RefusesTooLargeAndInvalid) {
  absl::StatusOr<nlohmann::json> big = ParseJsonBounded("[1, 2, 3]", 64, 4);
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(absl::StrContains(big.status().message(), "9 bytes, over the limit of 4 bytes")) << big.status();
  absl::StatusOr<nlohmann::json> bad = ParseJsonBounded("{\"a\": ");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StartsWith(bad.status().message(), "invalid JSON: parse error")) << bad.status();
}

}  // namespace
}  // namespace clada::core
