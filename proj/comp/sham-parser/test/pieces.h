// A test's check that ParseBlocks reads a piece of an input with its base
// (ParseOptions::first_line) as it reads the piece after as many empty
// lines as the input has before it.
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_TEST_PIECES_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_TEST_PIECES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_parser {

// ParseResultToJson with what it leaves out: each block's last line and
// heredocs.
inline nlohmann::ordered_json WholeJson(const ParseResult& r) {
  nlohmann::ordered_json out = ParseResultToJson(r);
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    nlohmann::ordered_json& b = out["blocks"][i];
    b["lastLine"] = r.blocks[i].last_line;
    b["heredocs"] = nlohmann::ordered_json::array();
    for (const Heredoc& h : r.blocks[i].heredocs) {
      b["heredocs"].push_back({h.key, h.open_line, h.close_line, h.closer_column, h.indented});
    }
  }
  return out;
}

// Every piece of `input` from a line's start to its end (from every line of
// a short input, from each line that starts with "#!" of a long one), read
// with its base, reads as the padded piece: the same blocks, heredocs,
// lines, errors, messages and contexts.
inline void ExpectPiecesReadAsPadded(absl::string_view input) {
  size_t lines = 0;
  for (char c : input) lines += c == '\n';
  int line = 1;
  for (size_t start = 0; start < input.size(); ++line) {
    const size_t nl = input.find('\n', start);
    if (line > 1 && (lines <= 200 || input.substr(start, 2) == "#!")) {
      const absl::string_view piece = input.substr(start);
      ParseOptions based;
      based.first_line = line;
      const std::string padded = std::string(line - 1, '\n') + std::string(piece);
      EXPECT_EQ(WholeJson(ParseBlocks(piece, based)).dump(2), WholeJson(ParseBlocks(padded)).dump(2))
          << "the piece from line " << line;
    }
    if (nl == absl::string_view::npos) break;
    start = nl + 1;
  }
}

}  // namespace clada::sham_parser

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_TEST_PIECES_H_
