#include "proj/comp/sham-parser/src/sham_parser.h"

#include <cstdint>
#include <fstream>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/test/pieces.h"

namespace clada::sham_parser {
namespace {

using Json = nlohmann::ordered_json;

// --- test-data/parse_blocks.json ------------------------------------------
// Each case: {"name", "note", "input", "expected": {"blocks", "errors"}}.
// "input" is a string, or a list of strings and {"hex": "..."} parts for
// bytes that are not valid UTF-8. An optional "heredocs" lists, per block,
// its Block::heredocs as {"key", "openLine", "closeLine", "closerColumn",
// "indented"} (not part of the JSON form), and an optional "lastLines" each
// block's Block::last_line (not part of it either).

struct Case {
  std::string name;
  std::string input;
  Json expected;
  Json heredocs;    // null when the case does not check them
  Json last_lines;  // null when the case does not check them
};

std::string InputBytes(const Json& input) {
  if (input.is_string()) return input.get<std::string>();
  std::string bytes;
  for (const Json& part : input) {
    bytes += part.is_string()
                 ? part.get<std::string>()
                 : absl::HexStringToBytes(part["hex"].get<std::string>());
  }
  return bytes;
}

std::vector<Case> LoadCases() {
  std::ifstream in("proj/comp/sham-parser/test-data/parse_blocks.json");
  const Json doc = Json::parse(in);
  std::vector<Case> cases;
  for (const Json& c : doc["cases"]) {
    cases.push_back({c["name"].get<std::string>(), InputBytes(c["input"]),
                     c["expected"], c.value("heredocs", Json()),
                     c.value("lastLines", Json())});
  }
  return cases;
}

// Failure messages name the case instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ParseBlocksCase : public ::testing::TestWithParam<Case> {};

TEST_P(ParseBlocksCase, ProducesExpectedResult) {
  const Case& c = GetParam();
  const ParseResult r = ParseBlocks(c.input);
  EXPECT_EQ(ParseResultToJson(r).dump(2), c.expected.dump(2));
  if (!c.last_lines.is_null()) {
    Json got = Json::array();
    for (const Block& b : r.blocks) got.push_back(b.last_line);
    EXPECT_EQ(got.dump(), c.last_lines.dump());
  }
  if (c.heredocs.is_null()) return;
  Json got = Json::array();
  for (const Block& b : r.blocks) {
    Json list = Json::array();
    for (const Heredoc& h : b.heredocs) {
      list.push_back({{"key", h.key},
                      {"openLine", h.open_line},
                      {"closeLine", h.close_line},
                      {"closerColumn", h.closer_column},
                      {"indented", h.indented}});
    }
    got.push_back(std::move(list));
  }
  EXPECT_EQ(got.dump(2), c.heredocs.dump(2));
}

// A piece of the case's input read with its line base reads as the piece
// after as many empty lines as come before it (test/pieces.h).
TEST_P(ParseBlocksCase, ReadsAPieceWithItsBaseAsPadded) { ExpectPiecesReadAsPadded(GetParam().input); }

INSTANTIATE_TEST_SUITE_P(Cases, ParseBlocksCase,
                         ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// --- generated inputs -------------------------------------------------------

constexpr absl::string_view kHeader = "#!nesl [@three-char-SHA-256: big]\n";
constexpr absl::string_view kEnd = "#!end_big";

// Checks what every result must satisfy and that it serialises (dump()
// throws on invalid UTF-8).
void ExpectWellFormed(const ParseResult& r) {
  for (const Block& b : r.blocks) {
    EXPECT_GE(b.start_line, 1);
    if (b.end_line) {
      EXPECT_GT(*b.end_line, b.start_line);
    }
  }
  for (const ParseError& e : r.errors) {
    EXPECT_GE(e.line, 1);
    EXPECT_GE(e.column, 1);
    EXPECT_GE(e.length, 0);
  }
  EXPECT_NO_THROW(ParseResultToJson(r).dump());
}

TEST(ParseBlocks, RejectsInputOverTheLimit) {
  const ParseResult r = ParseBlocks(std::string(kMaxInputBytes + 1, 'x'));
  EXPECT_TRUE(r.blocks.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].code, "input_too_large");
  EXPECT_NE(r.errors[0].message.find(absl::StrCat(kMaxInputBytes + 1)),
            std::string::npos)
      << r.errors[0].message;
  EXPECT_NE(r.errors[0].message.find(absl::StrCat(kMaxInputBytes)),
            std::string::npos)
      << r.errors[0].message;
  ExpectWellFormed(r);
}

TEST(ParseBlocks, RejectsAPieceOverTheLimitAtItsFirstLine) {
  ParseOptions based;
  based.max_bytes = 4;
  based.first_line = 7;
  const ParseResult r = ParseBlocks("12345", based);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].code, "input_too_large");
  EXPECT_EQ(r.errors[0].line, 7);
}

TEST(ParseBlocks, ParsesInputExactlyAtTheLimit) {
  std::string input = absl::StrCat(kHeader, "content = <<'EOT_big'\n");
  const std::string tail = absl::StrCat("\nEOT_big\n", kEnd);
  const size_t filler = kMaxInputBytes - input.size() - tail.size();
  input.append(filler, 'y');
  input += tail;
  ASSERT_EQ(input.size(), kMaxInputBytes);
  const ParseResult r = ParseBlocks(input);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.blocks.size(), 1u);
  ASSERT_EQ(r.blocks[0].properties.size(), 1u);
  EXPECT_EQ(r.blocks[0].properties[0].second, std::string(filler, 'y'));
}

TEST(ParseBlocks, HandlesTenMegabyteLines) {
  const std::string big(10 * 1024 * 1024, 'v');
  // As a quoted value.
  ParseResult r =
      ParseBlocks(absl::StrCat(kHeader, "key = \"", big, "\"\n", kEnd));
  ASSERT_EQ(r.blocks.size(), 1u);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.blocks[0].properties.at(0).second, big);
  // As an unquoted value: one error whose length covers the value.
  r = ParseBlocks(absl::StrCat(kHeader, "key = ", big, "\n", kEnd));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].code, "INVALID_VALUE");
  EXPECT_EQ(r.errors[0].length, static_cast<int>(big.size()));
  // As prose outside any block, with no line break at all.
  r = ParseBlocks(big);
  EXPECT_TRUE(r.blocks.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(ParseBlocks, HandlesAMillionTinyBlocks) {
  constexpr int kBlocks = 1000000;
  std::string input;
  input.reserve(kBlocks * 34);
  for (int i = 0; i < kBlocks; ++i)
    input += "#!nesl [@x: ab]\nk = \"v\"\n#!end_ab\n";
  ASSERT_LE(input.size(), kMaxInputBytes);
  const ParseResult r = ParseBlocks(input);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.blocks.size(), static_cast<size_t>(kBlocks));
  EXPECT_EQ(r.blocks.back().start_line, 3 * (kBlocks - 1) + 1);
  EXPECT_EQ(r.blocks.back().end_line, 3 * kBlocks);
}

TEST(ParseBlocks, ReportsAnErrorInEveryBlockWithItsOwnContext) {
  constexpr int kBlocks = static_cast<int>(kMaxReportedErrors);
  std::string input;
  for (int i = 0; i < kBlocks; ++i)
    input += "#!nesl [@x: ab]\nnot an assignment\n#!end_ab\n";
  const ParseResult r = ParseBlocks(input);
  ASSERT_EQ(r.blocks.size(), static_cast<size_t>(kBlocks));
  ASSERT_EQ(r.errors.size(), static_cast<size_t>(kBlocks));
  const ParseError& e = r.errors[kBlocks / 2];
  EXPECT_EQ(e.line, 3 * (kBlocks / 2) + 2);
  EXPECT_EQ(e.content, "not an assignment");
  EXPECT_EQ(e.context,
            "#!end_ab\n#!nesl [@x: ab]\nnot an assignment\n#!end_ab\n#!nesl "
            "[@x: ab]");
}

TEST(ParseBlocks, StopsReportingErrorsAfterTheCap) {
  // Two bytes of input per error: uncapped, 50 MB of this would need
  // gigabytes of error records.
  constexpr int kBadLines = 2 * static_cast<int>(kMaxReportedErrors);
  std::string input(kHeader);
  for (int i = 0; i < kBadLines; ++i) input += "x\n";
  input += absl::StrCat("key = \"still parsed\"\n", kEnd);
  const ParseResult r = ParseBlocks(input);
  ASSERT_EQ(r.errors.size(), kMaxReportedErrors + 1);
  EXPECT_EQ(r.errors[kMaxReportedErrors - 1].code, "MALFORMED_ASSIGNMENT");
  const ParseError& last = r.errors.back();
  EXPECT_EQ(last.code, "too_many_errors");
  EXPECT_EQ(last.line, static_cast<int>(kMaxReportedErrors) +
                           2);  // the first unreported line
  EXPECT_EQ(last.block_id, "big");
  EXPECT_NE(last.message.find(absl::StrCat(kMaxReportedErrors)),
            std::string::npos)
      << last.message;
  ASSERT_EQ(r.blocks.size(), 1u);
  ASSERT_EQ(r.blocks[0].properties.size(), 1u);
  EXPECT_EQ(r.blocks[0].properties[0].second, "still parsed");
  EXPECT_EQ(r.blocks[0].end_line, kBadLines + 3);
}

TEST(ParseBlocks, SurvivesArbitraryBytes) {
  // Syntax-heavy alphabet plus bytes that are never valid UTF-8.
  const std::string alphabet =
      "#!neslNESLSHAM_end[@]: =\"\\<'EOTabc\n\r\t "
      "\x00\x80\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\xff";
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    std::string input;
    const int n = static_cast<int>(rng() % 4000);
    for (int i = 0; i < n; ++i) {
      if (rng() % 8 == 0) {
        input += rng() % 2 ? "\n#!nesl [@three-char-SHA-256: abc]\n"
                           : "\nk = <<'EOT_abc'\n";
      } else {
        input.push_back(alphabet[rng() % alphabet.size()]);
      }
    }
    SCOPED_TRACE(absl::StrCat("round ", round));
    ExpectWellFormed(ParseBlocks(input));
  }
}

}  // namespace
}  // namespace clada::sham_parser
