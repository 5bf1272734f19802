// The block grammar parser: finds SHAM / NESL blocks in an LLM's answer and
// returns their key/value properties, or errors that say exactly where and
// why a block is malformed. It matches the reference parser (nesl-js) on
// every conformance case.
//
// Example:
//   clada::sham_parser::ParseResult r = clada::sham_parser::ParseBlocks(text);
//   for (const auto& b : r.blocks) use(b.id, b.properties);
//   std::cout << clada::sham_parser::ParseResultToJson(r).dump(2);
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_SRC_SHAM_PARSER_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_SRC_SHAM_PARSER_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace clada::sham_parser {

// The input size above which ParseBlocks refuses to parse (input_too_large).
inline constexpr size_t kMaxInputBytes = 50u * 1024 * 1024;

// At most this many syntax errors are reported; the next one becomes a
// single `too_many_errors` error and later ones are dropped (blocks are still
// parsed). Without a cap, 50 MB of one-character bad lines would need
// gigabytes of error records.
inline constexpr size_t kMaxReportedErrors = 10000;

// Where a heredoc value came from. The grammar's value is kept as the
// reference reads it; a layer that reads heredocs as lines (the action
// parser) needs to know how many lines there were and how the closer stood.
struct Heredoc {
  std::string key;
  int open_line = 0;   // 1-based line of `key = <<'EOT_...'`
  int close_line = 0;  // 1-based line holding the closing delimiter
  // Bytes before the delimiter on the closer's line: 0 when it starts the
  // line. When they are all whitespace (`indented`), the value ends with
  // them (and, after any content line, with the "\n" before them); else
  // they are the value's last line, the closer appended to it.
  size_t closer_column = 0;
  bool indented = false;
};

// One parsed block. Properties keep the order of first appearance.
struct Block {
  std::string id;
  std::vector<std::pair<std::string, std::string>> properties;
  int start_line = 0;  // 1-based line of the header
  std::optional<int>
      end_line;  // 1-based line of the end marker; none if unclosed
  // The block's last line: its end marker; for an unclosed block, its end
  // marker with blanks or zero-width characters around it (a line the
  // grammar does not take for one, but a reader does) when it has one, else
  // the line before the header that ended it, or the input's last line. Not
  // part of the reference's JSON.
  int last_line = 0;
  // The heredocs that closed, in order; not part of the reference's JSON.
  std::vector<Heredoc> heredocs;
};

// One syntax error, in the reference's shape. Columns and lengths count
// UTF-16 code units, lines and columns are 1-based. Errors at end of input
// (UNCLOSED_BLOCK, UNCLOSED_HEREDOC) point one line past the last line.
struct ParseError {
  std::string code;  // e.g. "DUPLICATE_KEY", "input_too_large"
  int line = 0;
  int column = 0;
  int length = 0;
  std::string
      block_id;  // "" when not inside a block (JSON null); IDs are never empty
  std::string content;  // the offending line, without its line break
  std::string context;  // the 5-line window around it, split on "\n" only
  std::string message;
};

struct ParseResult {
  std::vector<Block> blocks;
  std::vector<ParseError> errors;
};

// Parses every block in `input`, in one pass (linear time, whatever the
// number of errors). Never fails and never throws: problems are reported as
// errors and the parser goes on with the next line. Bytes that are not valid
// UTF-8 are read as U+FFFD, as Node decodes them; NUL is an ordinary
// character. Input over `max_bytes` (default kMaxInputBytes, the reference
// grammar's limit `clada parse` keeps) yields no blocks and a single
// `input_too_large` error (line 1, column 1, length 0, empty content and
// context) whose message gives both sizes. A run passes its own limit
// (`--max-input`). See kMaxReportedErrors for inputs with more errors than
// anyone can use.
ParseResult ParseBlocks(absl::string_view input, size_t max_bytes = kMaxInputBytes);

// How ParseBlocks reads its input.
struct ParseOptions {
  size_t max_bytes = kMaxInputBytes;
  // The input is a piece of an answer that starts at the start of the
  // answer's line `first_line` (1-based): every line ParseBlocks reports
  // (blocks, heredocs, errors and the `context` windows, whose lines above
  // the piece read as empty) is the answer's, the same result as parsing the
  // piece after first_line - 1 empty lines. An input over max_bytes gives
  // its input_too_large error at line first_line.
  int first_line = 1;
};
ParseResult ParseBlocks(absl::string_view input, const ParseOptions& options);

// The same parse, each block handed to `on_block` as it closes instead of
// kept in the result (whose `blocks` stays empty), for a caller that needs
// only where the blocks are, not all of them at once.
ParseResult ParseBlocks(absl::string_view input, size_t max_bytes, const std::function<void(Block&&)>& on_block);

// The reference's JSON shape:
// {"blocks":[{"id","properties","startLine","endLine"}],
//  "errors":[{"code","line","column","length","blockId","content","context","message"}]}
nlohmann::ordered_json ParseResultToJson(const ParseResult& result);

}  // namespace clada::sham_parser

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_SRC_SHAM_PARSER_H_
