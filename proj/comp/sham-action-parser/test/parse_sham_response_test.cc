// ParseShamResponse end to end (block parser included): salvaging valid
// blocks, errors tied to the right block, and bad input, from
// test-data/parseShamResponse.json.
//
// Expectation keys: "actions" (ActionToJson of each, exact), "errors" (only
// the keys given are compared; "blockContentPrefix" and
// "blockContentMaxBytes" check a long block's text), "warnings" (exact),
// "totalBlocks", "actionCount", "errorCount", and "paramBytes"
// ([[action index, parameter, size in bytes]]).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/test/test_cases.h"

namespace clada::sham_action_parser {
namespace {

using testing::CaseJson;

void ExpectErrorMatches(const ActionParseError& error, const CaseJson& want,
                        size_t index) {
  const core::Json got = ActionParseErrorToJson(error);
  for (const auto& [key, value] : want.items()) {
    if (key == "blockContentPrefix") {
      EXPECT_TRUE(
          absl::StartsWith(error.block_content, value.get<std::string>()))
          << "error " << index << " blockContent starts "
          << error.block_content.substr(0, 200);
    } else if (key == "blockContentMaxBytes") {
      EXPECT_LE(error.block_content.size(), value.get<size_t>())
          << "error " << index;
    } else {
      ASSERT_TRUE(got.contains(key))
          << "error " << index << " has no " << key << ": " << got.dump(2);
      EXPECT_EQ(got.at(key), value) << "error " << index << " key " << key;
    }
  }
}

class ParseShamResponseCase : public ::testing::TestWithParam<CaseJson> {};

TEST_P(ParseShamResponseCase, MatchesExpectation) {
  const CaseJson& c = GetParam();
  const ActionParseResult r =
      ParseShamResponse(testing::TextFromSpec(c.at("input")));
  const CaseJson& want = c.at("expected");

  // Whatever the input: every error is complete and dumps as JSON.
  for (const ActionParseError& e : r.errors) {
    EXPECT_TRUE(e.error_type == "syntax" || e.error_type == "validation" ||
                e.error_type == "type")
        << e.error_type;
    EXPECT_FALSE(e.message.empty());
    EXPECT_FALSE(e.fix.empty());
    EXPECT_GE(e.block_start_line, 1);
    EXPECT_NO_THROW(ActionParseErrorToJson(e).dump());
  }
  for (const core::Action& a : r.actions)
    EXPECT_NO_THROW(ActionToJson(a).dump());

  if (want.contains("totalBlocks")) {
    EXPECT_EQ(r.total_blocks, want.at("totalBlocks").get<int>());
  }
  if (want.contains("actionCount")) {
    EXPECT_EQ(r.actions.size(), want.at("actionCount").get<size_t>());
  }
  if (want.contains("errorCount")) {
    EXPECT_EQ(r.errors.size(), want.at("errorCount").get<size_t>());
  }
  if (want.contains("actions")) {
    CaseJson got = CaseJson::array();
    for (const core::Action& a : r.actions) got.push_back(ActionToJson(a));
    EXPECT_EQ(got.dump(2), want.at("actions").dump(2));
  }
  if (want.contains("errors")) {
    const CaseJson& errors = want.at("errors");
    ASSERT_EQ(r.errors.size(), errors.size()) << [&] {
      std::string all;
      for (const ActionParseError& e : r.errors)
        all += ActionParseErrorToJson(e).dump(2) + "\n";
      return all;
    }();
    for (size_t i = 0; i < errors.size(); ++i)
      ExpectErrorMatches(r.errors[i], errors[i], i);
  }
  if (want.contains("warnings")) {
    EXPECT_EQ(r.warnings, want.at("warnings").get<std::vector<std::string>>());
  }
  if (want.contains("paramBytes")) {
    for (const CaseJson& check : want.at("paramBytes")) {
      const size_t index = check.at(0).get<size_t>();
      ASSERT_LT(index, r.actions.size());
      const std::string name = check.at(1).get<std::string>();
      ASSERT_TRUE(r.actions[index].params.contains(name)) << name;
      EXPECT_EQ(r.actions[index].params.at(name).get<std::string>().size(),
                check.at(2).get<size_t>())
          << name;
    }
  }
}

// Issue 17 #9: a million refused blocks held a million errors of about a
// kilobyte each. With ErrorKeeping, the errors of the first and last
// keep_blocks blocks are kept whole and the blocks between are counted,
// measured by the caller, in input order.
TEST(ParseShamResponseKeeping, KeepsTheFirstAndLastBlocksErrorsAndCountsTheRest) {
  std::string text = "prose\n";
  for (int i = 0; i < 10; ++i) {
    const std::string id = "b" + std::to_string(100 + i);
    text += "#!SHAM [@three-char-SHA-256: " + id + "]\n";
    if (i == 4) text += "action = \"file_read\"\npath = \"ok.txt\"\n";  // valid
    if (i == 6) text += "action = \"file_reed\"\n";                         // unknown action
    text += "#!END_SHAM_" + id + "\n";
  }
  ActionParseResult whole = ParseShamResponse(text);
  ASSERT_EQ(whole.actions.size(), 1u);
  ASSERT_EQ(whole.errors.size(), 9u);
  EXPECT_TRUE(whole.left_out.empty());

  int measured = 0;
  ErrorKeeping keeping;
  keeping.keep_blocks = 3;
  keeping.measure = [&measured](const std::vector<ActionParseError>& errors) {
    ++measured;
    return std::pair<int64_t, int64_t>{static_cast<int64_t>(errors.size()), 100};
  };
  ActionParseResult kept = ParseShamResponse(text, sham_parser::kMaxInputBytes, keeping);
  ASSERT_EQ(kept.actions.size(), 1u);
  ASSERT_EQ(kept.errors.size(), 6u);
  ASSERT_EQ(kept.left_out.size(), 3u);
  EXPECT_EQ(measured, 3);
  // Blocks b100-b102 and b107-b109 keep their errors; b103, b105 and b106
  // (lines 8-9, 14-15 and 16-18) are counted.
  EXPECT_EQ(kept.errors[2].block_id, "b102");
  EXPECT_EQ(kept.errors[3].block_id, "b107");
  EXPECT_EQ(kept.left_out[0].start_line, 8);
  EXPECT_EQ(kept.left_out[0].last_line, 9);
  EXPECT_EQ(kept.left_out[1].start_line, 14);
  EXPECT_EQ(kept.left_out[2].start_line, 16);
  EXPECT_EQ(kept.left_out[2].last_line, 18);
  EXPECT_EQ(kept.left_out[2].entry_bytes, 100);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(ActionParseErrorToJson(kept.errors[i]), ActionParseErrorToJson(whole.errors[i]));
  for (size_t i = 3; i < 6; ++i) {
    EXPECT_EQ(ActionParseErrorToJson(kept.errors[i]), ActionParseErrorToJson(whole.errors[i + 3]));
  }
}

// Every case's valid blocks, kept as where they are (defer_actions) and
// made again one by one, are the actions the answer gives at once: the same
// name, parameters, warnings, lines and line parameters, and the same
// errors and warnings beside them.
TEST_P(ParseShamResponseCase, DeferredActionsAreTheSameActions) {
  const CaseJson& c = GetParam();
  const std::string input = testing::TextFromSpec(c.at("input"));
  const ActionParseResult eager = ParseShamResponse(input);
  ErrorKeeping keeping;
  keeping.defer_actions = true;
  const ActionParseResult deferred = ParseShamResponse(input, sham_parser::kMaxInputBytes, keeping);
  EXPECT_TRUE(deferred.actions.empty());
  ASSERT_EQ(deferred.deferred.size(), eager.actions.size());
  for (size_t i = 0; i < eager.actions.size(); ++i) {
    absl::StatusOr<core::Action> made = deferred.deferred.Make(i);
    ASSERT_TRUE(made.ok()) << made.status();
    const core::Action& want = eager.actions[i];
    EXPECT_EQ(made->name, want.name) << i;
    EXPECT_EQ(made->params, want.params) << i;
    EXPECT_EQ(made->warnings, want.warnings) << i;
    EXPECT_EQ(made->line_params, want.line_params) << i;
    EXPECT_EQ(made->metadata.block_id, want.metadata.block_id) << i;
    EXPECT_EQ(made->metadata.start_line, want.metadata.start_line) << i;
    EXPECT_EQ(made->metadata.end_line, want.metadata.end_line) << i;
    EXPECT_EQ(deferred.deferred.entries[i].start_line, want.metadata.start_line) << i;
    EXPECT_EQ(deferred.deferred.entries[i].definition->name, want.name) << i;
  }
  ASSERT_EQ(deferred.errors.size(), eager.errors.size());
  for (size_t i = 0; i < eager.errors.size(); ++i) {
    EXPECT_EQ(ActionParseErrorToJson(deferred.errors[i]), ActionParseErrorToJson(eager.errors[i])) << i;
  }
  EXPECT_EQ(deferred.warnings, eager.warnings);
  EXPECT_EQ(deferred.total_blocks, eager.total_blocks);
}

// Everything a read gives, as JSON.
CaseJson ResultJson(const ActionParseResult& r) {
  CaseJson out = {{"actions", CaseJson::array()}, {"errors", CaseJson::array()}};
  for (const core::Action& a : r.actions) out["actions"].push_back(ActionToJson(a));
  for (const ActionParseError& e : r.errors) out["errors"].push_back(ActionParseErrorToJson(e));
  out["warnings"] = r.warnings;
  out["totalBlocks"] = r.total_blocks;
  out["leftOut"] = r.left_out.size();
  return out;
}

// A piece of an answer read with its base (AnswerPiece: its first line, and
// whether the answer is quoted as a whole) reads as the piece after as many
// empty lines as the answer has before it: the same actions, lines, errors,
// messages and warnings. The pieces: from each line that starts with "#!"
// (after blanks and quote marks) to the second such line after it, and to
// the end.
TEST_P(ParseShamResponseCase, ReadsAPieceWithItsBaseAsPadded) {
  const std::string input = testing::TextFromSpec(GetParam().at("input"));
  if (input.size() > 200000) GTEST_SKIP() << "a long input: its pieces would take long to pad";
  std::vector<size_t> starts;  // of the "#!" lines
  std::vector<int> numbers;    // their lines
  int line = 1;
  for (size_t pos = 0; pos < input.size(); ++line) {
    const size_t nl = input.find('\n', pos);
    const size_t mark = input.find_first_not_of(" \t>", pos);
    if (mark != std::string::npos && input.compare(mark, 2, "#!") == 0 && (nl == std::string::npos || mark < nl)) {
      starts.push_back(pos);
      numbers.push_back(line);
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  AnswerPiece piece;
  piece.quoted_as_a_whole = QuotedAsAWhole(input);
  const size_t step = std::max<size_t>(1, starts.size() / 40);
  for (size_t k = 0; k < starts.size(); k += step) {
    piece.first_line = numbers[k];
    for (const size_t end : {k + 2 < starts.size() ? starts[k + 2] : input.size(), input.size()}) {
      const std::string text = input.substr(starts[k], end - starts[k]);
      const std::string padded = std::string(numbers[k] - 1, '\n') + text;
      AnswerPiece unbased;
      unbased.quoted_as_a_whole = piece.quoted_as_a_whole;
      EXPECT_EQ(ResultJson(ParseShamResponse(text, sham_parser::kMaxInputBytes, {}, piece)).dump(2),
                ResultJson(ParseShamResponse(padded, sham_parser::kMaxInputBytes, {}, unbased)).dump(2))
          << "the piece from line " << numbers[k] << " to byte " << end;
    }
  }
}

// A piece knows whether the answer it comes from is quoted as a whole: a
// quoted block runs in a quoted answer, and is reported, not run, in an
// answer that is not (whatever the piece itself holds), at the answer's
// lines.
TEST(ParseShamResponsePiece, RunsAQuotedBlockOnlyInAnAnswerQuotedAsAWhole) {
  const std::string block =
      "> #!SHAM [@three-char-SHA-256: q01]\n> action = \"file_read\"\n> path = \"a.txt\"\n> #!END_SHAM_q01\n";
  AnswerPiece piece;
  piece.first_line = 12;
  piece.quoted_as_a_whole = true;
  ActionParseResult r = ParseShamResponse(block, sham_parser::kMaxInputBytes, {}, piece);
  ASSERT_EQ(r.actions.size(), 1u);
  EXPECT_EQ(r.actions[0].metadata.start_line, 12);
  EXPECT_EQ(r.actions[0].metadata.end_line, 15);
  piece.quoted_as_a_whole = false;
  r = ParseShamResponse(block, sham_parser::kMaxInputBytes, {}, piece);
  EXPECT_TRUE(r.actions.empty());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.warnings[0], "(lines 12-15) is quoted")) << r.warnings[0];
}

// An unclosed block at the end of a piece ends at the piece's end: the
// error names the line past the piece's end, in the answer's numbers.
TEST(ParseShamResponsePiece, AnUnclosedBlockEndsWithThePiece) {
  AnswerPiece piece;
  piece.first_line = 40;
  piece.quoted_as_a_whole = false;
  const ActionParseResult r = ParseShamResponse(
      "#!SHAM [@three-char-SHA-256: u01]\naction = \"file_read\"\npath = \"a.txt\"\n", sham_parser::kMaxInputBytes,
      {}, piece);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].block_start_line, 40);
  EXPECT_EQ(r.errors[0].message, "Block 'u01' not closed before EOF (line 44, column 1)");
}

INSTANTIATE_TEST_SUITE_P(
    TestData, ParseShamResponseCase,
    ::testing::ValuesIn(testing::LoadCases("parseShamResponse.json")),
    testing::CaseName);

}  // namespace
}  // namespace clada::sham_action_parser
