#include "proj/comp/replacer-reader/src/replacer_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/newlines.h"

namespace clada::replacer_reader {
namespace {

enum class Kind { kExplanation, kFile, kSearch, kReplace, kOverwrite, kEnd };

// A marker line: bytes [begin, end()) (end() after its line break) and its
// line. 16 bytes: an answer of 861,000 blocks at the input limit holds 3.4
// million markers (110 MB at 32 bytes each).
struct Marker {
  static constexpr size_t kMaxLength = (size_t{1} << 29) - 1;
  Marker(Kind k, size_t b, size_t e, int l)
      : begin(b), line(l), length(static_cast<uint32_t>(e - b)), kind_(static_cast<uint32_t>(k)) {}
  size_t begin;
  int line;
  uint32_t length : 29;  // of the marker's line, its trailing blanks and line break included
  Kind kind() const { return static_cast<Kind>(kind_); }
  size_t end() const { return begin + length; }

 private:
  uint32_t kind_ : 3;
};
static_assert(sizeof(Marker) == 16, "a marker is 16 bytes");

const char* Name(Kind k) {
  switch (k) {
    case Kind::kExplanation: return "<<<EXPLANATION>>>";
    case Kind::kFile: return "<<<FILE>>>";
    case Kind::kSearch: return "<<<SEARCH>>>";
    case Kind::kReplace: return "<<<REPLACE>>>";
    case Kind::kOverwrite: return "<<<OVERWRITE>>>";
    case Kind::kEnd: return "<<<END>>>";
  }
  return "";
}

// A block starts at EXPLANATION or FILE: a broken block ends before one.
bool StartsBlock(Kind k) { return k == Kind::kExplanation || k == Kind::kFile; }

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// The marker named by `name` (what is between `<<<` and `>>>`), if any.
std::optional<Kind> KindOf(absl::string_view name) {
  switch (name.size()) {
    case 3:
      if (name == "END") return Kind::kEnd;
      break;
    case 4:
      if (name == "FILE") return Kind::kFile;
      break;
    case 6:
      if (name == "SEARCH") return Kind::kSearch;
      break;
    case 7:
      if (name == "REPLACE") return Kind::kReplace;
      break;
    case 9:
      if (name == "OVERWRITE") return Kind::kOverwrite;
      break;
    case 11:
      if (name == "EXPLANATION") return Kind::kExplanation;
      break;
  }
  return std::nullopt;
}

// Every marker line of `text`, in order, and the number of the text's last
// line. Only a `<` at the start of a line is looked at, found by memchr, so
// prose and code between markers cost one pass of memchr and line counting.
// Lines count from `first_line`.
std::vector<Marker> FindMarkers(absl::string_view text, int first_line, int* last_line) {
  std::vector<Marker> out;
  const char* const base = text.data();
  const size_t size = text.size();
  // The end of the marker line starting at `at` (after its break), or 0.
  auto marker_end = [&](size_t at, Kind* kind) -> size_t {
    if (size - at < 9 || base[at + 1] != '<' || base[at + 2] != '<') return 0;
    size_t close = at + 3;
    while (close < size && close - at < 3 + 11 + 1 && absl::ascii_isupper(static_cast<unsigned char>(base[close]))) {
      ++close;
    }
    if (size - close < 3 || std::memcmp(base + close, ">>>", 3) != 0) return 0;
    std::optional<Kind> k = KindOf(text.substr(at + 3, close - at - 3));
    if (!k) return 0;
    size_t end = close + 3;
    while (end < size && IsBlank(base[end])) ++end;
    if (end < size && base[end] != '\n') return 0;
    const size_t line_end = end < size ? end + 1 : end;
    // A line of more than 512 MiB (blanks after the marker) is text.
    if (line_end - at > Marker::kMaxLength) return 0;
    *kind = *k;
    return line_end;
  };
  // Room for every marker, counted first: 300,000 blocks have 1.2 million
  // markers, which a vector grown by doubling held twice over while it
  // moved (100 MB, not 38). Counted exactly: a line that only starts like
  // one (`<<<A`) takes no room.
  {
    Kind unused;
    size_t markers = absl::StartsWith(text, "<") && marker_end(0, &unused) != 0 ? 1 : 0;
    for (size_t at = text.find("\n<<<"); at != absl::string_view::npos; at = text.find("\n<<<", at + 1)) {
      if (marker_end(at + 1, &unused) != 0) ++markers;
    }
    out.reserve(markers);
  }
  size_t counted = 0;  // line breaks counted up to here
  int line = first_line;
  size_t pos = 0;
  while (pos < size) {
    const void* hit = std::memchr(base + pos, '<', size - pos);
    if (hit == nullptr) break;
    const size_t at = static_cast<size_t>(static_cast<const char*>(hit) - base);
    Kind kind;
    const size_t end = at == 0 || base[at - 1] == '\n' ? marker_end(at, &kind) : 0;
    if (end == 0) {
      // A marker only starts a line: go on from the next line (a line of
      // code or HTML may hold many '<').
      const void* nl = std::memchr(base + at, '\n', size - at);
      pos = nl == nullptr ? size : static_cast<size_t>(static_cast<const char*>(nl) - base) + 1;
      continue;
    }
    line += static_cast<int>(core::CountNewlines(base + counted, at - counted));
    counted = at;
    out.emplace_back(kind, at, end, line);
    pos = end;
  }
  line += static_cast<int>(core::CountNewlines(base + counted, size - counted));
  // The last line: a final line break ends it, it starts none.
  *last_line = size == 0 ? first_line - 1 : base[size - 1] == '\n' ? line - 1 : line;
  return out;
}

// Reads the markers into edits and errors.
class Reader {
 public:
  Reader(absl::string_view text, const absl::FunctionRef<void(Edit&&)>* on_edit = nullptr,
         const absl::FunctionRef<void(ParseError&&)>* on_error = nullptr, const ReadOptions& options = {})
      : text_(text),
        first_byte_(options.first_byte),
        markers_(FindMarkers(text, options.first_line, &last_line_)),
        on_edit_(on_edit),
        on_error_(on_error) {}

  Blocks Read() {
    while (i_ < markers_.size()) ReadBlock();
    return std::move(out_);
  }

 private:
  // Kept, or handed to on_edit_.
  void Emit(Edit&& e) {
    if (on_edit_ != nullptr) {
      (*on_edit_)(std::move(e));
    } else {
      out_.edits.push_back(std::move(e));
    }
  }

  const Marker* At(size_t k) const { return k < markers_.size() ? &markers_[k] : nullptr; }

  // The text between marker k's line and the next marker (or the end).
  absl::string_view Between(size_t k) const {
    const size_t from = markers_[k].end();
    const size_t to = k + 1 < markers_.size() ? markers_[k + 1].begin : text_.size();
    return text_.substr(from, to - from);
  }

  SourceSpan SpanTo(const Marker& first, size_t end, int last_line) const {
    return SourceSpan{first_byte_ + first.begin, first_byte_ + end, first.line, last_line};
  }
  // Through marker k's line.
  SourceSpan SpanThrough(const Marker& first, size_t k) const {
    return SpanTo(first, markers_[k].end(), markers_[k].line);
  }
  // Up to marker k's line, or to the end when there is no marker k.
  SourceSpan SpanBefore(const Marker& first, size_t k) const {
    if (k >= markers_.size()) return SpanTo(first, text_.size(), last_line_);
    return SpanTo(first, markers_[k].begin, markers_[k].line - 1);
  }

  void Error(int number, const Marker& first, std::string code, std::string message, std::string fix,
             SourceSpan span) {
    ParseError e{number, std::move(code), first.line, std::move(message), std::move(fix), span};
    if (on_error_ != nullptr) {
      (*on_error_)(std::move(e));
    } else {
      out_.errors.push_back(std::move(e));
    }
  }

  // An error whose block runs to the next `<<<END>>>` (included) or up to
  // the next block's first marker, whichever comes first, from marker k.
  void ErrorThroughEnd(int number, const Marker& first, size_t k, std::string code, std::string message,
                       std::string fix) {
    while (k < markers_.size() && markers_[k].kind() != Kind::kEnd && !StartsBlock(markers_[k].kind())) ++k;
    if (k < markers_.size() && markers_[k].kind() == Kind::kEnd) {
      Error(number, first, std::move(code), std::move(message), std::move(fix), SpanThrough(first, k));
      i_ = k + 1;
    } else {
      Error(number, first, std::move(code), std::move(message), std::move(fix), SpanBefore(first, k));
      i_ = k;
    }
  }

  // A block left open by marker k (the next block's marker, or the end).
  void Unclosed(int number, const Marker& first, const Marker& open, size_t k, absl::string_view expected) {
    const Marker* next = At(k);
    std::string where = next == nullptr
                            ? "before the end of the answer (the lines after it were read as its text)"
                            : absl::StrCat("before ", Name(next->kind()), " at line ", next->line);
    Error(number, first, "unclosed_block",
          absl::StrCat(Name(open.kind()), " at line ", open.line, " has no ", expected, " ", where,
                       ": every block ends with <<<END>>>"),
          absl::StrCat("close the block with ", expected, " on a line of its own, then send it again"),
          SpanBefore(first, k));
    i_ = k;
  }

  void ReadBlock() {
    const int number = ++blocks_;
    const Marker& first = markers_[i_];
    std::string explanation;
    size_t k = i_;
    if (first.kind() == Kind::kEnd) {
      Error(number, first, "stray_end",
            absl::StrCat("<<<END>>> at line ", first.line, " closes no block: a block is <<<FILE>>>, then "
                         "<<<SEARCH>>> ... <<<REPLACE>>> ... <<<END>>> or <<<OVERWRITE>>> ... <<<END>>>"),
            "if a block lost its opening markers, send it again whole; otherwise remove the <<<END>>> line",
            SpanThrough(first, k));
      i_ = k + 1;
      return;
    }
    if (first.kind() == Kind::kExplanation) {
      explanation = std::string(absl::StripAsciiWhitespace(Between(k)));
      ++k;
      const Marker* next = At(k);
      if (next == nullptr || next->kind() == Kind::kExplanation || next->kind() == Kind::kEnd) {
        Error(number, first, "explanation_without_edit",
              absl::StrCat("<<<EXPLANATION>>> at line ", first.line, " is followed by ",
                           next == nullptr ? "no edit before the end of the answer"
                                           : absl::StrCat(Name(next->kind()), " at line ", next->line),
                           ": an explanation is followed by <<<FILE>>> and its edit"),
              "after the explanation write <<<FILE>>>, the file's path on its own line, then <<<SEARCH>>> ... "
              "<<<REPLACE>>> ... <<<END>>> or <<<OVERWRITE>>> ... <<<END>>>",
              next != nullptr && next->kind() == Kind::kEnd ? SpanThrough(first, k) : SpanBefore(first, k));
        i_ = next != nullptr && next->kind() == Kind::kEnd ? k + 1 : k;
        return;
      }
    }
    const Marker& head = markers_[k];
    if (head.kind() == Kind::kSearch || head.kind() == Kind::kOverwrite) {
      ErrorThroughEnd(number, first, k, "missing_file",
                      absl::StrCat(Name(head.kind()), " at line ", head.line,
                                   " has no <<<FILE>>> before it: every SEARCH or OVERWRITE needs its own "
                                   "<<<FILE>>> right before it (a FILE is used by one edit only)"),
                      absl::StrCat("write <<<FILE>>> and the file's path on its own line right before ",
                                   Name(head.kind()), ", then send the block again"));
      return;
    }
    if (head.kind() == Kind::kReplace) {
      ErrorThroughEnd(number, first, k, "replace_without_search",
                      absl::StrCat("<<<REPLACE>>> at line ", head.line,
                                   " has no <<<SEARCH>>> before it: an edit is <<<SEARCH>>> (the exact text "
                                   "to find) then <<<REPLACE>>> (its replacement) then <<<END>>>"),
                      "write <<<SEARCH>>> and the exact lines to change before <<<REPLACE>>>, or use "
                      "<<<OVERWRITE>>> ... <<<END>>> for a whole file");
      return;
    }
    // head is FILE (EXPLANATION and END were handled above).
    const Marker& file = head;
    const absl::string_view path_text = Between(k);
    ++k;
    const Marker* edit = At(k);
    if (edit == nullptr || StartsBlock(edit->kind()) || edit->kind() == Kind::kEnd) {
      const bool through = edit != nullptr && edit->kind() == Kind::kEnd;
      Error(number, first, "file_without_edit",
            absl::StrCat("<<<FILE>>> at line ", file.line, " is followed by ",
                         edit == nullptr ? "no edit before the end of the answer"
                                         : absl::StrCat(Name(edit->kind()), " at line ", edit->line),
                         ": a FILE is followed by <<<SEARCH>>> ... <<<REPLACE>>> ... <<<END>>> or "
                         "<<<OVERWRITE>>> ... <<<END>>>"),
            "after the path write the edit: <<<SEARCH>>>, the exact lines to change, <<<REPLACE>>>, their "
            "replacement, <<<END>>>; or <<<OVERWRITE>>>, the whole file, <<<END>>>",
            through ? SpanThrough(first, k) : SpanBefore(first, k));
      i_ = through ? k + 1 : k;
      return;
    }
    if (edit->kind() == Kind::kReplace) {
      ErrorThroughEnd(number, first, k, "replace_without_search",
                      absl::StrCat("<<<REPLACE>>> at line ", edit->line,
                                   " has no <<<SEARCH>>> before it: after FILE an edit is <<<SEARCH>>> (the "
                                   "exact text to find) then <<<REPLACE>>> then <<<END>>>"),
                      "write <<<SEARCH>>> and the exact lines to change before <<<REPLACE>>>, or use "
                      "<<<OVERWRITE>>> ... <<<END>>> for a whole file");
      return;
    }
    // The path: the one line between FILE and the edit that is neither blank
    // nor a code fence.
    std::vector<absl::string_view> lines;
    for (absl::string_view rest = path_text; !rest.empty();) {
      const size_t nl = rest.find('\n');
      absl::string_view line = absl::StripAsciiWhitespace(rest.substr(0, nl));
      rest = nl == absl::string_view::npos ? absl::string_view() : rest.substr(nl + 1);
      if (line.empty() || absl::StartsWith(line, "```") || absl::StartsWith(line, "~~~")) continue;
      lines.push_back(line);
    }
    if (lines.size() != 1) {
      const bool none = lines.empty();
      ErrorThroughEnd(number, first, k, none ? "missing_path" : "ambiguous_path",
                      none ? absl::StrCat("<<<FILE>>> at line ", file.line, " names no file before ",
                                          Name(edit->kind()), " at line ", edit->line,
                                          ": the path goes on its own line after <<<FILE>>>")
                           : absl::StrCat("<<<FILE>>> at line ", file.line, " has ", lines.size(),
                                          " lines before ", Name(edit->kind()), " at line ", edit->line, " ('",
                                          lines[0], "', '", lines[1],
                                          "'): the path goes alone on its own line after <<<FILE>>>"),
                      "write the file's path (relative to the project root, or absolute) alone on the line "
                      "after <<<FILE>>>");
      return;
    }
    std::string path(lines[0]);
    if (path.size() >= 2 && path.front() == '`' && path.back() == '`') path = path.substr(1, path.size() - 2);
    const Marker& opener = *edit;
    const absl::string_view body = Between(k);
    ++k;
    const Marker* next = At(k);
    Edit e;
    e.number = number;
    e.set_explanation(std::move(explanation));
    e.path = std::move(path);
    e.file_line = file.line;
    e.edit_line = opener.line;
    if (opener.kind() == Kind::kOverwrite) {
      if (next == nullptr || StartsBlock(next->kind())) return Unclosed(number, first, opener, k, "<<<END>>>");
      if (next->kind() != Kind::kEnd) {
        ErrorThroughEnd(number, first, k, "unexpected_marker",
                        absl::StrCat(Name(next->kind()), " at line ", next->line, " inside <<<OVERWRITE>>> at line ",
                                     opener.line, ": OVERWRITE holds the whole file and ends with <<<END>>>"),
                        "end the content with <<<END>>>; a SEARCH/REPLACE edit is a block of its own with "
                        "its own <<<FILE>>>");
        return;
      }
      e.kind = EditKind::kOverwrite;
      e.replace = std::string(body);
      e.span = SpanThrough(first, k);
      Emit(std::move(e));
      i_ = k + 1;
      return;
    }
    // SEARCH
    if (next == nullptr || StartsBlock(next->kind())) return Unclosed(number, first, opener, k, "<<<REPLACE>>>");
    if (next->kind() == Kind::kEnd) {
      Error(number, first, "missing_replace",
            absl::StrCat("<<<SEARCH>>> at line ", opener.line, " is closed by <<<END>>> at line ", next->line,
                         " without <<<REPLACE>>>: an edit is SEARCH, REPLACE, END"),
            "write <<<REPLACE>>> and the replacement lines before <<<END>>> (to remove the text, a REPLACE "
            "holding one blank line)",
            SpanThrough(first, k));
      i_ = k + 1;
      return;
    }
    if (next->kind() != Kind::kReplace) {
      ErrorThroughEnd(number, first, k, "unexpected_marker",
                      absl::StrCat(Name(next->kind()), " at line ", next->line, " inside <<<SEARCH>>> at line ",
                                   opener.line, ": an edit is SEARCH, REPLACE, END"),
                      "write <<<REPLACE>>> after the lines to find and <<<END>>> after the replacement");
      return;
    }
    const absl::string_view replace = Between(k);
    ++k;
    const Marker* end = At(k);
    if (end == nullptr || StartsBlock(end->kind())) return Unclosed(number, first, markers_[k - 1], k, "<<<END>>>");
    if (end->kind() != Kind::kEnd) {
      ErrorThroughEnd(number, first, k, "unexpected_marker",
                      absl::StrCat(Name(end->kind()), " at line ", end->line, " inside <<<REPLACE>>> at line ",
                                   markers_[k - 1].line, ": an edit is SEARCH, REPLACE, END"),
                      "end the replacement with <<<END>>>; a second edit is a block of its own with its own "
                      "<<<FILE>>>");
      return;
    }
    if (absl::StripAsciiWhitespace(body).empty()) {
      Error(number, first, "empty_search",
            absl::StrCat("<<<SEARCH>>> at line ", opener.line,
                         " is empty: SEARCH holds the exact lines to change, found exactly once"),
            "put the smallest unique lines to change between <<<SEARCH>>> and <<<REPLACE>>>; to create or "
            "replace a whole file use <<<OVERWRITE>>> ... <<<END>>>",
            SpanThrough(first, k));
      i_ = k + 1;
      return;
    }
    e.kind = EditKind::kSearchReplace;
    e.search = std::string(body);
    e.replace = std::string(replace);
    e.removes = absl::StripAsciiWhitespace(replace).empty();
    e.span = SpanThrough(first, k);
    Emit(std::move(e));
    i_ = k + 1;
  }

  absl::string_view text_;
  size_t first_byte_;  // of text_ in its answer: spans are the answer's bytes
  int last_line_ = 0;
  std::vector<Marker> markers_;
  size_t i_ = 0;
  int blocks_ = 0;
  const absl::FunctionRef<void(Edit&&)>* on_edit_;
  const absl::FunctionRef<void(ParseError&&)>* on_error_;
  Blocks out_;
};

// Leading blank lines of `text` (each with its break): how many, and the
// byte length they take.
std::pair<int, size_t> LeadingBlankLines(absl::string_view text) {
  int n = 0;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    if (nl == absl::string_view::npos) break;
    if (!absl::StripAsciiWhitespace(text.substr(at, nl - at)).empty()) break;
    ++n;
    at = nl + 1;
  }
  return {n, at};
}

}  // namespace

Blocks ReadBlocks(absl::string_view text) { return Reader(text).Read(); }

Blocks ReadBlocks(absl::string_view text, absl::FunctionRef<void(Edit&&)> on_edit) {
  return Reader(text, &on_edit).Read();
}

void ReadBlocks(absl::string_view text, absl::FunctionRef<void(Edit&&)> on_edit,
                absl::FunctionRef<void(ParseError&&)> on_error) {
  Reader(text, &on_edit, &on_error).Read();
}

void ReadBlocks(absl::string_view text, const ReadOptions& options, absl::FunctionRef<void(Edit&&)> on_edit,
                absl::FunctionRef<void(ParseError&&)> on_error) {
  Reader(text, &on_edit, &on_error, options).Read();
}

std::vector<SourceSpan> FindBlocks(absl::string_view text) {
  // Streamed in the answer's order: only the spans are kept.
  std::vector<SourceSpan> out;
  ReadBlocks(
      text, [&out](Edit&& e) { out.push_back(e.span); }, [&out](ParseError&& e) { out.push_back(e.span); });
  return out;
}

core::Action ToAction(const Edit& edit) {
  core::Action a;
  a.metadata.block_id = absl::StrCat("rep-", edit.number);
  a.metadata.start_line = edit.span.first_line;
  a.metadata.end_line = edit.span.last_line;
  a.metadata.explanation = edit.explanation();
  a.params["path"] = edit.path;
  if (edit.kind == EditKind::kOverwrite) {
    a.name = "file_write";
    a.params["content"] = edit.replace;
    a.line_params.push_back("content");
    return a;
  }
  a.name = "file_replace_text";
  std::string search = edit.search;
  std::string replace = edit.removes ? std::string() : edit.replace;
  // A blank first line of SEARCH would match the line break ending any
  // line, and the edit would join two lines: left out, with as many of
  // REPLACE's when it starts with blank lines too.
  auto [blank, bytes] = LeadingBlankLines(search);
  if (blank > 0) {
    search.erase(0, bytes);
    const int replace_blank = LeadingBlankLines(replace).first;
    size_t at = 0;
    for (int d = 0; d < std::min(blank, replace_blank); ++d) at = replace.find('\n', at) + 1;
    replace.erase(0, at);
    a.warnings.push_back(absl::StrCat("the ", blank, " blank line(s) at the start of SEARCH were left out of the "
                                      "text to find (a blank first line would join two lines)"));
  }
  a.params["old_text"] = std::move(search);
  a.params["new_text"] = std::move(replace);
  return a;
}

std::vector<core::Action> ToActions(const Blocks& blocks) {
  std::vector<core::Action> out;
  out.reserve(blocks.edits.size());
  for (const Edit& e : blocks.edits) out.push_back(ToAction(e));
  return out;
}

}  // namespace clada::replacer_reader
