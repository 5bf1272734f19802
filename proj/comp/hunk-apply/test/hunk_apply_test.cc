// Runs test-data/hunk_apply.json (one case per TEST_P) and a few generated
// inputs through ApplyHunks.
#include "proj/comp/hunk-apply/src/hunk_apply.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/hunk-apply/src/internal/line_index.h"

namespace clada::hunk_apply {
namespace {

using nlohmann::json;

std::vector<json> LoadCases() {
  std::ifstream in("proj/comp/hunk-apply/test-data/hunk_apply.json");
  EXPECT_TRUE(in.good()) << "cannot open test-data/hunk_apply.json";
  if (!in.good()) return {};
  return json::parse(in).at("cases").get<std::vector<json>>();
}

// " x" context, "-x" deleted, "+x" added, "" an empty context line.
Hunk HunkFromJson(const json& j) {
  Hunk h;
  if (j.contains("anchors")) h.anchors = j["anchors"].get<std::vector<std::string>>();
  h.is_end_of_file = j.value("eof", false);
  h.source_line = j.value("source_line", 0);
  for (const std::string& line : j.at("lines").get<std::vector<std::string>>()) {
    PatchLine l;
    if (line.empty()) {
      h.lines.push_back(l);
      continue;
    }
    l.kind = line[0] == '-' ? PatchLine::kDelete : line[0] == '+' ? PatchLine::kAdd : PatchLine::kContext;
    l.text = line.substr(1);
    h.lines.push_back(l);
  }
  return h;
}

class HunkApplyCases : public ::testing::TestWithParam<json> {};

TEST_P(HunkApplyCases, Applies) {
  const json& c = GetParam();
  std::vector<Hunk> hunks;
  for (const json& j : c.at("hunks")) hunks.push_back(HunkFromJson(j));
  ApplyError why;
  absl::StatusOr<Applied> r = ApplyHunks(c.at("content").get<std::string>(), hunks, &why);
  if (c.contains("expect_content")) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->content, c["expect_content"].get<std::string>());
    EXPECT_EQ(r->placements.size(), hunks.size());
    const bool already = c.value("expect_already_applied", false);
    EXPECT_EQ(r->already_applied, already);
    for (const Placement& p : r->placements) EXPECT_EQ(p.already_applied, already) << "hunk " << p.hunk;
    std::string warnings;
    for (const std::string& w : r->warnings) absl::StrAppend(&warnings, w, "\n");
    for (const json& part : c.value("expect_warnings_contain", json::array())) {
      EXPECT_NE(warnings.find(part.get<std::string>()), std::string::npos)
          << "warnings lack '" << part.get<std::string>() << "':\n"
          << warnings;
    }
    if (c.contains("expect_tiers")) {
      std::vector<std::string> tiers;
      for (const Placement& p : r->placements) tiers.push_back(std::string(TierName(p.tier)));
      EXPECT_EQ(tiers, c["expect_tiers"].get<std::vector<std::string>>());
    }
    if (!c.contains("expect_warnings_contain") && !c.contains("expect_tiers")) {
      EXPECT_TRUE(r->warnings.empty()) << warnings;
    }
    return;
  }
  const json& e = c.at("expect_error");
  ASSERT_FALSE(r.ok()) << "applied:\n" << r->content;
  EXPECT_EQ(std::string(r.status().message()), why.message);
  EXPECT_EQ(ErrorCodeName(why.code), e.at("code").get<std::string>());
  if (why.code == ApplyError::Code::kAmbiguous || why.code == ApplyError::Code::kPartlyApplied) {
    EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  } else {
    EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  }
  EXPECT_EQ(why.hunk, e.value("hunk", 1));
  if (e.contains("candidates")) {
    EXPECT_EQ(why.candidates, e["candidates"].get<std::vector<int>>());
  }
  if (e.contains("nearest_line")) {
    EXPECT_EQ(why.nearest_line, e["nearest_line"].get<int>());
  }
  if (e.contains("mismatch_index")) {
    EXPECT_EQ(why.mismatch_index, e["mismatch_index"].get<int>());
  }
  if (e.contains("applied_hunks")) {
    EXPECT_EQ(why.applied_hunks, e["applied_hunks"].get<std::vector<int>>());
  }
  if (e.contains("already_applied_line")) {
    EXPECT_EQ(why.already_applied_line, e["already_applied_line"].get<int>());
  }
  for (const json& part : e.value("message_contains", json::array())) {
    EXPECT_NE(why.message.find(part.get<std::string>()), std::string::npos)
        << "message lacks '" << part.get<std::string>() << "':\n"
        << why.message;
  }
}

INSTANTIATE_TEST_SUITE_P(TestData, HunkApplyCases, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

TEST(HunkApply, SplitLinesKeepsEveryEnding) {
  internal::SplitText s = internal::SplitLines(
      "\xEF\xBB\xBF"
      "a\r\nb\rc\nd");
  EXPECT_TRUE(s.bom);
  ASSERT_EQ(s.lines.size(), 4u);
  EXPECT_EQ(s.lines[0].ending, "\r\n");
  EXPECT_EQ(s.lines[1].ending, "\r");
  EXPECT_EQ(s.lines[2].ending, "\n");
  EXPECT_EQ(s.lines[3].ending, "");
  EXPECT_FALSE(s.final_break);
}

// Many hunks over a long file: every hunk lands where it was made, whatever
// the number of lookalike lines ("}" and "") around it.
TEST(HunkApply, ManyHunksOverLongFile) {
  std::string content, expected;
  std::vector<Hunk> hunks;
  for (int i = 0; i < 5000; ++i) {
    const std::string line = absl::StrCat("value_", i, " = ", i * 7, ";");
    absl::StrAppend(&content, line, "\n}\n\n");
    if (i % 10 == 3) {
      Hunk h;
      h.lines = {{PatchLine::kDelete, line}, {PatchLine::kAdd, line + " // changed"}, {PatchLine::kContext, "}"}};
      hunks.push_back(h);
      absl::StrAppend(&expected, line, " // changed\n}\n\n");
    } else {
      absl::StrAppend(&expected, line, "\n}\n\n");
    }
  }
  absl::StatusOr<Applied> r = ApplyHunks(content, hunks);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->content, expected);
  EXPECT_EQ(r->placements.size(), hunks.size());
}

// The candidates list stops at kMaxCandidates and says there are more.
TEST(HunkApply, AmbiguousListIsCapped) {
  std::string content;
  for (int i = 0; i < 100; ++i) content += "same\n";
  Hunk h;
  h.lines = {{PatchLine::kDelete, "same"}};
  ApplyError why;
  ASSERT_FALSE(ApplyHunks(content, {h}, &why).ok());
  EXPECT_EQ(why.candidates.size(), kMaxCandidates);
  EXPECT_NE(why.message.find("and more"), std::string::npos) << why.message;
}

}  // namespace
}  // namespace clada::hunk_apply

namespace clada::hunk_apply::internal {
namespace {

// Declared lines only narrow what the index tables: every search finds what
// it finds without them, a line not declared included (the index is then
// built whole), and so does one declared after the index was built.
TEST(Matcher, ExpectedLinesNeverChangeWhatIsFound) {
  const SplitText split = SplitLines("a\nb\n  a\nc\na\nb\n");
  Matcher plain(split.lines);
  Matcher narrowed(split.lines);
  narrowed.Expect({"a", "b"});
  const std::vector<std::vector<std::string>> patterns = {{"a", "b"}, {"a"}, {"c"}, {"a", "c"}, {"zzz"}};
  for (Tier tier : {Tier::kExact, Tier::kSurroundingWhitespace}) {
    for (const auto& p : patterns) {
      EXPECT_EQ(narrowed.FindAll(p, tier, 0, narrowed.size(), 10), plain.FindAll(p, tier, 0, plain.size(), 10))
          << p[0] << " at tier " << static_cast<int>(tier);
    }
  }
  Matcher late(split.lines);
  late.Expect({"b"});
  EXPECT_EQ(late.FindAll({"b"}, Tier::kExact, 0, late.size(), 10), (std::vector<int>{1, 5}));
  late.Expect({"c"});
  EXPECT_EQ(late.FindAll({"c"}, Tier::kExact, 0, late.size(), 10), (std::vector<int>{3}));
  EXPECT_EQ(late.FindAll({"a"}, Tier::kSurroundingWhitespace, 0, late.size(), 10), (std::vector<int>{0, 2, 4}));
}

}  // namespace
}  // namespace clada::hunk_apply::internal
