// ParseShamResponse: runs the block parser, ties each syntax error to the
// block it belongs to (by position, since IDs may repeat), and validates
// every block that parsed cleanly on its own.
#include <algorithm>
#include <deque>
#include <tuple>
#include <iterator>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/line_starts.h"
#include "proj/comp/sham-action-parser/src/block_checks.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"

#include <limits>
#include "proj/comp/sham-action-parser/src/text_util.h"
#include "proj/comp/sham-action-parser/src/tolerate.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_action_parser {
namespace {

// Syntax errors reported per block; the rest are summed up in one more error.
constexpr size_t kMaxSyntaxErrorsPerBlock = 20;

// Bytes of a block's text carried in each of its errors; longer blocks are
// cut at a line break with a note saying how much was left out.
constexpr size_t kMaxBlockContentBytes = 256 * 1024;

// Lines listed in a duplicate-ID warning.
constexpr size_t kMaxListedLines = 10;

// How far past a header whose ID could not be read we look for its end marker.
constexpr int kMaxHeaderScanLines = 1000;

// Random access to the lines of the input by the answer's numbers: the
// input starts line `first_line` (core::LineStarts; a text ending in a line
// break has an empty last line after it).
class LineIndex {
 public:
  explicit LineIndex(absl::string_view text, int first_line = 1)
      : text_(text), starts_(text), first_line_(first_line) {}

  // The answer's number of the input's last line.
  int line_count() const {
    return first_line_ - 1 + static_cast<int>(starts_.size()) + (text_.empty() || text_.back() == '\n' ? 1 : 0);
  }

  // Lines first..last (clamped to the input) as written, without the final
  // newline.
  absl::string_view Lines(int first, int last) const {
    first = std::max(first, first_line_);
    last = std::min(last, line_count());
    if (first > last) return absl::string_view();
    const size_t begin = Begin(first);
    const size_t end = last < line_count() ? Begin(last + 1) - 1 : text_.size();
    return text_.substr(begin, end - begin);
  }

  absl::string_view Line(int n) const { return Lines(n, n); }

  // The bytes of lines first..last (clamped), their last line break
  // included, in the input.
  std::pair<size_t, size_t> Span(int first, int last) const {
    first = std::max(first, first_line_);
    last = std::min(last, line_count());
    if (first > last) return {0, 0};
    return {Begin(first), last < line_count() ? Begin(last + 1) : text_.size()};
  }

 private:
  // Where line n starts (the empty last line: at the end).
  size_t Begin(int n) const {
    const size_t i = static_cast<size_t>(n - first_line_);
    return i < starts_.size() ? starts_.Begin(i) : text_.size();
  }

  absl::string_view text_;
  core::LineStarts starts_;
  int first_line_;
};

// `text`, or its first kMaxBlockContentBytes cut at a line break (or at a
// character boundary) followed by a note of what was left out.
std::string BlockContentForError(absl::string_view text) {
  if (text.size() <= kMaxBlockContentBytes) return std::string(text);
  size_t cut = text.rfind('\n', kMaxBlockContentBytes);
  if (cut == absl::string_view::npos || cut < kMaxBlockContentBytes / 2) {
    cut = kMaxBlockContentBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
      --cut;
  }
  return absl::StrCat(text.substr(0, cut), "\n[... ", text.size() - cut,
                      " more bytes of this block not shown]");
}

// The block parser reads input as a browser would, turning ill-formed UTF-8
// into U+FFFD; writing those to a file would corrupt it silently. This finds
// the first such byte in a block's own text and the parameter it lies in.
struct InvalidByte {
  int line = 0;
  size_t column = 0;  // 1-based byte column
  unsigned char byte = 0;
  std::string key;  // "" when not inside a value
};

std::optional<InvalidByte> FindInvalidUtf8(const LineIndex& lines, int first,
                                           int last) {
  if (internal::IsValidUtf8(lines.Lines(first, last))) return std::nullopt;
  std::string key;
  std::string heredoc_end;  // the marker that ends the open heredoc, if any
  for (int n = first + 1; n <= last; ++n) {
    absl::string_view line = lines.Line(n);
    if (!heredoc_end.empty()) {
      if (absl::StripAsciiWhitespace(line) == heredoc_end) {
        heredoc_end.clear();
        key.clear();
        continue;
      }
    } else {
      key.clear();
      const size_t eq = line.find('=');
      if (eq != absl::string_view::npos) {
        key = std::string(absl::StripAsciiWhitespace(line.substr(0, eq)));
        absl::string_view rest =
            absl::StripAsciiWhitespace(line.substr(eq + 1));
        if (absl::StartsWith(rest, "<<'") && rest.size() > 4 &&
            absl::EndsWith(rest, "'")) {
          heredoc_end = std::string(rest.substr(3, rest.size() - 4));
        }
      }
    }
    size_t bad = 0;
    if (!internal::IsValidUtf8(line, &bad)) {
      return InvalidByte{n, bad + 1, static_cast<unsigned char>(line[bad]),
                         key};
    }
  }
  absl::string_view header = lines.Line(first);
  size_t bad = 0;
  internal::IsValidUtf8(header, &bad);
  return InvalidByte{first, bad + 1, static_cast<unsigned char>(header[bad]),
                     ""};
}

bool IsEndMarker(absl::string_view line) {
  return absl::StartsWithIgnoreCase(line, "#!end");
}

// The text of a block whose header could not be read: the header through
// the next end marker, or the header line alone when none follows soon.
std::string HeaderBlockText(const LineIndex& lines, int header_line) {
  const int last =
      std::min(lines.line_count(), header_line + kMaxHeaderScanLines);
  for (int n = header_line + 1; n <= last; ++n) {
    absl::string_view line = lines.Line(n);
    if (!absl::StartsWith(line, "#!")) continue;
    if (IsEndMarker(line))
      return BlockContentForError(lines.Lines(header_line, n));
    break;  // another header: this one had no end marker of its own
  }
  return BlockContentForError(lines.Line(header_line));
}

// The ID the header tried to give ("a-b" in "#!SHAM [@three-char-SHA-256:
// a-b]"), or "".
std::string IdFromHeader(absl::string_view header) {
  const size_t colon = header.rfind(':');
  const size_t bracket = header.rfind(']');
  if (colon == absl::string_view::npos || bracket == absl::string_view::npos ||
      bracket < colon)
    return "";
  return std::string(absl::StripAsciiWhitespace(
      header.substr(colon + 1, bracket - colon - 1)));
}

std::string SyntaxMessage(const sham_parser::ParseError& e) {
  // The reference says "exactly 3" whatever the length; the grammar takes
  // 2 to 8, and so do the instructions.
  if (e.code == "INVALID_BLOCK_ID" &&
      e.message == "Block ID must be exactly 3 characters") {
    return absl::StrCat("Block ID must be 2 to 8 characters (line ", e.line,
                        ", column ", e.column, ")");
  }
  return absl::StrCat(e.message, " (line ", e.line, ", column ", e.column, ")");
}

// The tokens of a block's marker family, told by its header line: a fix
// must name the tokens of the dialect the block is written in.
struct Dialect {
  absl::string_view header;  // "#!SHAM"
  absl::string_view end;     // "#!END_SHAM_" + ID
  absl::string_view eot;     // "EOT_SHAM_" + ID
};

Dialect DialectOf(absl::string_view header_line) {
  if (absl::StartsWith(header_line, "#!NESL"))
    return {"#!NESL", "#!END_NESL_", "EOT_NESL_"};
  if (absl::StartsWith(header_line, "#!nesl")) return {"#!nesl", "#!end_", "EOT_"};
  return {"#!SHAM", "#!END_SHAM_", "EOT_SHAM_"};
}

// Where the quoted value of an assignment line starts (its opening quote),
// or npos when the value after the first '=' is not quoted.
size_t OpeningQuote(absl::string_view line) {
  const size_t eq = line.find('=');
  if (eq == absl::string_view::npos) return absl::string_view::npos;
  const size_t q = line.find_first_not_of(" \t\v\f", eq + 1);
  if (q == absl::string_view::npos || line[q] != '"')
    return absl::string_view::npos;
  return q;
}

// The fix for a control character `c` found raw inside a quoted value.
std::string ControlCharacterFix(unsigned char c, absl::string_view heredoc) {
  if (c == 0) {
    return "The quoted value contains a NUL byte, which a quoted value "
           "cannot hold: remove it; the whole block was skipped";
  }
  if (c == '\t' || c == '\r') {
    return absl::StrCat(
        "The quoted value contains ", c == '\t' ? "a raw tab" : "a raw CR",
        ", which a quoted value cannot hold: write ", c == '\t' ? "\\t" : "\\r",
        " for it, or put the value in a heredoc ", heredoc,
        " (raw text, no escapes); the whole block was skipped");
  }
  return absl::StrCat(
      "The quoted value contains the control character 0x",
      absl::Hex(c, absl::kZeroPad2),
      ", which a quoted value cannot hold: remove it, or put the value in a "
      "heredoc ",
      heredoc, " (raw text, no escapes); the whole block was skipped");
}

// Bytes of the UTF-8 sequence a lead byte starts (1 when it starts none).
size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
  if (lead >= 0xC2) return 2;
  return 1;
}

// Quoted values are JSON strings. When the quoted value of `line` is not
// one, the fix naming the first thing wrong in it (an escape JSON lacks, a
// raw control character); nullopt when the value is not quoted or looks
// fine, which leaves the general fix.
std::optional<std::string> QuotedValueFix(absl::string_view line,
                                          absl::string_view heredoc) {
  const size_t q = OpeningQuote(line);
  if (q == absl::string_view::npos) return std::nullopt;
  for (size_t i = q + 1; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == '"') return std::nullopt;
    if (c < 0x20) return ControlCharacterFix(c, heredoc);
    if (c != '\\') continue;
    if (i + 1 >= line.size()) return std::nullopt;
    const unsigned char e = static_cast<unsigned char>(line[i + 1]);
    if (e < 0x20) return ControlCharacterFix(e, heredoc);
    if (absl::string_view("\"\\/bfnrt").find(static_cast<char>(e)) !=
        absl::string_view::npos) {
      ++i;
      continue;
    }
    if (e == 'u') {
      size_t digits = 0;
      while (digits < 4 && i + 2 + digits < line.size() &&
             absl::ascii_isxdigit(line[i + 2 + digits]))
        ++digits;
      if (digits == 4) {
        i += 5;
        continue;
      }
      return absl::StrCat(
          "\"\\u\" must be followed by four hex digits in a quoted value: "
          "write \\\\ for each backslash (\\\\u), or put the value in a "
          "heredoc ",
          heredoc, " (raw text, no escapes); the whole block was skipped");
    }
    const std::string shown =
        internal::ToValidUtf8(line.substr(i + 1, SequenceLength(e)));
    return absl::StrCat("\"\\", shown,
                        "\" is not a valid escape in a quoted value: write "
                        "\\\\ for each backslash (\\\\",
                        shown, "), or put the value in a heredoc ", heredoc,
                        " (raw text, no escapes); the whole block was skipped");
  }
  return std::nullopt;
}

// True when the quoted value of `line` never closes because it ends with an
// escaped quote: `"C:\dir\"`, whose last backslash was meant as one.
bool EndsWithEscapedQuote(absl::string_view line) {
  const size_t q = OpeningQuote(line);
  if (q == absl::string_view::npos) return false;
  line = absl::StripTrailingAsciiWhitespace(line);
  if (line.size() < q + 3 || line.back() != '"') return false;
  size_t backslashes = 0;
  for (size_t i = line.size() - 1; i-- > q + 1 && line[i] == '\\';)
    ++backslashes;
  return backslashes % 2 == 1;
}

// How to fix a syntax error, by the parser's error code, in the block's own
// dialect.
std::string SyntaxFix(const sham_parser::ParseError& e,
                      absl::string_view block_id, const Dialect& d) {
  const std::string id = block_id.empty() ? "k7m" : std::string(block_id);
  const std::string& c = e.code;
  if (c == "MALFORMED_HEADER" || c == "INVALID_BLOCK_ID") {
    return absl::StrCat("Start each block with a header like ", d.header,
                        " [@three-char-SHA-256: k7m] whose ID is 2 to 8 "
                        "letters or digits (3 is usual), and end it with ",
                        d.end, "k7m");
  }
  if (c == "DUPLICATE_KEY")
    return "Give each key once per block; the whole block was skipped";
  if (c == "MALFORMED_ASSIGNMENT" || c == "TRAILING_CONTENT") {
    return absl::StrCat(
        "Every line inside a block is key = \"value\", key = <<'", d.eot, id,
        "' starting a heredoc, or empty; comments and text after the closing "
        "quote are not "
        "allowed; the whole block was skipped");
  }
  if (c == "INVALID_KEY" || c == "EMPTY_KEY") {
    const std::string look = internal::FirstLookalike(e.content);
    if (!look.empty()) {
      return absl::StrCat("The line holds ", look,
                          ", which is not part of a key: remove it and "
                          "start the line with the parameter name, e.g. "
                          "path = \"src/a.txt\"; the whole block was "
                          "skipped");
    }
    return "Start the line with the parameter name (letters, digits, "
           "underscores, no spaces before it), e.g. "
           "path = \"src/a.txt\"; the whole block was skipped";
  }
  if (c == "INVALID_ASSIGNMENT_OPERATOR")
    return "Use = between key and value; the whole block was skipped";
  const std::string heredoc = absl::StrCat("<<'", d.eot, id, "'");
  if (c == "INVALID_VALUE" || c == "UNCLOSED_QUOTE") {
    // A curly quote, a no-break or zero-width space where the value starts
    // or ends: name it, since it looks like what was meant.
    const size_t eq = e.content.find('=');
    const std::string look =
        eq == std::string::npos ? ""
                                : internal::FirstLookalike(e.content, eq + 1);
    if (!look.empty()) {
      const bool curly = absl::StrContains(look, "curly");
      return absl::StrCat(
          "After '=' the line holds ", look, ": ",
          curly ? "only a straight double quote \" (U+0022) opens and "
                  "closes a quoted value (a value wholly in curly double "
                  "quotes, with no \" or \\ inside, is read with a "
                  "warning)"
                : "remove it",
          "; write key = \"value\", or use a heredoc ", heredoc,
          " for text with quotes; the whole block was skipped");
    }
  }
  if (c == "INVALID_VALUE") {
    std::optional<std::string> quoted = QuotedValueFix(e.content, heredoc);
    if (quoted.has_value()) return *std::move(quoted);
    return absl::StrCat(
        "Put the value in double quotes, or use a heredoc <<'", d.eot, id,
        "' for text with newlines or quotes; the whole block was skipped");
  }
  if (c == "UNCLOSED_QUOTE") {
    if (EndsWithEscapedQuote(e.content)) {
      return absl::StrCat(
          "The value ends with \\\", an escaped quote, so it never closes: "
          "if that backslash is meant as one, write \\\\ for each backslash "
          "(\"C:\\\\dir\\\\\"), else add the closing quote; or put the "
          "value in a heredoc ",
          heredoc, " (raw text, no escapes); the whole block was skipped");
    }
    return absl::StrCat(
        "Close the quote on the same line (write \\\" for a quote inside); for "
        "text with "
        "newlines use a heredoc <<'",
        d.eot, id, "'; the whole block was skipped");
  }
  if (c == "UNCLOSED_HEREDOC") {
    return absl::StrCat("End the heredoc with a line containing only ", d.eot,
                        id, "; the whole block was skipped");
  }
  if (c == "UNCLOSED_BLOCK" || c == "MISMATCHED_END") {
    return absl::StrCat("End the block with the line ", d.end, id,
                        "; the whole block was skipped");
  }
  if (c == "input_too_large")
    return "Send less text at once; nothing in this input was run";
  return "Correct the syntax at that line (`clada instructions` shows the "
         "block syntax); the whole block was "
         "skipped";
}

}  // namespace

namespace {

// Takes each refused block's errors as the blocks are read, in order, and
// keeps the first and the last ErrorKeeping::keep_blocks blocks' whole;
// those between are measured and counted (LeftOutBlock).
class ErrorKeeper {
 public:
  explicit ErrorKeeper(const ErrorKeeping& keeping) : keeping_(keeping) {}

  // How many blocks the answer has (before the first AddBlock).
  void SetBlockCount(size_t blocks) { blocks_left_ = blocks; }

  // One block's errors (all of them, at once).
  void AddBlock(std::vector<ActionParseError> errors, int last_line) {
    if (blocks_left_ > 0) --blocks_left_;
    if (errors.empty()) return;
    if (keeping_.keep_blocks == 0 || head_blocks_ < keeping_.keep_blocks) {
      ++head_blocks_;
      for (ActionParseError& e : errors) head_.push_back(std::move(e));
      return;
    }
    tail_.push_back({std::move(errors), last_line});
    if (tail_.size() > keeping_.keep_blocks) {
      Pending& first = tail_.front();
      LeftOutBlock out;
      out.start_line = first.errors.front().block_start_line;
      out.last_line = first.last_line;
      if (keeping_.measure) std::tie(out.entry_lines, out.entry_bytes) = keeping_.measure(first.errors);
      if (keeping_.spill) std::tie(out.spill_offset, out.spill_bytes) = keeping_.spill(first.errors);
      // Once blocks are left out, most of the rest may be: room for them
      // all at once, so a million refused blocks are not grown twice over.
      if (left_out_.empty()) left_out_.reserve(blocks_left_ + 1);
      left_out_.push_back(out);
      tail_.pop_front();
    }
  }

  void MoveInto(ActionParseResult& result) && {
    result.errors = std::move(head_);
    for (Pending& p : tail_) {
      for (ActionParseError& e : p.errors) result.errors.push_back(std::move(e));
    }
    result.left_out = std::move(left_out_);
  }

 private:
  struct Pending {
    std::vector<ActionParseError> errors;
    int last_line = 0;
  };
  const ErrorKeeping& keeping_;
  size_t blocks_left_ = 0;  // blocks not handed to AddBlock yet
  size_t head_blocks_ = 0;
  std::vector<ActionParseError> head_;
  std::deque<Pending> tail_;
  std::vector<LeftOutBlock> left_out_;
};

}  // namespace

ActionParseResult ParseShamResponse(absl::string_view text, size_t max_input_bytes,
                                    const ErrorKeeping& keeping, const AnswerPiece& piece) {
  ActionParseResult result;
  ErrorKeeper kept(keeping);
  // Chat noise the grammar would refuse is read first (line for line, so
  // line numbers stay those of the answer); the blocks shown in errors are
  // the answer's own text.
  internal::ToleratedText tolerated =
      internal::TolerateChatNoise(text, false, piece.first_line, piece.quoted_as_a_whole);
  // Not const: a clean block's values are moved into its action.
  // The limit applies to the answer; a tolerated reading of it may be a few
  // bytes longer.
  size_t limit = max_input_bytes;
  if (tolerated.changed && tolerated.text.size() > text.size() &&
      limit <= std::numeric_limits<size_t>::max() - (tolerated.text.size() - text.size())) {
    limit += tolerated.text.size() - text.size();
  }
  sham_parser::ParseOptions grammar;
  grammar.max_bytes = limit;
  grammar.first_line = piece.first_line;
  sham_parser::ParseResult parsed = sham_parser::ParseBlocks(
      tolerated.changed ? absl::string_view(tolerated.text) : text, grammar);
  const LineIndex lines(text, piece.first_line);
  // The lines the grammar read, where they differ from the answer's.
  std::optional<LineIndex> rewritten;
  if (tolerated.changed) rewritten.emplace(tolerated.text, piece.first_line);
  const LineIndex& parsed_lines = rewritten.has_value() ? *rewritten : lines;
  // Notes by header line.
  absl::flat_hash_map<int, internal::BlockNotes*> notes_at;
  for (internal::BlockNotes& n : tolerated.blocks)
    notes_at[n.header_line] = &n;
  std::vector<sham_parser::Block>& blocks = parsed.blocks;

  // Blocks in input order, and the last line each one owns.
  std::vector<size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return blocks[a].start_line < blocks[b].start_line;
  });
  kept.SetBlockCount(order.size());
  std::vector<int> starts(order.size());
  std::vector<int> last_lines(order.size());
  for (size_t k = 0; k < order.size(); ++k)
    starts[k] = blocks[order[k]].start_line;
  for (size_t k = 0; k < order.size(); ++k) {
    const sham_parser::Block& b = blocks[order[k]];
    last_lines[k] = b.end_line.has_value() ? *b.end_line
                    : k + 1 < order.size() ? starts[k + 1] - 1
                                           : lines.line_count();
  }

  // Each syntax error goes to the block around its line (k), or stays
  // unattached.
  // By block (k): few blocks have syntax errors, so not one list per block.
  absl::flat_hash_map<size_t, std::vector<const sham_parser::ParseError*>>
      block_errors;
  std::vector<const sham_parser::ParseError*> unattached;
  for (const sham_parser::ParseError& e : parsed.errors) {
    const auto after = std::upper_bound(starts.begin(), starts.end(), e.line);
    bool attached = false;
    if (!e.block_id.empty() && after != starts.begin()) {
      const size_t nearest = static_cast<size_t>(after - starts.begin()) - 1;
      // The nearest block that carries the error's ID, a few blocks back at
      // most.
      for (size_t k = nearest + 1; k-- > 0 && nearest - k < 4;) {
        if (blocks[order[k]].id == e.block_id && e.line <= last_lines[k] + 1) {
          block_errors[k].push_back(&e);
          attached = true;
          break;
        }
      }
    }
    if (!attached) unattached.push_back(&e);
  }
  // Past the parser's error cap, later errors were dropped: a block that
  // reaches the cap's line, or never closed, may have lost its own, so it
  // must not run as if it were clean.
  std::optional<int> cap_line;
  for (const sham_parser::ParseError& e : parsed.errors) {
    if (e.code == "too_many_errors") cap_line = e.line;
  }

  // Blocks that share an ID: found by sorted hashes of the IDs first (8
  // bytes a block: a map of a million IDs took 52 MB), the lines listed for
  // those only, by the IDs themselves (two IDs that hash alike are told
  // apart there).
  {
    std::vector<size_t> id_hashes;
    id_hashes.reserve(order.size());
    for (size_t k = 0; k < order.size(); ++k) id_hashes.push_back(absl::HashOf(absl::string_view(blocks[order[k]].id)));
    std::sort(id_hashes.begin(), id_hashes.end());
    auto shared = [&id_hashes](absl::string_view id) {
      auto [first, last] = std::equal_range(id_hashes.begin(), id_hashes.end(), absl::HashOf(id));
      return last - first >= 2;
    };
    absl::flat_hash_map<absl::string_view, std::vector<int>> id_lines;
    std::vector<absl::string_view> ids_in_order;
    for (size_t k = 0; k < order.size(); ++k) {
      const absl::string_view id = blocks[order[k]].id;
      if (!shared(id)) continue;
      std::vector<int>& at = id_lines[id];
      if (at.empty()) ids_in_order.push_back(id);
      at.push_back(starts[k]);
    }
    for (const absl::string_view id : ids_in_order) {
      const std::vector<int>& at = id_lines[id];
      if (at.size() < 2) continue;
      std::string where = absl::StrJoin(
          at.begin(), at.begin() + std::min(at.size(), kMaxListedLines), ", ");
      if (at.size() > kMaxListedLines)
        absl::StrAppend(&where, " and ", at.size() - kMaxListedLines, " more");
      result.warnings.push_back(absl::StrCat(
          "Block ID '", id, "' is used by ", at.size(), " blocks (lines ", where,
          "); give every block its own ID so results can be told apart"));
    }
  }

  const ActionSchema& schema = LoadedSchema();
  // At most one action per block: reserved at the first action for the
  // blocks left, so many blocks never hold two copies of the actions while
  // the vector grows, and an answer whose blocks are all refused reserves
  // nothing.
  for (size_t k = 0; k < order.size(); ++k) {
    sham_parser::Block& block = blocks[order[k]];
    // Its values are released once it is read: a million blocks do not
    // hold theirs beside their actions.
    struct Release {
      sham_parser::Block& b;
      ~Release() { b = sham_parser::Block{}; }
    } release{block};
    const std::optional<std::string> action_value =
        internal::ActionValue(block);
    const std::string block_id = block.id;  // the block may be moved below
    std::string content;  // made on the first error only
    // The block's errors, handed to the keeper when it is read.
    std::vector<ActionParseError> block_errors_out;
    struct Hand {
      ErrorKeeper& keeper;
      std::vector<ActionParseError>& errors;
      int last_line;
      ~Hand() { keeper.AddBlock(std::move(errors), last_line); }
    } hand{kept, block_errors_out, last_lines[k]};
    const auto add_error = [&](std::string type, std::string message,
                               std::string fix) {
      if (content.empty())
        content = BlockContentForError(lines.Lines(starts[k], last_lines[k]));
      block_errors_out.push_back(ActionParseError{
          block_id, action_value, std::move(type), std::move(message),
          starts[k], content, std::move(fix)});
    };
    std::vector<const sham_parser::ParseError*> syntax;
    if (auto it = block_errors.find(k); it != block_errors.end())
      syntax = std::move(it->second);
    internal::BlockNotes* notes = nullptr;
    if (auto it = notes_at.find(starts[k]); it != notes_at.end()) {
      notes = it->second;
      notes_at.erase(it);
    }
    if (notes != nullptr && !notes->refusals.empty()) {
      // The root cause first, once; the grammar's errors that follow from
      // it are left out.
      for (internal::Refusal& r : notes->refusals)
        add_error("syntax", std::move(r.message), std::move(r.fix));
      if (notes->suppress_from > 0) {
        syntax.erase(std::remove_if(syntax.begin(), syntax.end(),
                                    [&](const sham_parser::ParseError* e) {
                                      return e->line >= notes->suppress_from;
                                    }),
                     syntax.end());
      }
      if (syntax.empty()) continue;
    }
    if (!syntax.empty()) {
      for (size_t i = 0; i < syntax.size() && i < kMaxSyntaxErrorsPerBlock;
           ++i) {
        add_error("syntax", SyntaxMessage(*syntax[i]),
                  SyntaxFix(*syntax[i], block.id,
                            DialectOf(parsed_lines.Line(block.start_line))));
      }
      if (syntax.size() > kMaxSyntaxErrorsPerBlock) {
        add_error("syntax",
                  absl::StrCat(syntax.size() - kMaxSyntaxErrorsPerBlock,
                               " more syntax errors in this block (lines ",
                               syntax[kMaxSyntaxErrorsPerBlock]->line, " to ",
                               syntax.back()->line, ")"),
                  "Correct the errors above first; the same mistake is "
                  "probably repeated");
      }
      continue;
    }
    if (cap_line.has_value() &&
        (last_lines[k] >= *cap_line || !block.end_line.has_value())) {
      add_error("syntax",
                absl::StrCat("Block not checked: the answer has more than ",
                             sham_parser::kMaxReportedErrors,
                             " syntax errors before line ", *cap_line,
                             ", and errors past that many are not reported"),
                "Fix the syntax errors reported above, or send this block "
                "again in a shorter answer");
      continue;
    }
    const std::optional<InvalidByte> invalid =
        FindInvalidUtf8(lines, starts[k], last_lines[k]);
    if (invalid.has_value()) {
      add_error(
          "type",
          absl::StrCat(
              invalid->key.empty()
                  ? "Block"
                  : absl::StrCat("Parameter '",
                                 internal::ToValidUtf8(invalid->key), "'"),
              " is not valid UTF-8 (byte 0x",
              absl::Hex(invalid->byte, absl::kZeroPad2), " on line ",
              invalid->line, ", byte column ", invalid->column, ")"),
          "Send text as UTF-8; clada reads and writes UTF-8 text only");
      continue;
    }
    internal::ActionCheck check = internal::CheckActionName(block, schema);
    if (check.definition == nullptr) {
      for (internal::Issue& i : check.issues)
        add_error(i.error_type, i.message, i.fix);
      continue;
    }
    internal::Transform transform =
        internal::TransformBlock(std::move(block), *check.definition);
    if (!transform.action.has_value()) {
      for (internal::Issue& i : transform.issues)
        add_error(i.error_type, i.message, i.fix);
      continue;
    }
    if (keeping.defer_actions) {
      // Kept as where it is; DeferredActions::Make reads it again.
      DeferredActions::Entry entry;
      std::tie(entry.begin, entry.end) = parsed_lines.Span(starts[k], last_lines[k]);
      entry.start_line = transform.action->metadata.start_line;
      entry.end_line = transform.action->metadata.end_line;
      entry.definition = check.definition;
      if (notes != nullptr && !notes->warnings.empty()) {
        result.deferred.notes.emplace_back(result.deferred.entries.size(), std::move(notes->warnings));
      }
      if (result.deferred.entries.empty()) result.deferred.entries.reserve(order.size() - k);
      result.deferred.entries.push_back(entry);
      continue;
    }
    if (notes != nullptr && !notes->warnings.empty()) {
      std::vector<std::string>& w = transform.action->warnings;
      w.insert(w.begin(), std::make_move_iterator(notes->warnings.begin()),
               std::make_move_iterator(notes->warnings.end()));
    }
    if (result.actions.empty()) result.actions.reserve(order.size() - k);
    result.actions.push_back(*std::move(transform.action));
  }
  if (keeping.defer_actions) {
    if (tolerated.changed) {
      result.deferred.owned_text = std::make_shared<const std::string>(std::move(tolerated.text));
      result.deferred.text = *result.deferred.owned_text;
    } else {
      result.deferred.text = text;
    }
  }
  std::move(kept).MoveInto(result);
  // Refusals of headers the grammar made no block of.
  for (internal::BlockNotes& n : tolerated.blocks) {
    if (!notes_at.contains(n.header_line)) continue;
    for (internal::Refusal& r : n.refusals) {
      result.errors.push_back(ActionParseError{
          n.id, std::nullopt, "syntax", std::move(r.message), n.header_line,
          HeaderBlockText(lines, n.header_line), std::move(r.fix)});
    }
  }
  for (std::string& w : tolerated.warnings)
    result.warnings.push_back(std::move(w));

  // Headers that could not be read, and errors outside any block.
  result.total_blocks = static_cast<int>(blocks.size());
  for (const sham_parser::ParseError* e : unattached) {
    const bool is_header = absl::StartsWith(e->content, "#!");
    if (is_header) ++result.total_blocks;
    const std::string id = e->block_id.empty() && is_header
                               ? IdFromHeader(e->content)
                               : e->block_id;
    result.errors.push_back(
        ActionParseError{id, std::nullopt, "syntax", SyntaxMessage(*e),
                         e->line > 0 ? e->line : 1,
                         is_header ? HeaderBlockText(lines, e->line)
                                   : BlockContentForError(e->content),
                         SyntaxFix(*e, id, DialectOf(e->content))});
  }
  std::stable_sort(result.errors.begin(), result.errors.end(),
                   [](const ActionParseError& a, const ActionParseError& b) {
                     return a.block_start_line < b.block_start_line;
                   });
  return result;
}

absl::StatusOr<core::Action> DeferredActions::Make(size_t i) const {
  const Entry& entry = entries[i];
  const absl::string_view block_text = text.substr(entry.begin, entry.end - entry.begin);
  sham_parser::ParseResult parsed = sham_parser::ParseBlocks(block_text, block_text.size() + 1);
  if (parsed.blocks.size() != 1 || !parsed.errors.empty() || entry.definition == nullptr) {
    return absl::InternalError(absl::StrCat("the block at line ", entry.start_line,
                                            " could not be read again; send it again"));
  }
  sham_parser::Block& block = parsed.blocks.front();
  // Its lines, as they were in the answer.
  const int offset = entry.start_line - 1;
  block.start_line += offset;
  if (block.end_line.has_value()) *block.end_line += offset;
  block.last_line += offset;
  for (sham_parser::Heredoc& h : block.heredocs) {
    h.open_line += offset;
    h.close_line += offset;
  }
  internal::Transform transform = internal::TransformBlock(std::move(block), *entry.definition);
  if (!transform.action.has_value()) {
    return absl::InternalError(absl::StrCat("the block at line ", entry.start_line,
                                            " could not be read again; send it again"));
  }
  auto notes_of = std::lower_bound(notes.begin(), notes.end(), i,
                                   [](const auto& n, size_t index) { return n.first < index; });
  if (notes_of != notes.end() && notes_of->first == i) {
    std::vector<std::string>& w = transform.action->warnings;
    w.insert(w.begin(), notes_of->second.begin(), notes_of->second.end());
  }
  return *std::move(transform.action);
}

}  // namespace clada::sham_action_parser
