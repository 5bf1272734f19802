// Runs every case of test-data/cases: `<name>.md` is an answer, verbatim, and
// `<name>.expected.json` the blocks, tasks (as actions), errors and warnings
// ParseCml must read from it.
//
// To write the expected file of a new case, run the test with
// CML_WRITE_EXPECTED=<dir of test-data/cases> and review the diff.
#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/cml-parser/src/cml_parser.h"

namespace clada::cml_parser {
namespace {

using Json = nlohmann::ordered_json;

const char kDir[] = "proj/comp/cml-parser/test-data/cases";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  DIR* d = opendir(kDir);
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 3 && n.compare(n.size() - 3, 3, ".md") == 0) names.push_back(n.substr(0, n.size() - 3));
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Json ToJson(const CmlParseResult& r) {
  Json out = Json::object();
  out["total_tasks"] = r.total_tasks;
  Json blocks = Json::array();
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const CmlBlock& b = r.blocks[i];
    Json jb = Json::object();
    jb["index"] = i;
    jb["group"] = b.is_tasks_block() ? "fail_fast" : "independent";
    if (!b.version().empty()) jb["version"] = b.version();
    jb["lines"] = {b.span().first_line, b.span().last_line};
    jb["task_count"] = r.TaskCount(i);
    Json tasks = Json::array();
    for (const Task& t : b.tasks()) {
      Json jt = Json::object();
      jt["label"] = t.action.metadata.block_id;
      jt["line"] = t.line;
      jt["action"] = t.action.name;
      jt["params"] = t.action.params;
      if (!t.action.warnings.empty()) jt["warnings"] = t.action.warnings;
      tasks.push_back(jt);
    }
    jb["tasks"] = tasks;
    if (!b.errors().empty()) {
      Json errors = Json::array();
      for (const CmlError& e : b.errors()) {
        Json je = Json::object();
        je["code"] = e.code;
        je["line"] = e.line;
        je["column"] = e.column;
        if (e.task_number != 0) je["task"] = e.task_number;
        je["message"] = e.message;
        je["fix"] = e.fix;
        errors.push_back(je);
      }
      jb["errors"] = errors;
    }
    if (!b.warnings().empty()) jb["warnings"] = b.warnings();
    blocks.push_back(jb);
  }
  out["blocks"] = blocks;
  return out;
}

// `r` read with ParseOptions::pack_actions, its tasks unpacked into the
// blocks as ParseCml without it would hold them.
CmlParseResult Unpacked(CmlParseResult r) {
  std::vector<size_t> ends;
  for (size_t k = 0; k < r.blocks.size(); ++k) ends.push_back(r.PackedEnd(k));
  for (size_t k = 0; k < r.blocks.size(); ++k) {
    CmlBlock& b = r.blocks[k];
    EXPECT_TRUE(b.tasks().empty());
    for (size_t i = b.packed_begin(); i < ends[k]; ++i) {
      Task t;
      t.number = r.packed[i].number;
      t.line = r.packed[i].line;
      t.action = r.packed_actions.Get(i);
      b.details().tasks.push_back(std::move(t));
    }
  }
  // The tasks are the blocks' now, not packed.
  for (CmlBlock& b : r.blocks) b.set_packed_begin(0);
  r.packed.clear();
  return r;
}

class CmlCases : public ::testing::TestWithParam<std::string> {};

TEST_P(CmlCases, ReadsAsExpected) {
  const std::string base = std::string(kDir) + "/" + GetParam();
  const std::string input = ReadFile(base + ".md");
  const Json got = ToJson(ParseCml(input));
  if (const char* dir = std::getenv("CML_WRITE_EXPECTED")) {
    std::ofstream(std::string(dir) + "/" + GetParam() + ".expected.json") << got.dump(2) << "\n";
    return;
  }
  const std::string expected_text = ReadFile(base + ".expected.json");
  ASSERT_FALSE(expected_text.empty()) << base << ".expected.json is missing";
  const Json expected = Json::parse(expected_text);
  EXPECT_EQ(got.dump(2), expected.dump(2));
  // Packed as read, the tasks are the same.
  ParseOptions pack;
  pack.pack_actions = true;
  EXPECT_EQ(ToJson(Unpacked(ParseCml(input, {}, pack))).dump(2), got.dump(2));
  // FindCml returns the same spans without reading them.
  const std::vector<SourceSpan> spans = FindCml(input);
  ASSERT_EQ(spans.size(), got["blocks"].size());
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(spans[i].first_line, got["blocks"][i]["lines"][0].get<int>());
  }
  // FindCmlSpans: the same spans.
  const std::vector<FoundSpan> found = FindCmlSpans(input);
  ASSERT_EQ(found.size(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(found[i].span.begin, spans[i].begin);
    EXPECT_EQ(found[i].span.end, spans[i].end);
  }
}

// FindCmlSpans says which elements lack their end: an answer still being
// written (a CDATA not yet ended, a <tasks> without </tasks>) is not closed.
TEST(FindCmlSpans, AnElementWithoutItsEndIsNotClosed) {
  const std::vector<FoundSpan> found = FindCmlSpans(
      "<run>ls</run>\n<write path=\"a\"/>\n<tasks>\n<run>x</run>\n</tasks>\n"
      "<write path=\"b\"><![CDATA[one\n</write>\n");
  ASSERT_EQ(found.size(), 4u);
  EXPECT_TRUE(found[0].closed);
  EXPECT_TRUE(found[1].closed);
  EXPECT_TRUE(found[2].closed);
  EXPECT_FALSE(found[3].closed);
  const std::vector<FoundSpan> tasks = FindCmlSpans("<tasks>\n<run>echo 1</run>\n<run>echo 2");
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_FALSE(tasks[0].closed);
}

// ToJson with each block's bytes, less `shift`.
Json WithBytes(const CmlParseResult& r, size_t shift) {
  Json out = ToJson(r);
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    out["blocks"][i]["bytes"] = {r.blocks[i].span().begin - shift, r.blocks[i].span().end - shift};
  }
  return out;
}

// A piece of the answer read with its base (ParseOptions::first_line and
// first_byte) reads as the piece preceded by as many empty lines as the
// answer has before it (how the answer layer read a span before): the same
// tasks, lines, errors and messages, and spans at the answer's bytes. The
// pieces: each block's lines, and from each block's first line to the end.
TEST_P(CmlCases, ReadsAPieceWithItsBaseAsTheAnswerWouldRead) {
  const std::string input = ReadFile(std::string(kDir) + "/" + GetParam() + ".md");
  const std::vector<SourceSpan> spans = FindCml(input);
  for (const SourceSpan& s : spans) {
    const size_t nl = s.begin == 0 ? std::string::npos : input.rfind('\n', s.begin - 1);
    const size_t line_start = nl == std::string::npos ? 0 : nl + 1;
    for (const size_t end : {s.end, input.size()}) {
      const std::string piece = input.substr(line_start, end - line_start);
      const std::string padded = std::string(s.first_line - 1, '\n') + piece;
      ParseOptions based;
      based.first_line = s.first_line;
      based.first_byte = line_start;
      const CmlParseResult got = ParseCml(piece, {}, based);
      SCOPED_TRACE(::testing::Message() << "lines " << s.first_line << "- of bytes [" << line_start << ", " << end << ")");
      EXPECT_EQ(WithBytes(got, line_start).dump(2), WithBytes(ParseCml(padded), s.first_line - 1).dump(2));
      if (end == input.size() && !got.blocks.empty()) {
        EXPECT_EQ(got.blocks.front().span().begin, s.begin);
        EXPECT_EQ(got.blocks.front().span().end, s.end);
      }
      based.pack_actions = true;
      EXPECT_EQ(WithBytes(Unpacked(ParseCml(piece, {}, based)), line_start).dump(2), WithBytes(got, line_start).dump(2));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CmlCases, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(CmlCasesDir, HasCases) { EXPECT_GE(CaseNames().size(), 10u); }

// test-data/error_types.json: executor outcomes (action, error code, data)
// and the seeds' error type each one is reported with.
TEST(ErrorType, MapsExecutorCodes) {
  const Json cases = Json::parse(ReadFile("proj/comp/cml-parser/test-data/error_types.json"))["cases"];
  ASSERT_GE(cases.size(), 10u);
  for (const Json& c : cases) {
    const Json data = c.contains("data") ? c["data"] : Json::object();
    EXPECT_EQ(ErrorType(c["action"].get<std::string>(), c["code"].get<std::string>(), data),
              c["expect"].get<std::string>())
        << c.dump();
  }
}

// <remove> asks, by an edit option and not by its dialect's name, that a
// path which is a directory be deleted whole; no other task asks it.
TEST(ParseCml, RemoveAsksToDeleteDirectories) {
  const CmlParseResult r = ParseCml("<remove path=\"build/\"/>\n<write path=\"a\">x</write>\n");
  ASSERT_EQ(r.blocks.size(), 2u);
  ASSERT_EQ(r.blocks[0].tasks().size(), 1u);
  EXPECT_EQ(r.blocks[0].tasks()[0].action.name, "file_delete");
  EXPECT_TRUE(r.blocks[0].tasks()[0].action.edit_options.delete_directories);
  ASSERT_EQ(r.blocks[1].tasks().size(), 1u);
  EXPECT_FALSE(r.blocks[1].tasks()[0].action.edit_options.delete_directories);
}

// The prompt's own examples are valid CML: read as an answer, it holds
// tasks (each element's example, the worked example) and no error.
TEST(CmlInstructions, ExamplesReadWithoutErrors) {
  const std::string prompt = CmlInstructions();
  const CmlParseResult r = ParseCml(prompt);
  int tasks = 0;
  for (const CmlBlock& b : r.blocks) {
    for (const CmlError& e : b.errors()) ADD_FAILURE() << e.message;
    tasks += static_cast<int>(b.tasks().size());
  }
  EXPECT_GE(tasks, 10);
  // Every element is taught.
  for (const char* element : {"<edit", "<search-start>", "<write", "append=", "<move", "<remove", "<run", "<tasks>",
                              "CDATA", "]]&gt;", "task-N", "malformed_xml"}) {
    EXPECT_NE(prompt.find(element), std::string::npos) << element;
  }
}

TEST(UnescapeCdata, DecodesOnlyTheSeedsEscape) {
  EXPECT_EQ(UnescapeCdata("a]]&gt;b"), "a]]>b");
  EXPECT_EQ(UnescapeCdata("]]&gt;]]&gt;"), "]]>]]>");
  EXPECT_EQ(UnescapeCdata("a &gt; b ]]&lt; &amp;"), "a &gt; b ]]&lt; &amp;");
  EXPECT_EQ(UnescapeCdata(""), "");
}

// Skipped lines (another dialect's block) hide the CML on them, and the task
// numbers count only what is read.
TEST(ParseCml, SkipsLinesOfOtherBlocks) {
  const std::string text =
      "<write path=\"a\">1</write>\n"
      "<write path=\"b\">2</write>\n"
      "<write path=\"c\">3</write>\n";
  const CmlParseResult r = ParseCml(text, {{2, 2}});
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[1].tasks()[0].action.params["path"], "c");
  EXPECT_EQ(r.blocks[1].tasks()[0].action.metadata.block_id, "task-2");
  EXPECT_EQ(r.total_tasks, 2);
}

// With a base, skipped lines are the answer's: a range above the piece
// skips nothing, one that runs into it skips its lines in the piece.
TEST(ParseCml, SkipsTheAnswersLinesInAPiece) {
  const std::string piece =
      "<write path=\"a\">1</write>\n"
      "<write path=\"b\">2</write>\n"
      "<write path=\"c\">3</write>\n";
  ParseOptions based;
  based.first_line = 11;
  based.first_byte = 500;
  const CmlParseResult r = ParseCml(piece, {{1, 9}, {5, 12}}, based);
  ASSERT_EQ(r.blocks.size(), 1u);
  EXPECT_EQ(r.blocks[0].tasks()[0].action.params["path"], "c");
  EXPECT_EQ(r.blocks[0].tasks()[0].line, 13);
  EXPECT_EQ(r.blocks[0].span().first_line, 13);
  EXPECT_EQ(r.blocks[0].span().begin, 500u + 2 * 26);
  EXPECT_EQ(ParseCml(piece, {{1, 10}}, based).blocks.size(), 3u);
}

// A block keeps its rare parts behind a pointer: 64 bytes for the block of
// a packed standalone task (an answer of a million holds a million), and a
// copy of a block with parts copies them.
TEST(CmlBlock, IsSmallAndCopiesItsDetails) {
  EXPECT_LE(sizeof(CmlBlock), 32u);
  ParseOptions packed;
  packed.pack_actions = true;
  const CmlParseResult r = ParseCml("<remove path=\"a\"/>\n<tasks version=\"9\"><remove path=\"b\"/></tasks>\n", {}, packed);
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_TRUE(r.blocks[0].tasks().empty() && r.blocks[0].errors().empty() && r.blocks[0].warnings().empty());
  EXPECT_EQ(r.blocks[0].version(), "");
  CmlBlock copy = r.blocks[1];
  EXPECT_EQ(copy.version(), "9");
  ASSERT_EQ(copy.errors().size(), r.blocks[1].errors().size());
  ASSERT_FALSE(copy.errors().empty());
  copy.details().errors.clear();
  EXPECT_FALSE(r.blocks[1].errors().empty());
  CmlBlock assigned;
  assigned = r.blocks[0];
  EXPECT_EQ(assigned.span().first_line, 1);
  EXPECT_TRUE(assigned.errors().empty());
}

}  // namespace
}  // namespace clada::cml_parser
