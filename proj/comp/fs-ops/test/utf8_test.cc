#include "proj/comp/fs-ops/src/utf8.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;

class Utf8Case : public ::testing::TestWithParam<json> {};

TEST_P(Utf8Case, MatchesExpectation) {
  const json& c = GetParam();
  std::string text = testing::Bytes(c, "text");
  size_t bad = 12345;
  bool valid = IsValidUtf8(text, &bad);
  EXPECT_EQ(valid, c.at("valid").get<bool>());
  if (!valid) {
    EXPECT_EQ(bad, c.at("bad_offset").get<size_t>());
  }
  std::string fixed = ToValidUtf8(text);
  EXPECT_TRUE(IsValidUtf8(fixed));
  if (c.contains("fixed")) {
    EXPECT_EQ(fixed, c["fixed"].get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Utf8Case, ::testing::ValuesIn(testing::LoadUnitCases("utf8.json", "texts")),
                         testing::CaseName);

TEST(Utf8Prefix, NeverSplitsACharacter) {
  std::string s = "a\xC3\xBC\xE4\xB8\x96";  // a, ü, 世
  EXPECT_EQ(std::string(Utf8Prefix(s, 10)), s);
  EXPECT_EQ(std::string(Utf8Prefix(s, 1)), "a");
  EXPECT_EQ(std::string(Utf8Prefix(s, 2)), "a");
  EXPECT_EQ(std::string(Utf8Prefix(s, 3)), "a\xC3\xBC");
  EXPECT_EQ(std::string(Utf8Prefix(s, 5)), "a\xC3\xBC");
}

}  // namespace
}  // namespace clada::fs_ops::internal
