// The registry and its adapters on small answers (test-data/answers.json):
// which blocks the one segmenter finds with every reader, and what each
// reads into (labels, actions, groups, refused blocks).
#include "proj/comp/readers/src/all_readers.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/answer/src/segment.h"
#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {
namespace {

using Json = nlohmann::json;

Json Load(const std::string& name) {
  std::ifstream in(absl::StrCat("proj/comp/readers/test-data/", name));
  return Json::parse(in);
}

TEST(Registry, IsTheOneListOfDialects) {
  const Registry registry;
  EXPECT_EQ(registry.Dialects(), Load("dialects.json")["dialects"].get<std::vector<std::string>>());
  for (const std::string& d : registry.Dialects()) {
    ASSERT_NE(registry.Find(d), nullptr) << d;
    EXPECT_EQ(registry.Find(d)->dialect(), d);
    EXPECT_FALSE(registry.Find(d)->Instructions().empty()) << d;
  }
  EXPECT_EQ(registry.Find("nesl"), nullptr);
}

// A dialect added to the registry raises kDialectsVersion, which a
// listener's state records.
TEST(Registry, VersionCountsTheDialects) {
  const Json added = Load("dialects.json")["added_in"];
  int newest = 0;
  for (const std::string& d : Registry().Dialects()) {
    ASSERT_TRUE(added.contains(d)) << d << " has no version in test-data/dialects.json";
    newest = std::max(newest, added[d].get<int>());
  }
  // Raised for a change in what a listener's state records, not a dialect.
  const Json raised = Load("dialects.json")["raised_without_a_dialect"];
  for (const auto& [version, why] : raised.items()) newest = std::max(newest, std::stoi(version));
  EXPECT_EQ(kDialectsVersion, newest);
}

// Each reader's own instructions hold an example that reader finds.
TEST(Registry, EachReaderFindsABlockInItsInstructions) {
  const Registry registry;
  for (const answer::Reader* r : registry.readers()) {
    if (!r->yields_blocks()) continue;
    const std::string text = r->Instructions();
    answer::Span span;
    EXPECT_TRUE(r->Spans(text)->Next(&span)) << r->dialect();
  }
}

std::string GroupText(const answer::Group& g) {
  const char* policy = g.policy == answer::GroupPolicy::kIndependent ? "independent"
                       : g.policy == answer::GroupPolicy::kFailFast  ? "fail_fast"
                                                                     : "atomic";
  return absl::StrCat(policy, " ", g.count);
}

class AnswerCase : public ::testing::TestWithParam<Json> {};

TEST_P(AnswerCase, SegmentsAndReads) {
  const Json& c = GetParam();
  const Registry registry;
  const std::string text = c["answer"];
  std::map<size_t, std::unique_ptr<answer::SpanReader>> reading;
  Json got = {{"blocks", Json::array()}, {"actions", Json::array()}, {"errors", Json::array()},
              {"groups", Json::array()}, {"warnings", Json::array()}};
  // As a run reads it: the layer's checks of quotes, then each block.
  answer::CheckedAnswer checked;
  std::vector<answer::Segment> segments;
  answer::SegmentCheckedAnswer(text, registry.readers(), &checked,
                               [&segments](const answer::Segment& s) { segments.push_back(s); });
  for (const answer::Segment& s : segments) {
    const answer::Reader* r = registry.readers()[s.reader];
    got["blocks"].push_back(absl::StrCat(r->dialect(), " ", s.span.at.first_line, "-", s.span.at.last_line,
                                         s.span.closed ? "" : " unclosed"));
    auto& reader = reading[s.reader];
    if (reader == nullptr) reader = r->Reading(checked.text);
    const answer::ReadResult read = reader->Read(s.span);
    for (const core::Action& a : read.actions) {
      const std::string path = a.params.value("path", a.params.value("old_path", ""));
      got["actions"].push_back(
          absl::StrCat(a.metadata.block_id, " ", a.name, " ", path, " line ", a.metadata.start_line));
    }
    for (const answer::Diagnostic& d : read.diagnostics) {
      got["errors"].push_back(absl::StrCat(d.label, " ", d.code, " line ", d.line));
    }
    for (const std::string& w : read.warnings) got["warnings"].push_back(w);
    size_t covered = 0;
    for (const answer::Group& g : read.groups) {
      EXPECT_EQ(g.first, covered) << "groups cover the actions in order";
      covered += g.count;
      got["groups"].push_back(GroupText(g));
    }
    EXPECT_EQ(covered, read.actions.size());
  }
  for (const std::string& w : checked.warnings) got["warnings"].push_back(w);
  for (const char* key : {"blocks", "actions", "errors", "groups"}) {
    ASSERT_TRUE(c.contains(key)) << key << "\n" << got.dump();
    EXPECT_EQ(got[key], c[key]) << key << "\n" << got.dump(1);
  }
  if (c.contains("warnings")) {
    EXPECT_EQ(got["warnings"], c["warnings"]);
  }
}

std::vector<Json> Cases() { return Load("answers.json")["cases"].get<std::vector<Json>>(); }

INSTANTIATE_TEST_SUITE_P(Data, AnswerCase, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param["name"].template get<std::string>(); });

TEST(ShiftNumbers, RaisesWholeLabelNumbersOnly) {
  std::string s = "task-1 and task-12, task-3.2, subtask-1, task-x";
  ShiftNumbers(s, "task-", 10);
  EXPECT_EQ(s, "task-11 and task-22, task-13.2, subtask-1, task-x");
}

// An unclosed SHAM block at the end of an answer not quoted as a whole is
// read as the whole answer reads it: it ends where the answer ends (the
// adapter once appended a prose line to the span, which the block then
// took for its own: "the text from line 6 ("(the answer is not quoted as a
// whole)") on was read as part of it").
TEST(ShamSpans, AnUnclosedLastBlockEndsWithTheAnswer) {
  const std::string text = "Prose.\n\n#!SHAM [@three-char-SHA-256: u01]\naction = \"file_read\"\npath = \"a.txt\"\n";
  const Registry registry;
  const answer::Reader* sham = registry.Find("sham");
  ASSERT_NE(sham, nullptr);
  answer::Span span;
  ASSERT_TRUE(sham->Spans(text)->Next(&span));
  const answer::ReadResult read = sham->Reading(text)->Read(span);
  ASSERT_EQ(read.diagnostics.size(), 1u);
  EXPECT_EQ(read.diagnostics[0].label, "u01");
  EXPECT_EQ(read.diagnostics[0].line, 3);
  EXPECT_EQ(read.diagnostics[0].message, "Block 'u01' not closed before EOF (line 7, column 1)");
}

}  // namespace
}  // namespace clada::readers
