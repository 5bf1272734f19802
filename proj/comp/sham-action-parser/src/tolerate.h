// Chat-paste tolerance: the noise chat interfaces and models add around
// blocks, read before the grammar parser sees the answer. Where what was
// meant is plain (trailing spaces after a marker, curly quotes around a whole
// value, a block indented or quoted as a whole, invisible characters around
// markers and keys) the line is rewritten to the grammar's form and the
// block's action gets a warning naming what was dropped; where a block is
// wrong in a way that would make the grammar report its consequences
// (an unquoted heredoc opener, a missing or misspelt end marker, a heredoc
// never closed) the root cause is recorded as one refusal and the text is
// rewritten so that the grammar reads the next block on its own.
//
// `clada parse` is not affected: the grammar stays the strict reference, and
// this pass belongs to the action layer.
//
// Example:
//   ToleratedText t = TolerateChatNoise(answer);
//   sham_parser::ParseResult r = sham_parser::ParseBlocks(
//       t.changed ? absl::string_view(t.text) : answer);
//   // t.blocks[i].header_line ties notes to r.blocks[j].start_line.
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_TOLERATE_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_TOLERATE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace clada::sham_action_parser::internal {

// A root cause found before the grammar reads a block: reported first, and
// the block is not run.
struct Refusal {
  std::string message;
  std::string fix;
};

// What the pass did to one block, tied to it by its header's line.
struct BlockNotes {
  int header_line = 0;  // 1-based, the same in the rewritten text
  std::string id;
  std::vector<std::string> warnings;  // what was tolerated, one per line
  std::vector<Refusal> refusals;
  // Grammar errors of this block on this line or later are consequences of
  // a refusal and are not reported; 0 when none are.
  int suppress_from = 0;
};

struct ToleratedText {
  // The answer with the noise removed, line for line (line numbers and line
  // terminators kept); empty when `changed` is false.
  std::string text;
  bool changed = false;
  std::vector<BlockNotes> blocks;     // blocks with notes, by header line
  std::vector<std::string> warnings;  // answer-wide: quoted blocks not run
};

// Reads `answer` as described above. Linear in its size; never fails.
// With `read_quoted_blocks`, a block quoted with '>' is read like one in an
// answer quoted as a whole (TolerantReading).
// `first_line`: the text is a piece of an answer that starts at the start of
// the answer's line `first_line`; the lines in notes and messages are the
// answer's. `quoted_as_a_whole`: whether that answer is (QuotedAsAWhole of
// the whole answer); unset, the text's own.
ToleratedText TolerateChatNoise(absl::string_view answer,
                                bool read_quoted_blocks = false,
                                int first_line = 1,
                                std::optional<bool> quoted_as_a_whole = std::nullopt);

// "U+201C (left double quotation mark)" for the characters this pass and
// its error fixes name; "U+XXXX" for others.
std::string DescribeCodePoint(char32_t cp);

// The first character of `line` at or after byte `from` that is a curly
// quote, a no-break or zero-width space or a byte order mark, as
// "U+201C (...) at column C" (columns count characters from the line's
// start, 1-based); "" when there is none.
std::string FirstLookalike(absl::string_view line, size_t from = 0);

}  // namespace clada::sham_action_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_TOLERATE_H_
