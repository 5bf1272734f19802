#include "proj/comp/fs-ops/src/miss_diagnosis.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;

std::string KindName(MissKind k) {
  switch (k) {
    case MissKind::kNormalized:
      return "normalized";
    case MissKind::kClose:
      return "close";
    case MissKind::kNothingClose:
      return "nothing";
  }
  return "?";
}

class DiagnoseMissCase : public ::testing::TestWithParam<json> {};

TEST_P(DiagnoseMissCase, MatchesExpectation) {
  const json& c = GetParam();
  MissDiagnosis d = DiagnoseMiss(c.at("text").get<std::string>(), c.at("needle").get<std::string>(), "old_text");
  EXPECT_EQ(KindName(d.kind), c.at("kind").get<std::string>()) << d.message;
  if (c.contains("first_line")) {
    EXPECT_EQ(d.first_line, c["first_line"].get<int64_t>()) << d.message;
  }
  if (c.contains("last_line")) {
    EXPECT_EQ(d.last_line, c["last_line"].get<int64_t>()) << d.message;
  }
  if (c.contains("differences")) {
    EXPECT_EQ(json(d.differences), c["differences"]) << d.message;
  }
  if (c.contains("matches")) {
    EXPECT_EQ(d.normalized_matches, c["matches"].get<int64_t>());
  }
  for (const json& s : c.value("message_contains", json::array())) {
    EXPECT_NE(d.message.find(s.get<std::string>()), std::string::npos) << "message lacks " << s << ":\n" << d.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, DiagnoseMissCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("miss_diagnosis.json", "diagnose")),
                         testing::CaseName);

class VisibleLineCase : public ::testing::TestWithParam<json> {};

TEST_P(VisibleLineCase, Escapes) {
  const json& c = GetParam();
  EXPECT_EQ(VisibleLine(testing::Bytes(c, "line")), c.at("visible").get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(Cases, VisibleLineCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("miss_diagnosis.json", "visible_line")),
                         testing::CaseName);

// A long region is shown elided; long lines are cut.
TEST(DiagnoseMiss, ElidesLongRegions) {
  std::string text, needle;
  for (int i = 0; i < 40; ++i) {
    text += "\tline " + std::to_string(i) + "\n";
    needle += "    line " + std::to_string(i) + "\n";
  }
  MissDiagnosis d = DiagnoseMiss(text, needle, "old_text");
  EXPECT_EQ(d.kind, MissKind::kNormalized);
  EXPECT_EQ(d.first_line, 1);
  EXPECT_EQ(d.last_line, 40);
  EXPECT_NE(d.message.find("... (25 more lines)"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("40 | \tline 39"), std::string::npos) << d.message;
}

TEST(DiagnoseMiss, CutsLongLines) {
  std::string text = "x = '" + std::string(1000, 'a') + "'\n";
  MissDiagnosis d = DiagnoseMiss(text, "X = '" + std::string(1000, 'a') + "'", "old_text");
  EXPECT_EQ(d.kind, MissKind::kNormalized);
  EXPECT_NE(d.message.find("a ...\n"), std::string::npos);
  EXPECT_LT(d.message.size(), 3000u);
}

}  // namespace
}  // namespace clada::fs_ops::internal
