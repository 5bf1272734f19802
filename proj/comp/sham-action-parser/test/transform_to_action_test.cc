// TransformToAction for one action of the built-in schema per case:
// typed values, defaults, ignored keys, and every type and format error in
// test-data/transformToAction.json.
#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/test/test_cases.h"

namespace clada::sham_action_parser {
namespace {

using testing::CaseJson;

class TransformToActionCase : public ::testing::TestWithParam<CaseJson> {};

TEST_P(TransformToActionCase, MatchesExpectation) {
  const CaseJson& c = GetParam();
  const ActionDefinition* definition =
      FindAction(c.at("action").get<std::string>());
  ASSERT_NE(definition, nullptr) << "no action " << c.at("action");
  absl::StatusOr<core::Action> got =
      TransformToAction(testing::BlockFromJson(c.at("block")), *definition);
  if (c.contains("expected")) {
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(ActionToJson(*got).dump(2), c.at("expected").dump(2));
  } else {
    ASSERT_FALSE(got.ok()) << ActionToJson(*got).dump(2);
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(got.status().message()),
              c.at("error").get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(
    TestData, TransformToActionCase,
    ::testing::ValuesIn(testing::LoadCases("transformToAction.json")),
    testing::CaseName);

}  // namespace
}  // namespace clada::sham_action_parser
