// Line-level syntax of the block grammar: the three marker families
// (dialects), line classification, header and end-marker recognition.
//
// A dialect is chosen per block by its header; inside a block only that
// dialect's end marker and heredoc delimiter count, while a header of any
// dialect starts a new block.
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_LINE_SYNTAX_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_LINE_SYNTAX_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace clada::sham_parser::internal {

struct Dialect {
  absl::string_view header_prefix;   // "#!SHAM ", "#!NESL ", "#!nesl "
  absl::string_view end_prefix;      // "#!END_SHAM_", "#!END_NESL_", "#!end_"
  absl::string_view heredoc_prefix;  // "EOT_SHAM_", "EOT_NESL_", "EOT_"
  // The canonical header up to the block ID, used to place INVALID_BLOCK_ID.
  absl::string_view canonical_id_prefix;  // "#!SHAM [@three-char-SHA-256: "
  absl::string_view malformed_header_message;
};

extern const Dialect kShamDialect;
extern const Dialect kNeslUpperDialect;
extern const Dialect kNeslDialect;

enum class LineType { kEmpty, kEndMarker, kHeader, kAssignment, kUnknown };

struct Classification {
  LineType type = LineType::kUnknown;
  const Dialect* header_dialect = nullptr;  // set for kHeader
};

// Classifies `line` (without its line terminator) the way the reference's
// classifyLine does on the trimmed line: end marker of `block_dialect` (none
// outside a block), then a header of any dialect, then any line holding '=',
// then unknown. Blank (whitespace-only) lines are kEmpty.
Classification ClassifyLine(absl::string_view line,
                            const Dialect* block_dialect);

// Outside a block only headers matter: returns the dialect whose header
// prefix starts the trimmed line, or nullptr.
const Dialect* FindHeaderDialect(absl::string_view line);

// Matches `line` against `#!<dialect> [@<label>: <id>]` (label: ASCII
// alphanumerics and '-'; id: anything without ']'). Returns the raw id, or
// nullopt when the header is malformed.
std::optional<absl::string_view> ParseHeaderId(absl::string_view line,
                                               const Dialect& dialect);

// Matches `<end_prefix><2-8 ASCII alphanumerics>` with one optional trailing
// apostrophe. Returns the id, or nullopt.
std::optional<absl::string_view> ParseEndMarkerId(absl::string_view line,
                                                  const Dialect& dialect);

// Why `id` is not a valid block ID (2-8 ASCII alphanumerics), or nullptr.
const char* BlockIdProblem(absl::string_view id);

}  // namespace clada::sham_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_LINE_SYNTAX_H_
