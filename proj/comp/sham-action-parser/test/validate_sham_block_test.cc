// ValidateShamBlock against the built-in schema: one case per rule and
// message in test-data/validateShamBlock.json.
#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/test/test_cases.h"

namespace clada::sham_action_parser {
namespace {

using testing::CaseJson;

class ValidateShamBlockCase : public ::testing::TestWithParam<CaseJson> {};

TEST_P(ValidateShamBlockCase, MatchesExpectation) {
  const CaseJson& c = GetParam();
  absl::StatusOr<const ActionDefinition*> got =
      ValidateShamBlock(testing::BlockFromJson(c.at("block")), LoadedSchema());
  if (c.contains("expected")) {
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*got)->name, c.at("expected").at("action").get<std::string>());
  } else {
    ASSERT_FALSE(got.ok()) << "validated as " << (*got)->name;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(got.status().message()),
              c.at("error").get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(
    TestData, ValidateShamBlockCase,
    ::testing::ValuesIn(testing::LoadCases("validateShamBlock.json")),
    testing::CaseName);

}  // namespace
}  // namespace clada::sham_action_parser
