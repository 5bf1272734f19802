#include "proj/comp/sham-parser/src/sham_parser.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/comp/sham-parser/src/internal/assignment.h"
#include "proj/comp/sham-parser/src/internal/key_index.h"
#include "proj/comp/sham-parser/src/internal/line_syntax.h"
#include "proj/comp/sham-parser/src/internal/utf8.h"

namespace clada::sham_parser {
namespace {

using internal::Assignment;
using internal::Classification;
using internal::Dialect;
using internal::LineType;

constexpr size_t kNpos = absl::string_view::npos;
// Errors show the target line with two lines either side (five in all).
constexpr int64_t kContextRadius = 2;
constexpr int64_t kContextLines = 2 * kContextRadius + 1;
// Line starts remembered behind the current line; context and the
// "previous line" of UNCLOSED_BLOCK never reach further back.
constexpr int64_t kRingSize = 8;

// Appends `text` with every CR that precedes an LF removed: heredoc lines
// are joined with "\n" whatever the input's line endings were.
void AppendJoinedLines(absl::string_view text, std::string* out) {
  out->reserve(out->size() + text.size());
  while (!text.empty()) {
    const void* cr = std::memchr(text.data(), '\r', text.size());
    if (cr == nullptr) {
      out->append(text.data(), text.size());
      return;
    }
    const size_t i = static_cast<const char*>(cr) - text.data();
    out->append(text.data(), i);
    if (i + 1 >= text.size() || text[i + 1] != '\n') out->push_back('\r');
    text.remove_prefix(i + 1);
  }
}

int ToInt(size_t n) { return static_cast<int>(n); }

class BlockParser {
 public:
  // `text` starts line `first_line` of the answer (ParseOptions::first_line).
  BlockParser(absl::string_view text, int first_line, const std::function<void(Block&&)>* on_block = nullptr)
      : text_(text), on_block_(on_block), above_(first_line - int64_t{1}) {}

  ParseResult Run() && {
    const size_t n = text_.size();
    // Every block starts at a header line: counted first, so a million
    // blocks are held once, not grown twice over and held twice while
    // they move (an upper bound: a header can be refused).
    if (on_block_ == nullptr) result_.blocks.reserve(CountHeaderLines());
    size_t pos = 0;
    while (true) {
      const void* nl = std::memchr(text_.data() + pos, '\n', n - pos);
      const size_t end =
          nl == nullptr ? n : static_cast<const char*>(nl) - text_.data();
      size_t content_end = end;
      if (nl != nullptr && end > pos && text_[end - 1] == '\r') --content_end;
      line_start_ = pos;
      line_starts_[line_index_ % kRingSize] = pos;
      line_ = text_.substr(pos, content_end - pos);
      ProcessLine();
      if (nl == nullptr) break;
      pos = end + 1;
      ++line_index_;
    }
    Finish();
    return std::move(result_);
  }

 private:
  enum class State { kSeekingHeader, kInBlock, kInHeredoc };

  // The answer's number of the line being processed.
  int LineNumber() const { return static_cast<int>(above_ + line_index_ + 1); }

  size_t CountHeaderLines() const {
    size_t count = 0;
    size_t pos = 0;
    while (pos < text_.size()) {
      const void* nl = std::memchr(text_.data() + pos, '\n', text_.size() - pos);
      const size_t end = nl == nullptr ? text_.size() : static_cast<const char*>(nl) - text_.data();
      if (internal::FindHeaderDialect(text_.substr(pos, end - pos)) != nullptr) ++count;
      pos = end + 1;
    }
    return count;
  }

  void ProcessLine() {
    switch (state_) {
      case State::kSeekingHeader:
        if (const Dialect* d = internal::FindHeaderDialect(line_))
          OpenBlock(*d, /*replacing=*/false);
        break;
      case State::kInBlock:
        ProcessBlockLine();
        break;
      case State::kInHeredoc:
        ProcessHeredocLine();
        break;
    }
  }

  // A header line, outside a block or (replacing=true) inside one.
  void OpenBlock(const Dialect& dialect, bool replacing) {
    const std::optional<absl::string_view> id =
        internal::ParseHeaderId(line_, dialect);
    if (!id) {
      // Inside a block the reference reports nothing more and stays in it.
      if (!replacing && Reporting())
        AddError("MALFORMED_HEADER", LineNumber(),
                 std::string(dialect.malformed_header_message), 0);
      return;
    }
    if (const char* problem = internal::BlockIdProblem(*id)) {
      if (replacing) CloseBlock(std::nullopt, LineNumber() - 1);
      const size_t column =
          absl::StartsWith(line_, dialect.canonical_id_prefix)
              ? internal::Utf16Length(dialect.canonical_id_prefix)
              : 0;
      if (Reporting()) {
        AddError("INVALID_BLOCK_ID", LineNumber(), problem, ToInt(column),
                 ToInt(internal::Utf16Length(*id)));
      }
      return;
    }
    if (replacing) CloseBlock(std::nullopt, LineNumber() - 1);
    block_.emplace();
    block_->id = std::string(*id);
    block_->start_line = LineNumber();
    block_body_offset_ = line_start_ + line_.size();
    dialect_ = &dialect;
    keys_.Clear();
    state_ = State::kInBlock;
  }

  // Moves the current block, whose last line is `last_line`, to the result.
  // A block left open ends at its loose end marker when it has one.
  void CloseBlock(std::optional<int> end_line, int last_line) {
    block_->end_line = end_line;
    if (!end_line.has_value()) {
      const std::optional<int> loose = LooseEndLine(last_line);
      if (loose.has_value()) last_line = *loose;
    }
    block_->last_line = last_line;
    if (on_block_ != nullptr) {
      (*on_block_)(std::move(*block_));
    } else {
      result_.blocks.push_back(std::move(*block_));
    }
    block_.reset();
    dialect_ = nullptr;
    state_ = State::kSeekingHeader;
  }

  // The first line after the open block's header, up to line `last_line`,
  // that is the block's end marker but for blanks or invisible characters
  // around it (`#!END_SHAM_id  `), which the grammar does not take for one
  // and the action layer does; nullopt when there is none. Not part of the
  // reference's output: it only bounds Block::last_line, so that a block a
  // reader sees as ended does not grow with the text after it.
  std::optional<int> LooseEndLine(int last_line) const {
    const std::string needle =
        absl::StrCat(dialect_->end_prefix, block_->id);
    size_t limit = text_.size();
    size_t line_begin = 0;
    size_t line_end = 0;
    if (LineBounds(last_line - 1 - above_, &line_begin, &line_end)) limit = line_end;
    size_t from = block_body_offset_;
    while (from < limit) {
      const size_t at = FindInText(needle, from);
      if (at == kNpos || at >= limit) return std::nullopt;
      const size_t nl_before = text_.rfind('\n', at);
      const size_t begin = nl_before == kNpos ? 0 : nl_before + 1;
      const void* nl = std::memchr(text_.data() + at, '\n', text_.size() - at);
      size_t end = nl == nullptr
                       ? text_.size()
                       : static_cast<const char*>(nl) - text_.data();
      if (end > at && text_[end - 1] == '\r') --end;
      absl::string_view after =
          text_.substr(at + needle.size(), end - at - needle.size());
      if (!after.empty() && after[0] == '\'') after.remove_prefix(1);
      if (IsLooseBlank(text_.substr(begin, at - begin)) &&
          IsLooseBlank(after)) {
        return block_->start_line +
               static_cast<int>(std::count(text_.data() + block_body_offset_,
                                           text_.data() + begin, '\n'));
      }
      from = at + 1;
    }
    return std::nullopt;
  }

  // True when `s` holds only whitespace (ECMAScript's) and zero-width
  // characters (U+200B-U+200D, U+2060).
  static bool IsLooseBlank(absl::string_view s) {
    size_t pos = 0;
    while (pos < s.size()) {
      const char32_t cp = internal::DecodeUtf8(s, &pos);
      if (!internal::IsJsWhitespace(cp) && !(cp >= 0x200B && cp <= 0x200D) &&
          cp != 0x2060)
        return false;
    }
    return true;
  }

  void ProcessBlockLine() {
    const Classification c = internal::ClassifyLine(line_, dialect_);
    switch (c.type) {
      case LineType::kEmpty:
        return;
      case LineType::kEndMarker: {
        const std::optional<absl::string_view> id =
            internal::ParseEndMarkerId(line_, *dialect_);
        if (!id) return;  // the reference ignores end-marker look-alikes
        if (*id != block_->id && Reporting()) {
          AddError("MISMATCHED_END", LineNumber(),
                   absl::StrCat("End marker '", *id,
                                "' doesn't match block ID '", block_->id, "'"),
                   0);
        }
        CloseBlock(LineNumber(), LineNumber());
        return;
      }
      case LineType::kHeader:
        if (Reporting()) {
          AddError("UNCLOSED_BLOCK", LineNumber() - 1,
                   absl::StrCat("Block '", block_->id,
                                "' not closed before new block"),
                   0, 0);
        }
        OpenBlock(*c.header_dialect, /*replacing=*/true);
        return;
      case LineType::kAssignment:
        ProcessAssignment();
        return;
      case LineType::kUnknown:
        if (Reporting())
          AddError("MALFORMED_ASSIGNMENT", LineNumber(),
                   MalformedAssignmentMessage(), 0);
        return;
    }
  }

  std::string MalformedAssignmentMessage() const {
    return absl::StrCat("Invalid line format in block '", block_->id,
                        "': not a valid key-value assignment or empty line");
  }

  void ProcessAssignment() {
    Assignment a = internal::ParseAssignmentLine(line_);
    if (a.kind == Assignment::Kind::kError) {
      ReportAssignmentError(a);
      return;
    }
    const absl::string_view raw_key = line_.substr(0, a.equal_pos);
    const bool leading_whitespace = internal::LeadingJsWhitespace(raw_key) > 0;
    const std::optional<std::string> key_problem = internal::KeyProblem(a.key);
    if (leading_whitespace && Reporting()) {
      size_t first_end = 0;
      internal::DecodeUtf8(raw_key, &first_end);
      AddError("INVALID_KEY", LineNumber(),
               absl::StrCat("Key contains invalid character '",
                            raw_key.substr(0, first_end), "' at position 1"),
               0, ToInt(internal::Utf16Length(internal::TrimEndJs(raw_key))));
    } else if (key_problem && !leading_whitespace && Reporting()) {
      AddError("INVALID_KEY", LineNumber(), *key_problem, 0,
               ToInt(internal::Utf16Length(a.key)));
    }
    const bool key_ok = !leading_whitespace && !key_problem;
    const size_t existing = key_ok ? keys_.Find(a.key) : kNpos;
    if (existing != kNpos && Reporting()) {
      AddError("DUPLICATE_KEY", LineNumber(),
               absl::StrCat("Duplicate key '", a.key, "' in block '",
                            block_->id, "'"),
               0, ToInt(internal::Utf16Length(a.key)));
    }
    if (a.kind == Assignment::Kind::kKeyValue) {
      if (key_ok) SetPropertyAt(existing, a.key, std::move(a.value));
      return;
    }
    // A heredoc opens whenever the key itself is valid, even after a
    // leading-whitespace error, as in the reference; otherwise its body would
    // be read as assignments.
    if (key_problem) return;
    if (a.delimiter.size() ==
            dialect_->heredoc_prefix.size() + block_->id.size() &&
        absl::StartsWith(a.delimiter, dialect_->heredoc_prefix) &&
        absl::EndsWith(a.delimiter, block_->id)) {
      heredoc_key_ = a.key;
      heredoc_open_line_ = LineNumber();
      heredoc_delimiter_ = a.delimiter;
      heredoc_has_content_ = false;
      heredoc_next_ = FindInText(a.delimiter, line_start_ + line_.size());
      state_ = State::kInHeredoc;
      return;
    }
    if (!Reporting()) return;
    const size_t at = line_.find(a.delimiter);
    AddError("INVALID_HEREDOC_DELIMITER", LineNumber(),
             absl::StrCat("Heredoc delimiter must be '",
                          dialect_->heredoc_prefix, block_->id, "'"),
             ToInt(internal::Utf16Length(line_.substr(0, at))),
             ToInt(internal::Utf16Length(a.delimiter)));
  }

  void ReportAssignmentError(Assignment& a) {
    const absl::string_view code = a.error.code;
    if (code == "TRAILING_CONTENT" && !internal::KeyProblem(a.key) &&
        keys_.Find(a.key) == kNpos) {
      SetPropertyAt(kNpos, a.key,
                    std::move(a.value));  // the quoted part still counts
    }
    if (!Reporting()) return;
    std::string message;
    if (code == "TRAILING_CONTENT") {
      message = "Unexpected content after quoted value";
    } else if (code == "INVALID_ASSIGNMENT_OPERATOR") {
      message = absl::StrCat("Invalid assignment operator '",
                             line_.substr(a.error.begin, 2),
                             "' - only '=' is allowed");
    } else if (code == "EMPTY_KEY") {
      message = "Assignment without key name";
    } else if (code == "UNCLOSED_QUOTE") {
      message = "Unclosed quoted string";
    } else if (code == "INVALID_VALUE") {
      message = "Value must be a quoted string or heredoc";
    } else {
      message = MalformedAssignmentMessage();
    }
    const size_t column = internal::Utf16Length(line_.substr(0, a.error.begin));
    const size_t length =
        a.error.fixed_length.has_value()
            ? *a.error.fixed_length
            : internal::Utf16Length(
                  line_.substr(a.error.begin, a.error.end - a.error.begin));
    AddError(std::string(code), LineNumber(), std::move(message), ToInt(column),
             ToInt(length));
  }

  void ProcessHeredocLine() {
    // heredoc_next_ is the first delimiter at or after this line; a delimiter
    // never spans lines, so one search serves every line up to it.
    const size_t line_end = line_start_ + line_.size();
    if (heredoc_next_ != kNpos && heredoc_next_ < line_end) {
      const size_t at = heredoc_next_ - line_start_;
      const absl::string_view before = line_.substr(0, at);
      const absl::string_view after =
          line_.substr(at + heredoc_delimiter_.size());
      // The delimiter inside another heredoc opener is content.
      const bool opener = before.find("<<") != kNpos;
      if (!opener && (after.empty() || after == "'")) {
        // Normally the delimiter stands alone; an LLM sometimes appends it to
        // the last content line, which the reference accepts too.
        const size_t body =
            heredoc_has_content_ ? heredoc_body_start_ : line_start_;
        const size_t stop =
            at > 0 ? line_start_ + at
                   : (heredoc_has_content_ ? heredoc_content_end_ : body);
        std::string value;
        // Room for the "\n" a layer reading the value as lines adds.
        value.reserve(stop - body + 1);
        AppendJoinedLines(text_.substr(body, stop - body), &value);
        SetProperty(heredoc_key_, std::move(value));
        Heredoc h;
        h.key = std::string(heredoc_key_);
        h.open_line = heredoc_open_line_;
        h.close_line = LineNumber();
        h.closer_column = at;
        h.indented = at > 0 && internal::LeadingJsWhitespace(before) == at;
        block_->heredocs.push_back(std::move(h));
        state_ = State::kInBlock;
        return;
      }
      heredoc_next_ = FindInText(heredoc_delimiter_, line_end);
    }
    if (!heredoc_has_content_) {
      heredoc_has_content_ = true;
      heredoc_body_start_ = line_start_;
    }
    heredoc_content_end_ = line_start_ + line_.size();
  }

  void Finish() {
    const int after_last_line = static_cast<int>(above_ + line_index_ + 2);
    if (state_ == State::kInHeredoc) {
      AddError("UNCLOSED_HEREDOC", after_last_line,
               absl::StrCat("Heredoc '", heredoc_delimiter_,
                            "' not closed before EOF"),
               0, 0);
      CloseBlock(std::nullopt, after_last_line - 1);
    } else if (state_ == State::kInBlock) {
      AddError("UNCLOSED_BLOCK", after_last_line,
               absl::StrCat("Block '", block_->id, "' not closed before EOF"),
               0, 0);
      CloseBlock(std::nullopt, after_last_line - 1);
    }
  }

  // Offset of the first `needle` (non-empty) in text_ at or after `from`, or
  // npos. Delimiters start with 'E', which is rare in most text, so finding
  // candidates with memchr beats glibc's generic memmem.
  size_t FindInText(absl::string_view needle, size_t from) const {
    if (from > text_.size() || text_.size() - from < needle.size())
      return kNpos;
    const char* p = text_.data() + from;
    const char* const last = text_.data() + text_.size() - needle.size();
    while (p <= last) {
      p = static_cast<const char*>(std::memchr(p, needle[0], last - p + 1));
      if (p == nullptr) return kNpos;
      if (std::memcmp(p + 1, needle.data() + 1, needle.size() - 1) == 0)
        return p - text_.data();
      ++p;
    }
    return kNpos;
  }

  // --- properties -----------------------------------------------------------

  // Sets `key` (a view into the input) to `value`; a new key goes last, a
  // known one keeps its place.
  void SetProperty(absl::string_view key, std::string value) {
    SetPropertyAt(keys_.Find(key), key, std::move(value));
  }

  // As SetProperty, with `position` = keys_.Find(key) already known.
  void SetPropertyAt(size_t position, absl::string_view key,
                     std::string value) {
    if (position != kNpos) {
      block_->properties[position].second = std::move(value);
      return;
    }
    block_->properties.emplace_back(std::string(key), std::move(value));
    keys_.Add(key);
  }

  // --- errors and their context -----------------------------------------

  // Start of line `index` and the offset of its '\n' (or the input's end),
  // for lines from kRingSize-1 behind the current one onwards. False when
  // the input has no such line.
  bool LineBounds(int64_t index, size_t* begin, size_t* end) const {
    if (index < 0) return false;
    size_t start;
    if (index <= line_index_) {
      start = line_starts_[index % kRingSize];
    } else {
      start = line_start_;
      for (int64_t k = line_index_; k < index; ++k) {
        const void* nl =
            std::memchr(text_.data() + start, '\n', text_.size() - start);
        if (nl == nullptr) return false;
        start = static_cast<const char*>(nl) - text_.data() + 1;
      }
    }
    const void* nl =
        std::memchr(text_.data() + start, '\n', text_.size() - start);
    *begin = start;
    *end = nl == nullptr ? text_.size()
                         : static_cast<const char*>(nl) - text_.data();
    return true;
  }

  // Line `number` (1-based, the answer's) without its terminator, "" past
  // the end (and above the text: the lines before it read as empty).
  absl::string_view LineContent(int number) const {
    size_t begin, end;
    if (!LineBounds(number - 1 - above_, &begin, &end)) return {};
    if (end < text_.size() && end > begin && text_[end - 1] == '\r') --end;
    return text_.substr(begin, end - begin);
  }

  // Number of lines with index <= limit, i.e. min(total lines, limit + 1).
  int64_t LinesThrough(int64_t limit) const {
    if (limit <= line_index_) return limit + 1;
    size_t start = line_start_;
    int64_t count = line_index_ + 1;
    while (count <= limit) {
      const void* nl =
          std::memchr(text_.data() + start, '\n', text_.size() - start);
      if (nl == nullptr) break;
      start = static_cast<const char*>(nl) - text_.data() + 1;
      ++count;
    }
    return count;
  }

  // The reference's five-line window around line `number`, split on "\n"
  // only (so CRs stay), shifted to stay inside the input. Lines are the
  // answer's: the `above_` lines before the text read as empty ones.
  std::string Context(int number) const {
    const int64_t target = number - 1;
    const int64_t reach =
        std::max<int64_t>(target + kContextRadius, kContextLines);
    const int64_t known = reach < above_ ? reach + 1 : above_ + LinesThrough(reach - above_);
    if (known <= kContextLines) return std::string(static_cast<size_t>(above_), '\n') + std::string(text_);
    int64_t start = target - kContextRadius;
    int64_t end = target + kContextRadius;
    if (start < 0) {
      end -= start;
      start = 0;
    } else if (known <= end) {  // the input ends inside the window: `known` is
                                // the line count
      start -= end - known + 1;
      end = known - 1;
    }
    start = std::max<int64_t>(start, 0);
    // The empty lines above the text, each ended by its '\n'.
    std::string out;
    if (start < above_) {
      if (end < above_) return std::string(static_cast<size_t>(end - start), '\n');
      out.assign(static_cast<size_t>(above_ - start), '\n');
      start = above_;
    }
    size_t begin, unused, last_begin, finish;
    if (!LineBounds(start - above_, &begin, &unused) ||
        !LineBounds(end - above_, &last_begin, &finish))
      return {};
    out.append(text_.data() + begin, finish - begin);
    return out;
  }

  // False once kMaxReportedErrors errors and the too_many_errors marker are
  // recorded: callers skip building messages nobody will see.
  bool Reporting() const { return result_.errors.size() <= kMaxReportedErrors; }

  // `length` < 0 means the whole line.
  void AddError(std::string code, int number, std::string message, int column,
                int length = -1) {
    if (result_.errors.size() > kMaxReportedErrors) return;
    if (result_.errors.size() == kMaxReportedErrors) {
      code = "too_many_errors";
      message = absl::StrCat("More than ", kMaxReportedErrors,
                             " syntax errors; the rest are not reported. Fix "
                             "these and parse again.");
      column = 0;
      length = 0;
    }
    ParseError e;
    e.code = std::move(code);
    e.line = number;
    e.column = column + 1;
    const absl::string_view content = LineContent(number);
    e.length = length >= 0 ? length : ToInt(internal::Utf16Length(content));
    if (block_) e.block_id = block_->id;
    e.content = std::string(content);
    e.context = Context(number);
    e.message = std::move(message);
    result_.errors.push_back(std::move(e));
  }

  const absl::string_view text_;
  const std::function<void(Block&&)>* on_block_;  // null: blocks go to result_
  const int64_t above_;  // the answer's lines before the text
  ParseResult result_;

  // The line being processed.
  absl::string_view line_;
  size_t line_start_ = 0;
  int64_t line_index_ = 0;
  size_t line_starts_[kRingSize] = {};

  State state_ = State::kSeekingHeader;
  std::optional<Block> block_;
  size_t block_body_offset_ = 0;  // just after the open block's header
  const Dialect* dialect_ = nullptr;
  internal::KeyIndex keys_;  // the block's keys, as views into text_

  absl::string_view heredoc_key_;
  int heredoc_open_line_ = 0;
  absl::string_view heredoc_delimiter_;
  size_t heredoc_next_ = kNpos;  // next occurrence of the delimiter in text_
  bool heredoc_has_content_ = false;
  size_t heredoc_body_start_ = 0;
  size_t heredoc_content_end_ = 0;
};

ParseResult Parse(absl::string_view input, const ParseOptions& options,
                  const std::function<void(Block&&)>* on_block) {
  const size_t max_bytes = options.max_bytes;
  if (input.size() > max_bytes) {
    ParseResult result;
    ParseError e;
    e.code = "input_too_large";
    e.line = options.first_line;
    e.column = 1;
    e.length = 0;
    e.message = absl::StrCat(
        "Input is ", input.size(), " bytes; the block parser accepts at most ",
        max_bytes, " bytes. Send a shorter response or split it.");
    result.errors.push_back(std::move(e));
    return result;
  }
  if (core::IsValidUtf8(input)) return BlockParser(input, options.first_line, on_block).Run();
  // Decode as Node does: each ill-formed sequence becomes U+FFFD.
  const std::string repaired = internal::ReplaceInvalidUtf8(input);
  return BlockParser(repaired, options.first_line, on_block).Run();
}

}  // namespace

ParseResult ParseBlocks(absl::string_view input, size_t max_bytes) {
  return Parse(input, ParseOptions{max_bytes}, nullptr);
}

ParseResult ParseBlocks(absl::string_view input, size_t max_bytes, const std::function<void(Block&&)>& on_block) {
  return Parse(input, ParseOptions{max_bytes}, &on_block);
}

ParseResult ParseBlocks(absl::string_view input, const ParseOptions& options) {
  return Parse(input, options, nullptr);
}

}  // namespace clada::sham_parser
