#include "proj/comp/fs-ops/src/placeholder.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;

class PlaceholderCase : public ::testing::TestWithParam<json> {};

TEST_P(PlaceholderCase, MatchesExpectation) {
  const json& c = GetParam();
  std::string line = c.at("line").get<std::string>();
  EXPECT_EQ(IsPlaceholderLine(line), c.at("placeholder").get<bool>()) << line;
}

INSTANTIATE_TEST_SUITE_P(Cases, PlaceholderCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("placeholder.json", "lines")),
                         testing::CaseName);

TEST(FindPlaceholder, NamesTheFirstPlaceholderLine) {
  std::optional<PlaceholderLine> p =
      FindPlaceholder("import os\r\n\r\ndef f():\n    # ... rest unchanged ...\n// ...\n", "old\n");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->line_number, 4);
  EXPECT_EQ(p->text, "    # ... rest unchanged ...");
}

TEST(FindPlaceholder, CrlfLineHasNoCarriageReturn) {
  std::optional<PlaceholderLine> p = FindPlaceholder("a\r\n// ... existing code ...\r\nb\r\n", "");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->line_number, 2);
  EXPECT_EQ(p->text, "// ... existing code ...");
}

TEST(FindPlaceholder, LineTheFileAlreadyHoldsIsItsOwnText) {
  std::string existing = "Write:\n\n    // ... existing code ...\n\nand so on.\n";
  EXPECT_FALSE(FindPlaceholder("Write:\n\n    // ... existing code ...\n\nand more.\n", existing).has_value());
  EXPECT_TRUE(FindPlaceholder("x\n# ... rest unchanged ...\n", existing).has_value());
}

TEST(FindPlaceholder, CodeWithEllipsisIsNotAPlaceholder) {
  EXPECT_FALSE(FindPlaceholder("def f(): ...\nclass A:\n    ...\nx = {...a}\n", "").has_value());
  EXPECT_FALSE(FindPlaceholder("", "").has_value());
}

}  // namespace
}  // namespace clada::fs_ops::internal
