// Runs every case of test-data/cases: `<name>.md` is an answer, verbatim, and
// `<name>.expected.json` the blocks, operations (as actions), errors and
// warnings ParseCsl must read from it. A case named `delimiters_*` is read
// with the delimiters `[[` and `]]`.
//
// To write the expected file of a new case, run the test with
// CSL_WRITE_EXPECTED=<dir of test-data/cases> and review the diff.
#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/csl-parser/src/csl_parser.h"

namespace clada::csl_parser {
namespace {

using Json = nlohmann::ordered_json;

const char kDir[] = "proj/comp/csl-parser/test-data/cases";

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

Delimiters DelimitersFor(const std::string& name) {
  Delimiters d;
  if (name.rfind("delimiters_", 0) == 0) d = {"[[", "]]"};
  return d;
}

Json ToJson(const CslParseResult& r) {
  Json blocks = Json::array();
  for (const CslBlock& b : r.blocks) {
    Json jb = Json::object();
    jb["number"] = b.number;
    jb["group"] = b.is_tasks ? "atomic_validation" : "independent";
    if (!b.version().empty()) jb["version"] = b.version();
    jb["lines"] = {b.span.first_line, b.span.last_line};
    jb["operation_count"] = b.operation_count;
    Json ops = Json::array();
    for (const Operation& op : b.operations()) {
      Json jo = Json::object();
      jo["label"] = op.label;
      jo["operation"] = op.operation;
      jo["lines"] = {op.span.first_line, op.span.last_line};
      jo["action"] = op.action.name;
      jo["params"] = op.action.params;
      if (!op.action.warnings.empty()) jo["warnings"] = op.action.warnings;
      ops.push_back(jo);
    }
    jb["operations"] = ops;
    if (!b.errors().empty()) {
      Json errors = Json::array();
      for (const CslError& e : b.errors()) {
        Json je = Json::object();
        je["code"] = e.code;
        je["operation"] = e.operation;
        je["label"] = e.label;
        je["line"] = e.line;
        je["lines"] = {e.span.first_line, e.span.last_line};
        je["message"] = e.message;
        je["fix"] = e.fix;
        errors.push_back(je);
      }
      jb["errors"] = errors;
    }
    if (!b.warnings().empty()) jb["warnings"] = b.warnings();
    blocks.push_back(jb);
  }
  Json out = Json::object();
  out["blocks"] = blocks;
  return out;
}

// `r` read with ParseOptions::pack_actions, its operations unpacked into
// the blocks as ParseCsl without it would hold them (their last lines are
// not kept: set to the first).
CslParseResult Unpacked(CslParseResult r) {
  for (CslBlock& b : r.blocks) {
    EXPECT_TRUE(b.operations().empty());
    for (size_t i = b.packed_begin; i < b.packed_end; ++i) {
      Operation op;
      op.action = r.packed_actions.Get(i);
      op.label = op.action.metadata.block_id;
      op.operation = OperationOf(op.action.name);
      op.span.first_line = op.span.last_line = r.packed[i].line;
      b.details().operations.push_back(std::move(op));
    }
  }
  return r;
}

// The operations' last lines dropped (packed operations do not keep them).
Json WithoutLastLines(Json j) {
  for (Json& b : j["blocks"]) {
    for (Json& op : b["operations"]) op["lines"] = {op["lines"][0]};
  }
  return j;
}

class CslCases : public ::testing::TestWithParam<std::string> {};

TEST_P(CslCases, ReadsAsExpected) {
  const std::string base = std::string(kDir) + "/" + GetParam();
  const std::string input = ReadFile(base + ".md");
  const Delimiters delimiters = DelimitersFor(GetParam());
  const Json got = ToJson(ParseCsl(input, delimiters));
  if (const char* dir = std::getenv("CSL_WRITE_EXPECTED")) {
    std::ofstream(std::string(dir) + "/" + GetParam() + ".expected.json") << got.dump(2) << "\n";
    return;
  }
  const std::string expected_text = ReadFile(base + ".expected.json");
  ASSERT_FALSE(expected_text.empty()) << base << ".expected.json is missing";
  EXPECT_EQ(got.dump(2), Json::parse(expected_text).dump(2));
  // Packed as read, the operations are the same.
  ParseOptions pack;
  pack.pack_actions = true;
  EXPECT_EQ(WithoutLastLines(ToJson(Unpacked(ParseCsl(input, delimiters, {}, pack)))).dump(2),
            WithoutLastLines(got).dump(2));
  // FindCsl returns the same spans without building actions.
  const std::vector<SourceSpan> spans = FindCsl(input, delimiters);
  ASSERT_EQ(spans.size(), got["blocks"].size());
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(spans[i].first_line, got["blocks"][i]["lines"][0].get<int>());
    EXPECT_EQ(spans[i].last_line, got["blocks"][i]["lines"][1].get<int>());
  }
}

// ToJson with the bytes of each block, operation and error, less `shift`.
Json WithBytes(const CslParseResult& r, size_t shift) {
  Json out = ToJson(r);
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const CslBlock& b = r.blocks[i];
    Json& jb = out["blocks"][i];
    jb["bytes"] = {b.span.begin - shift, b.span.end - shift};
    for (size_t k = 0; k < b.operations().size(); ++k) {
      jb["operations"][k]["bytes"] = {b.operations()[k].span.begin - shift, b.operations()[k].span.end - shift};
    }
    for (size_t k = 0; k < b.errors().size(); ++k) {
      jb["errors"][k]["bytes"] = {b.errors()[k].span.begin - shift, b.errors()[k].span.end - shift};
    }
  }
  return out;
}

// A piece of the answer read with its base (ParseOptions::first_line and
// first_byte) reads as the piece preceded by as many empty lines as the
// answer has before it (how the answer layer read a span before): the same
// blocks, operations, lines, errors, messages and warnings, with spans at
// the answer's bytes. The pieces: each block's lines, and from each
// block's first line to the end.
TEST_P(CslCases, ReadsAPieceWithItsBaseAsPadded) {
  const std::string input = ReadFile(std::string(kDir) + "/" + GetParam() + ".md");
  const Delimiters delimiters = DelimitersFor(GetParam());
  for (const SourceSpan& s : FindCsl(input, delimiters)) {
    const size_t nl = s.begin == 0 ? std::string::npos : input.rfind('\n', s.begin - 1);
    const size_t line_start = nl == std::string::npos ? 0 : nl + 1;
    for (const size_t end : {s.end, input.size()}) {
      const std::string piece = input.substr(line_start, end - line_start);
      const std::string padded = std::string(s.first_line - 1, '\n') + piece;
      ParseOptions based;
      based.first_line = s.first_line;
      based.first_byte = line_start;
      const CslParseResult got = ParseCsl(piece, delimiters, {}, based);
      SCOPED_TRACE(::testing::Message() << "lines " << s.first_line << "- of bytes [" << line_start << ", " << end << ")");
      EXPECT_EQ(WithBytes(got, line_start).dump(2), WithBytes(ParseCsl(padded, delimiters), s.first_line - 1).dump(2));
      ASSERT_FALSE(got.blocks.empty());
      EXPECT_EQ(got.blocks.front().span.begin, s.begin);
      if (end == s.end) {
        EXPECT_EQ(got.blocks.front().span.end, s.end);
      }
      based.pack_actions = true;
      EXPECT_EQ(WithoutLastLines(ToJson(Unpacked(ParseCsl(piece, delimiters, {}, based)))).dump(2),
                WithoutLastLines(ToJson(got)).dump(2));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CslCases, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(CslCasesDir, HasCases) { EXPECT_GE(CaseNames().size(), 15u); }

// The prompt's own examples are valid CSL: read as an answer, it holds
// operations (each one's example, the worked example) and no error.
TEST(CslInstructions, ExamplesReadWithoutErrors) {
  const std::string prompt = CslInstructions();
  const CslParseResult r = ParseCsl(prompt);
  int operations = 0;
  for (const CslBlock& b : r.blocks) {
    for (const CslError& e : b.errors()) ADD_FAILURE() << e.message;
    for (const std::string& w : b.warnings()) ADD_FAILURE() << w;
    operations += static_cast<int>(b.operations().size());
  }
  EXPECT_GE(operations, 10);
  for (const char* taught : {"<---WRITE file=", "append=\"true\"", "<---RUN--->", "<---RUN dir=", "<---SEARCH file=",
                             "count=\"all\"", "<---TO--->", "<---REPLACE--->", "<---TASKS--->", "<---END--->",
                             "[task-3.2] SKIP", "SUCCESS", "ERROR", "FATAL", "## Example"}) {
    EXPECT_NE(prompt.find(taught), std::string::npos) << taught;
  }
}

// With other delimiters the prompt teaches those, and still reads cleanly.
TEST(CslInstructions, UseTheConfiguredDelimiters) {
  const Delimiters d{"@@", "@@"};
  const std::string prompt = CslInstructions(d);
  EXPECT_EQ(prompt.find("<---"), std::string::npos);
  EXPECT_NE(prompt.find("@@WRITE file=\"src/hello.py\"@@"), std::string::npos);
  const CslParseResult r = ParseCsl(prompt, d);
  int operations = 0;
  for (const CslBlock& b : r.blocks) {
    for (const CslError& e : b.errors()) ADD_FAILURE() << e.message;
    operations += static_cast<int>(b.operations().size());
  }
  EXPECT_GE(operations, 10);
  EXPECT_TRUE(ParseCsl(prompt).blocks.empty());  // the default markers are not in it
}

// Skipped lines (another dialect's block) hide the markers on them, and the
// numbers count only what is read.
TEST(ParseCsl, SkipsLinesOfOtherBlocks) {
  const std::string text =
      "<---RUN--->\necho 1\n<---END--->\n"
      "<---RUN--->\necho 2\n<---END--->\n"
      "<---RUN--->\necho 3\n<---END--->\n";
  const CslParseResult r = ParseCsl(text, {}, {{4, 6}});
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[1].operations()[0].action.params["code"], "echo 3");
  EXPECT_EQ(r.blocks[1].operations()[0].label, "csl-2");
}

// Empty delimiters would make every line a marker: nothing is read.
// With a base, skipped lines are the answer's.
TEST(ParseCsl, SkipsTheAnswersLinesInAPiece) {
  const std::string piece = "<---RUN--->\nls\n<---END--->\n<---RUN--->\npwd\n<---END--->\n";
  ParseOptions based;
  based.first_line = 21;
  based.first_byte = 300;
  const CslParseResult r = ParseCsl(piece, {}, {{1, 20}, {21, 23}}, based);
  ASSERT_EQ(r.blocks.size(), 1u);
  EXPECT_EQ(r.blocks[0].operations()[0].action.params["code"], "pwd");
  EXPECT_EQ(r.blocks[0].span.first_line, 24);
  EXPECT_EQ(r.blocks[0].span.last_line, 26);
  EXPECT_EQ(r.blocks[0].span.begin, 300u + 27);
  EXPECT_EQ(r.blocks[0].operations()[0].action.metadata.start_line, 24);
}

TEST(ParseCsl, EmptyDelimitersReadNothing) {
  EXPECT_TRUE(ParseCsl("<---RUN--->\nls\n<---END--->\n", {"", "--->"}).blocks.empty());
  EXPECT_TRUE(ParseCsl("<---RUN--->\nls\n<---END--->\n", {"<---", ""}).blocks.empty());
}

TEST(OperationOf, NamesTheCslOperationOfEachAction) {
  EXPECT_EQ(OperationOf("file_write"), "WRITE");
  EXPECT_EQ(OperationOf("file_append"), "WRITE");
  EXPECT_EQ(OperationOf("exec"), "RUN");
  EXPECT_EQ(OperationOf("file_replace_all_text"), "SEARCH");
  EXPECT_EQ(OperationOf("file_replace_text_range"), "SEARCH");
  EXPECT_EQ(OperationOf("file_read"), "file_read");
}

// issue 17 #9: the block of every standalone operation carried a version,
// its operations, errors and warnings, empty (160 bytes); they are behind a
// pointer now, made only when one is written.
TEST(CslBlock, IsSmallAndCopiesItsDetails) {
  EXPECT_LE(sizeof(CslBlock), 48u);
  ParseOptions packed;
  packed.pack_actions = true;
  const CslParseResult r = ParseCsl(
      "<---RUN--->\necho 1\n<---END--->\n<---TASKS version=\"9\"--->\n<---NOPE--->\n<---END--->\n<---END--->\n",
      {}, {}, packed);
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_TRUE(r.blocks[0].operations().empty() && r.blocks[0].errors().empty() && r.blocks[0].warnings().empty());
  EXPECT_EQ(r.blocks[0].version(), "");
  EXPECT_EQ(r.blocks[0].packed_end - r.blocks[0].packed_begin, 1u);
  EXPECT_TRUE(r.blocks[1].is_tasks);
  CslBlock copy = r.blocks[1];
  EXPECT_EQ(copy.version(), "9");
  ASSERT_FALSE(copy.errors().empty());
  copy.details().errors.clear();
  EXPECT_FALSE(r.blocks[1].errors().empty());
}

}  // namespace
}  // namespace clada::csl_parser
