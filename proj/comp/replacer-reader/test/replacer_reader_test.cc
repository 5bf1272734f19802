// Runs test-data/replacer_reader.json: each case's text (inline, or a file
// of test-data/ such as the seeds' examples, verbatim) is read and the
// edits, errors and actions compared.
#include "proj/comp/replacer-reader/src/replacer_reader.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/test/span_testing.h"

namespace clada::replacer_reader {
namespace {

using nlohmann::json;

constexpr char kDir[] = "proj/comp/replacer-reader/test-data/";

std::string ReadTestFile(const std::string& name) {
  std::ifstream in(kDir + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open test-data/" << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<json> LoadCases() {
  std::ifstream in(std::string(kDir) + "replacer_reader.json");
  EXPECT_TRUE(in.good()) << "cannot open test-data/replacer_reader.json";
  if (!in.good()) return {};
  return json::parse(in).at("cases").get<std::vector<json>>();
}

void ExpectContains(const std::string& haystack, const json& parts, const std::string& what) {
  for (const json& p : parts) {
    EXPECT_TRUE(absl::StrContains(haystack, p.get<std::string>()))
        << what << " lacks '" << p.get<std::string>() << "':\n" << haystack;
  }
}

// A case's answer: its `text`, or the test-data file `text_file` names.
std::string CaseText(const json& c) {
  return c.contains("text_file") ? ReadTestFile(c["text_file"].get<std::string>()) : c.at("text").get<std::string>();
}

class ReaderCases : public ::testing::TestWithParam<json> {};

TEST_P(ReaderCases, Reads) {
  const json& c = GetParam();
  const std::string text = CaseText(c);
  const Blocks b = ReadBlocks(text);

  const json edits = c.value("edits", json::array());
  ASSERT_EQ(b.edits.size(), edits.size()) << (b.errors.empty() ? "" : b.errors[0].message);
  for (size_t k = 0; k < edits.size(); ++k) {
    const Edit& got = b.edits[k];
    const json& e = edits[k];
    EXPECT_EQ(got.kind == EditKind::kOverwrite ? "overwrite" : "search_replace", e.value("kind", "search_replace"));
    EXPECT_EQ(got.path, e.at("path").get<std::string>());
    EXPECT_EQ(got.explanation(), e.value("explanation", ""));
    if (e.contains("search")) {
      EXPECT_EQ(got.search, e["search"].get<std::string>());
    }
    EXPECT_EQ(got.replace, e.at(got.kind == EditKind::kOverwrite ? "content" : "replace").get<std::string>());
    EXPECT_EQ(got.removes, e.value("removes", false));
    if (e.contains("lines")) {
      EXPECT_EQ(got.span.first_line, e["lines"][0].get<int>());
      EXPECT_EQ(got.span.last_line, e["lines"][1].get<int>());
    }
    if (e.contains("file_line")) {
      EXPECT_EQ(got.file_line, e["file_line"].get<int>());
    }
    if (e.contains("number")) {
      EXPECT_EQ(got.number, e["number"].get<int>());
    }
  }

  const json errors = c.value("errors", json::array());
  ASSERT_EQ(b.errors.size(), errors.size()) << (b.errors.empty() ? "" : b.errors[0].message);
  for (size_t k = 0; k < errors.size(); ++k) {
    const ParseError& got = b.errors[k];
    EXPECT_EQ(got.code, errors[k].at("code").get<std::string>()) << got.message;
    EXPECT_EQ(got.line, errors[k].at("line").get<int>());
    EXPECT_EQ(got.span.first_line, got.line);
    if (errors[k].contains("lines")) {
      EXPECT_EQ(got.span.first_line, errors[k]["lines"][0].get<int>());
      EXPECT_EQ(got.span.last_line, errors[k]["lines"][1].get<int>());
    }
    if (errors[k].contains("number")) {
      EXPECT_EQ(got.number, errors[k]["number"].get<int>());
    }
    EXPECT_FALSE(got.message.empty());
    EXPECT_FALSE(got.fix.empty());
    ExpectContains(got.message, errors[k].value("message_contains", json::array()), "message");
    ExpectContains(got.fix, errors[k].value("fix_contains", json::array()), "fix");
  }

  // Spans: line boundaries, in order, not overlapping, their lines counted.
  const std::vector<SourceSpan> spans = FindBlocks(text);
  ASSERT_EQ(spans.size(), b.edits.size() + b.errors.size());
  size_t previous_end = 0;
  for (const SourceSpan& s : spans) {
    EXPECT_LE(previous_end, s.begin);
    EXPECT_LT(s.begin, s.end);
    EXPECT_TRUE(s.begin == 0 || text[s.begin - 1] == '\n');
    EXPECT_TRUE(s.end == text.size() || text[s.end - 1] == '\n');
    EXPECT_EQ(std::count(text.begin(), text.begin() + s.begin, '\n') + 1, s.first_line);
    EXPECT_EQ(std::count(text.begin(), text.begin() + s.end - 1, '\n') + 1, s.last_line);
    previous_end = s.end;
  }

  if (!c.contains("actions")) return;
  const std::vector<core::Action> actions = ToActions(b);
  ASSERT_EQ(actions.size(), c["actions"].size());
  for (size_t k = 0; k < actions.size(); ++k) {
    const json& e = c["actions"][k];
    EXPECT_EQ(actions[k].name, e.at("name").get<std::string>());
    if (e.contains("block_id")) {
      EXPECT_EQ(actions[k].metadata.block_id, e["block_id"].get<std::string>());
    }
    EXPECT_EQ(actions[k].metadata.start_line, b.edits[k].span.first_line);
    EXPECT_EQ(actions[k].metadata.end_line, b.edits[k].span.last_line);
    EXPECT_EQ(actions[k].metadata.explanation, b.edits[k].explanation());
    if (e.contains("params")) {
      EXPECT_EQ(json::parse(actions[k].params.dump()), e["params"]);
    }
    EXPECT_EQ(actions[k].line_params, e.value("line_params", std::vector<std::string>{}));
    const std::string warnings = absl::StrJoin(actions[k].warnings, "\n");
    if (e.contains("warnings_contain")) {
      ExpectContains(warnings, e["warnings_contain"], "warnings");
    } else {
      EXPECT_TRUE(warnings.empty()) << warnings;
    }
  }
}

// The streaming overload hands over the edits ReadBlocks keeps, in order,
// and returns the same errors.
TEST_P(ReaderCases, StreamedEditsAreTheEditsRead) {
  const json& c = GetParam();
  const std::string text = CaseText(c);
  const Blocks kept = ReadBlocks(text);
  std::vector<Edit> streamed;
  const Blocks rest = ReadBlocks(text, [&streamed](Edit&& e) { streamed.push_back(std::move(e)); });
  EXPECT_TRUE(rest.edits.empty());
  ASSERT_EQ(streamed.size(), kept.edits.size());
  for (size_t k = 0; k < streamed.size(); ++k) {
    EXPECT_EQ(streamed[k].path, kept.edits[k].path);
    EXPECT_EQ(streamed[k].search, kept.edits[k].search);
    EXPECT_EQ(streamed[k].replace, kept.edits[k].replace);
    EXPECT_EQ(streamed[k].span.first_line, kept.edits[k].span.first_line);
    EXPECT_EQ(streamed[k].span.last_line, kept.edits[k].span.last_line);
  }
  ASSERT_EQ(rest.errors.size(), kept.errors.size());
  for (size_t k = 0; k < rest.errors.size(); ++k) EXPECT_EQ(rest.errors[k].code, kept.errors[k].code);
}

// Edits and errors streamed together come in the answer's order, numbered
// one up from the last, and are the blocks ReadBlocks keeps.
TEST_P(ReaderCases, StreamedBlocksComeInOrderAndAreTheBlocksRead) {
  const json& c = GetParam();
  const std::string text = CaseText(c);
  const Blocks kept = ReadBlocks(text);
  std::vector<Edit> edits;
  std::vector<ParseError> errors;
  int number = 0;
  size_t last_begin = 0;
  ReadBlocks(
      text,
      [&](Edit&& e) {
        EXPECT_EQ(e.number, ++number);
        EXPECT_GE(e.span.begin, last_begin);
        last_begin = e.span.begin;
        edits.push_back(std::move(e));
      },
      [&](ParseError&& e) {
        EXPECT_EQ(e.number, ++number);
        EXPECT_GE(e.span.begin, last_begin);
        last_begin = e.span.begin;
        errors.push_back(std::move(e));
      });
  ASSERT_EQ(edits.size(), kept.edits.size());
  for (size_t k = 0; k < edits.size(); ++k) {
    EXPECT_EQ(edits[k].number, kept.edits[k].number);
    EXPECT_EQ(edits[k].path, kept.edits[k].path);
    EXPECT_EQ(edits[k].search, kept.edits[k].search);
    EXPECT_EQ(edits[k].replace, kept.edits[k].replace);
    EXPECT_EQ(edits[k].span.begin, kept.edits[k].span.begin);
    EXPECT_EQ(edits[k].span.end, kept.edits[k].span.end);
  }
  ASSERT_EQ(errors.size(), kept.errors.size());
  for (size_t k = 0; k < errors.size(); ++k) {
    EXPECT_EQ(errors[k].number, kept.errors[k].number);
    EXPECT_EQ(errors[k].code, kept.errors[k].code);
    EXPECT_EQ(errors[k].span.begin, kept.errors[k].span.begin);
  }
}

// A piece of an answer read with its origin (ReadOptions) gives what the
// same piece gives after as many empty lines as stand before it: the same
// edits, errors, lines and messages, and its bytes the answer's (the
// readers' adapters read each block span so, without padding).
TEST_P(ReaderCases, BasedReadEqualsPaddedRead) {
  const std::string text = CaseText(GetParam());
  constexpr int kLine = 41;           // the piece's first line in its answer
  constexpr size_t kByte = 5000;      // and its first byte
  const std::string padded = std::string(kLine - 1, '\n') + text;
  std::vector<Edit> padded_edits, based_edits;
  std::vector<ParseError> padded_errors, based_errors;
  std::vector<int> padded_order, based_order;  // 0 an edit, 1 an error
  ReadBlocks(
      padded, [&](Edit&& e) { padded_edits.push_back(std::move(e)), padded_order.push_back(0); },
      [&](ParseError&& e) { padded_errors.push_back(std::move(e)), padded_order.push_back(1); });
  ReadBlocks(
      text, ReadOptions{kLine, kByte}, [&](Edit&& e) { based_edits.push_back(std::move(e)), based_order.push_back(0); },
      [&](ParseError&& e) { based_errors.push_back(std::move(e)), based_order.push_back(1); });
  EXPECT_EQ(based_order, padded_order);
  auto same_span = [&](const SourceSpan& based, const SourceSpan& padded) {
    core::testing::ExpectSameSpanWithBase(based, padded, kByte, kLine - 1);
  };
  ASSERT_EQ(based_edits.size(), padded_edits.size());
  for (size_t k = 0; k < based_edits.size(); ++k) {
    const Edit& b = based_edits[k];
    const Edit& p = padded_edits[k];
    EXPECT_EQ(b.number, p.number);
    EXPECT_EQ(b.kind, p.kind);
    EXPECT_EQ(b.removes, p.removes);
    EXPECT_EQ(b.file_line, p.file_line);
    EXPECT_EQ(b.edit_line, p.edit_line);
    EXPECT_EQ(b.path, p.path);
    EXPECT_EQ(b.search, p.search);
    EXPECT_EQ(b.replace, p.replace);
    EXPECT_EQ(b.explanation(), p.explanation());
    same_span(b.span, p.span);
    const core::Action ba = ToAction(b), pa = ToAction(p);
    EXPECT_EQ(ba.metadata.start_line, pa.metadata.start_line);
    EXPECT_EQ(ba.metadata.end_line, pa.metadata.end_line);
    EXPECT_EQ(ba.params.dump(), pa.params.dump());
    EXPECT_EQ(ba.warnings, pa.warnings);
  }
  ASSERT_EQ(based_errors.size(), padded_errors.size());
  for (size_t k = 0; k < based_errors.size(); ++k) {
    const ParseError& b = based_errors[k];
    const ParseError& p = padded_errors[k];
    EXPECT_EQ(b.number, p.number);
    EXPECT_EQ(b.code, p.code);
    EXPECT_EQ(b.line, p.line);
    EXPECT_EQ(b.message, p.message);
    EXPECT_EQ(b.fix, p.fix);
    same_span(b.span, p.span);
  }
}

INSTANTIATE_TEST_SUITE_P(TestData, ReaderCases, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

// Odd inputs: no crash, spans inside the text.
TEST(ReplacerReader, OddInputs) {
  const std::string texts[] = {"",
                               "\n",
                               "<<<END>>>",
                               "<<<FILE>>>",
                               "<<<FILE>>>\na\n<<<SEARCH>>>",
                               "<<<SEARCH>>>\n<<<REPLACE>>>\n<<<END>>>",
                               "<<<<<<<<<<<<<<<<",
                               "<<<EXPLANATION>>>\r\n\r\n<<<FILE>>>\r\nb\r\n<<<OVERWRITE>>>\r\n<<<END>>>\r\n",
                               "x\n<<<",
                               "<<<FILE>>> \n<<<"};
  for (const std::string& t : texts) {
    for (const SourceSpan& s : FindBlocks(t)) {
      EXPECT_LE(s.begin, s.end) << t;
      EXPECT_LE(s.end, t.size()) << t;
    }
  }
}

// The prompt's own examples are valid blocks: read as an answer, it holds
// the seeds' three examples and no error, and it teaches every marker.
TEST(ReplacerInstructions, ExamplesReadWithoutErrors) {
  const std::string prompt = ReplacerInstructions();
  const Blocks b = ReadBlocks(prompt);
  for (const ParseError& e : b.errors) ADD_FAILURE() << e.message;
  ASSERT_EQ(b.edits.size(), 3u);
  EXPECT_EQ(b.edits[0].path, "package/replacer_demo_src/main.py");
  EXPECT_EQ(b.edits[1].kind, EditKind::kOverwrite);
  EXPECT_TRUE(b.edits[2].removes);
  // The seeds' examples, verbatim.
  for (const char* name : {"seed/01_search_replace.txt", "seed/02_overwrite.txt", "seed/03_remove.txt"}) {
    EXPECT_TRUE(absl::StrContains(prompt, ReadTestFile(name))) << name;
  }
  for (const char* word : {"<<<EXPLANATION>>>", "<<<FILE>>>", "<<<SEARCH>>>", "<<<REPLACE>>>", "<<<OVERWRITE>>>",
                           "<<<END>>>", "exactly once", "rep-1", "absolute", "parent directories"}) {
    EXPECT_NE(prompt.find(word), std::string::npos) << word;
  }
}

// issue 17 #9: every edit carried an explanation and a list of warnings
// (always empty), 56 bytes an edit.
TEST(Edit, IsSmallAndKeepsItsExplanation) {
  EXPECT_LE(sizeof(Edit), 152u);
  const Blocks b = ReadBlocks("<<<FILE>>>\na\n<<<OVERWRITE>>>\nx\n<<<END>>>\n"
                              "<<<EXPLANATION>>>\nwhy\n<<<FILE>>>\nb\n<<<OVERWRITE>>>\ny\n<<<END>>>\n");
  ASSERT_EQ(b.edits.size(), 2u);
  EXPECT_EQ(b.edits[0].explanation(), "");
  EXPECT_EQ(b.edits[1].explanation(), "why");
  const Edit copy = b.edits[1];
  EXPECT_EQ(copy.explanation(), b.edits[1].explanation());
}

}  // namespace
}  // namespace clada::replacer_reader
