#include "proj/comp/csl-parser/src/csl_parser.h"

#include <string.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/types/span.h"
#include "proj/comp/core/src/newlines.h"

namespace clada::csl_parser {
namespace {

constexpr size_t kNpos = absl::string_view::npos;

enum class Kind { kWrite, kRun, kSearch, kTasks, kEnd, kReplace, kTo, kUnknown };

Kind KindOf(absl::string_view name) {
  // By length first: one comparison per marker.
  switch (name.size()) {
    case 2:
      if (name == "TO") return Kind::kTo;
      break;
    case 3:
      if (name == "END") return Kind::kEnd;
      if (name == "RUN") return Kind::kRun;
      break;
    case 5:
      if (name == "WRITE") return Kind::kWrite;
      if (name == "TASKS") return Kind::kTasks;
      break;
    case 6:
      if (name == "SEARCH") return Kind::kSearch;
      break;
    case 7:
      if (name == "REPLACE") return Kind::kReplace;
      break;
  }
  return Kind::kUnknown;
}

// Opens an operation or a block: inside a WRITE or RUN body such a line
// means the body was never closed.
bool IsOpener(Kind k) { return k == Kind::kWrite || k == Kind::kRun || k == Kind::kSearch || k == Kind::kTasks; }

// A marker line: `<start>NAME attrs<end>` from the line's first byte.
struct Marker {
  Kind kind = Kind::kUnknown;
  absl::string_view name;   // in the answer, as every view here
  absl::string_view attrs;  // after the name (empty, or starting with a space)
  size_t begin = 0;         // the line's first byte
  size_t end = 0;           // after its line break
  int line = 0;
};

// Views into the marker line: reading a marker allocates nothing.
struct Attribute {
  absl::string_view name, value;
};
using Attributes = absl::InlinedVector<Attribute, 4>;

// The attributes of a marker, `name="value"` (or single quotes) separated
// by spaces. nullopt and `error` when they cannot be read.
std::optional<Attributes> ParseAttributes(absl::string_view s, std::string* error) {
  Attributes out;
  size_t i = 0;
  while (true) {
    const size_t before = i;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i == s.size()) return out;
    if (i == before) {
      *error = absl::StrCat("'", s, "' must be separated from the name by a space");
      return std::nullopt;
    }
    const size_t name_begin = i;
    while (i < s.size() && (absl::ascii_isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '-')) ++i;
    if (i == name_begin || i == s.size() || s[i] != '=') {
      *error = absl::StrCat("'", s.substr(name_begin), "' is not an attribute: write name=\"value\"");
      return std::nullopt;
    }
    Attribute a;
    a.name = s.substr(name_begin, i - name_begin);
    ++i;
    if (i == s.size() || (s[i] != '"' && s[i] != '\'')) {
      *error = absl::StrCat("the value of ", a.name, " is not quoted: write ", a.name, "=\"", s.substr(i), "\"");
      return std::nullopt;
    }
    const char quote = s[i++];
    const size_t close = s.find(quote, i);
    if (close == kNpos) {
      *error = absl::StrCat("the value of ", a.name, " has no closing quote");
      return std::nullopt;
    }
    a.value = s.substr(i, close - i);
    for (const Attribute& seen : out) {
      if (seen.name == a.name) {
        *error = absl::StrCat(a.name, " is given twice");
        return std::nullopt;
      }
    }
    out.push_back(std::move(a));
    i = close + 1;
  }
}

// The text of a body without its last line break (a SEARCH text, a command).
absl::string_view WithoutFinalBreak(absl::string_view s) {
  if (absl::EndsWith(s, "\r\n")) return s.substr(0, s.size() - 2);
  if (absl::EndsWith(s, "\n")) return s.substr(0, s.size() - 1);
  return s;
}

// `a` and `b` hold `n` equal bytes. Delimiters are a few bytes, compared
// once per candidate line: word loads (the first and last four bytes cover
// four to eight) beat a call to memcmp.
inline bool SameBytes(const char* a, const char* b, size_t n) {
  auto word = [](const char* p) {
    uint32_t w;
    memcpy(&w, p, sizeof w);
    return w;
  };
  if (n >= 4 && n <= 8) return word(a) == word(b) && word(a + n - 4) == word(b + n - 4);
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The first line start at or after `from` (`from` itself when it is one)
// whose line begins with `prefix`, or npos; `*newlines` counts the line
// breaks in [from, that line start). The scan looks 16 bytes at a time for a
// line break followed by prefix[0]; only those are compared. It sees every
// line break on the way, so counting lines costs a popcount per 16 bytes
// rather than a second pass.
size_t FindLineStartWith(absl::string_view text, size_t from, absl::string_view prefix, int* newlines) {
  const size_t n = text.size();
  const char* p = text.data();
  auto matches = [&](size_t at) { return n - at >= prefix.size() && SameBytes(p + at, prefix.data(), prefix.size()); };
  int count = 0;
  *newlines = 0;
  if (from >= n) return kNpos;
  if ((from == 0 || p[from - 1] == '\n') && matches(from)) return from;
  size_t i = from;  // looking for p[i] == '\n' && p[i + 1] == prefix[0]
#ifdef __SSE2__
  // Line breaks are counted as CountNewlines does: each subtracts -1 from
  // its byte lane, and the lanes are summed before any can overflow.
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i first = _mm_set1_epi8(prefix[0]);
  const __m128i zero = _mm_setzero_si128();
  __m128i lanes = zero;
  int pending = 0;
  auto flush = [&]() {
    const __m128i sums = _mm_sad_epu8(lanes, zero);
    count += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    lanes = zero;
    pending = 0;
  };
  for (; i + 17 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 1));
    const __m128i breaks = _mm_cmpeq_epi8(a, nl);
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(breaks, _mm_cmpeq_epi8(b, first))));
    while (mask != 0) {
      const unsigned bit = static_cast<unsigned>(__builtin_ctz(mask));
      const size_t at = i + bit + 1;
      if (matches(at)) {
        // The breaks before this block of 16, then those up to and
        // including the one before `at` (once per marker).
        flush();
        unsigned before = static_cast<unsigned>(_mm_movemask_epi8(breaks)) & ((2u << bit) - 1);
        for (; before != 0; before &= before - 1) ++count;
        *newlines = count;
        return at;
      }
      mask &= mask - 1;
    }
    lanes = _mm_sub_epi8(lanes, breaks);
    if (++pending == 255) flush();
  }
  flush();
#endif
  for (; i + 1 < n; ++i) {
    if (p[i] != '\n') continue;
    ++count;
    if (p[i + 1] == prefix[0] && matches(i + 1)) {
      *newlines = count;
      return i + 1;
    }
  }
  return kNpos;
}

bool IsBlank(absl::string_view s) { return absl::StripAsciiWhitespace(s).empty(); }

// `prefix` and the decimal `n` (n >= 0): a label, made once per operation,
// short enough to stay in the string's own buffer.
std::string Numbered(absl::string_view prefix, int n) {
  char digits[12];
  size_t len = 0;
  unsigned v = static_cast<unsigned>(n);
  do {
    digits[len++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  std::string out(prefix.size() + len, '\0');
  memcpy(&out[0], prefix.data(), prefix.size());
  for (size_t i = 0; i < len; ++i) out[prefix.size() + i] = digits[len - 1 - i];
  return out;
}

class Reader {
 public:
  // `first_line`, `first_byte`: where `text` starts in the answer
  // (ParseOptions).
  Reader(absl::string_view text, const Delimiters& d, const std::vector<LineRange>& skip, bool build,
         bool pack = false, size_t expected_blocks = 0, int first_line = 1, size_t first_byte = 0)
      : text_(text),
        d_(d),
        build_(build),
        pack_(build && pack),
        expected_blocks_(expected_blocks),
        line_(first_line),
        first_byte_(first_byte) {
    for (const LineRange& r : skip) skip_.emplace_back(r.first, std::max(r.first, r.last));
    std::sort(skip_.begin(), skip_.end());
    for (const auto& [first, last] : skip_) furthest_.push_back(furthest_.empty() ? last : std::max(furthest_.back(), last));
  }

  CslParseResult Read() {
    CslParseResult out;
    out_ = &out;
    if (d_.start.empty() || d_.end.empty()) return out;
    out.blocks.reserve(expected_blocks_);
    size_t pos = 0;
    Marker m;
    while (NextMarker(pos, &m)) {
      // Built in place, not built aside and moved in.
      CslBlock& b = out.blocks.emplace_back();
      b.number = static_cast<int>(out.blocks.size());
      b.packed_begin = b.packed_end = out.packed.size();
      const std::string label = Numbered("csl-", b.number);
      if (m.kind == Kind::kTasks) {
        pos = ReadTasks(m, label, &b);
      } else if (m.kind == Kind::kEnd || m.kind == Kind::kReplace || m.kind == Kind::kTo) {
        b.span = Span(m.begin, m.end, m.line);
        b.operation_count = 1;
        b.details().errors.push_back(Stray(m, label));
        pos = m.end;
      } else {
        b.operation_count = 1;
        pos = ReadOperation(m, label, &b);
        b.span = last_span_;
      }
      if (!spaced_warnings_.empty()) {
        for (std::string& w : spaced_warnings_) b.details().warnings.push_back(std::move(w));
        spaced_warnings_.clear();
      }
    }
    // Spans are the text's bytes while it is read; the answer's after.
    if (first_byte_ != 0) {
      for (CslBlock& b : out.blocks) {
        Shift(b.span);
        if (b.operations().empty() && b.errors().empty()) continue;
        for (Operation& op : b.details().operations) Shift(op.span);
        for (CslError& e : b.details().errors) Shift(e.span);
      }
    }
    return out;
  }

 private:
  std::string M(absl::string_view name) const { return absl::StrCat(d_.start, name, d_.end); }

  void Shift(SourceSpan& s) const {
    s.begin += first_byte_;
    s.end += first_byte_;
  }

  // The 1-based line of byte `pos`: counted from the last position asked
  // for, forward or back, so reading the answer counts each byte about once.
  int LineOf(size_t pos) {
    if (pos >= line_pos_) {
      line_ += static_cast<int>(core::CountNewlines(text_.data() + line_pos_, pos - line_pos_));
    } else {
      line_ -= static_cast<int>(core::CountNewlines(text_.data() + pos, line_pos_ - pos));
    }
    line_pos_ = pos;
    return line_;
  }

  SourceSpan Span(size_t begin, size_t end, int first_line) {
    SourceSpan s;
    s.begin = begin;
    s.end = end;
    s.first_line = first_line;
    s.last_line = end > begin ? LineOf(end - 1) : first_line;
    return s;
  }

  bool Skipped(int line) const {
    auto after = std::lower_bound(skip_.begin(), skip_.end(), std::make_pair(line + 1, 0));
    if (after == skip_.begin()) return false;
    return furthest_[static_cast<size_t>(after - skip_.begin()) - 1] >= line;
  }

  // The next marker line starting at or after `from` (a line start).
  bool NextMarker(size_t from, Marker* m) {
    const size_t n = text_.size();
    const absl::string_view start = d_.start, end = d_.end;
    size_t pos = from;
    int line_no = LineOf(from);  // of `pos`; reading goes on where the last marker ended, so this costs nothing
    while (pos < n) {
      int breaks = 0;
      const size_t at = FindLineStartWith(text_, pos, start, &breaks);
      if (at == kNpos) return false;
      line_no += breaks;
      const void* nl = memchr(text_.data() + at, '\n', n - at);
      const size_t eol = nl == nullptr ? n : static_cast<size_t>(static_cast<const char*>(nl) - text_.data());
      const size_t line_end = nl == nullptr ? n : eol + 1;
      pos = line_end;
      const int next_line = nl == nullptr ? line_no : line_no + 1;  // of `pos`
      absl::string_view line = text_.substr(at, eol - at);
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      // Blanks inside the delimiters (`<--- WRITE file="x" --->`): read
      // as the marker, with a warning, when the name is one CSL has.
      size_t lead = 0;
      while (start.size() + lead < line.size() && (line[start.size() + lead] == ' ' || line[start.size() + lead] == '\t')) {
        ++lead;
      }
      if (line.size() < start.size() + lead + end.size() + 1 ||
          !SameBytes(line.data() + line.size() - end.size(), end.data(), end.size()) ||
          !absl::ascii_isalpha(static_cast<unsigned char>(line[start.size() + lead])) ||
          (!skip_.empty() && Skipped(line_no))) {
        line_no = next_line;
        continue;
      }
      absl::string_view inner = line.substr(start.size() + lead, line.size() - start.size() - lead - end.size());
      size_t name_end = 0;
      while (name_end < inner.size() && inner[name_end] != ' ' && inner[name_end] != '\t') ++name_end;
      const bool spaced = lead > 0 || (!inner.empty() && (inner.back() == ' ' || inner.back() == '\t'));
      if (spaced && KindOf(inner.substr(0, name_end)) == Kind::kUnknown) {
        line_no = next_line;
        continue;
      }
      if (spaced && line_no > spaced_warned_) {
        spaced_warned_ = line_no;
        absl::string_view written = line;
        const absl::string_view trimmed = absl::StripTrailingAsciiWhitespace(inner);
        spaced_warnings_.push_back(absl::StrCat("line ", line_no, ": '", written, "' was read as '", start, trimmed,
                                                end, "' (write markers without blanks inside ", start, " and ", end,
                                                ")"));
      }
      // Lines are counted from here on (LineOf).
      line_pos_ = pos;
      line_ = next_line;
      m->name = inner.substr(0, name_end);
      m->kind = KindOf(m->name);
      m->attrs = inner.substr(name_end);
      m->begin = at;
      m->end = line_end;
      m->line = line_no;
      return true;
    }
    return false;
  }

  CslError Error(std::string code, const Marker& m, absl::string_view label, std::string message, std::string fix,
                 size_t end) {
    CslError e;
    e.code = std::move(code);
    e.operation = std::string(m.name);
    e.label = std::string(label);
    e.line = m.line;
    e.message = std::move(message);
    e.fix = std::move(fix);
    e.span = Span(m.begin, end, m.line);
    return e;
  }

  CslError Stray(const Marker& m, absl::string_view label) {
    if (m.kind == Kind::kEnd) {
      return Error("stray_marker", m, label,
                   absl::StrCat(M("END"), " on line ", m.line, " closes nothing: no operation or TASKS block is open"),
                   absl::StrCat("remove it, or check the operation before it: each WRITE, RUN, SEARCH and TASKS ends "
                                "with exactly one ", M("END")),
                   m.end);
    }
    return Error("stray_marker", m, label,
                 absl::StrCat(M(m.name), " on line ", m.line, " is not inside a SEARCH"),
                 absl::StrCat("write ", M("SEARCH file=\"path\""), ", the text to find, ",
                              m.kind == Kind::kTo ? absl::StrCat(M("TO"), " and the range's last text, ") : "",
                              M("REPLACE"), ", the new text and ", M("END")),
                 m.end);
  }

  // A TASKS block from its marker through its END; returns where reading goes on.
  size_t ReadTasks(const Marker& open, const std::string& label, CslBlock* b) {
    b->is_tasks = true;
    // Room for a few operations at once rather than growing 1, 2, 4 and
    // moving each action on the way.
    if (build_ && !pack_) b->details().operations.reserve(4);
    std::vector<std::string> ignored;
    std::string attr_error;
    std::optional<Attributes> attrs = ParseAttributes(open.attrs, &attr_error);
    if (!attrs) {
      b->details().errors.push_back(Error("invalid_attribute", open, label,
                                absl::StrCat("TASKS on line ", open.line, ": ", attr_error),
                                absl::StrCat("write ", M("TASKS"), " or ", M("TASKS version=\"1.0\"")), open.end));
    } else {
      for (const Attribute& a : *attrs) {
        if (a.name == "version") {
          b->details().version = std::string(a.value);
        } else {
          b->details().warnings.push_back(absl::StrCat("TASKS on line ", open.line, ": attribute ", a.name, "=\"", a.value,
                                             "\" is not CSL's (TASKS takes version) and was ignored"));
        }
      }
    }
    size_t pos = open.end;
    int depth = 0;
    bool prose_noted = false;
    const std::string sub_prefix = absl::StrCat(label, ".");  // csl-N.M
    Marker m;
    while (true) {
      const bool found = NextMarker(pos, &m);
      const size_t gap_end = found ? m.begin : text_.size();
      if (!prose_noted && HasProse(text_.substr(pos, gap_end - pos))) {
        prose_noted = true;
        b->details().warnings.push_back(absl::StrCat("TASKS on line ", open.line,
                                           ": text between its operations is not an operation and was ignored"));
      }
      if (!found) {
        const bool covered = !b->errors().empty() && b->errors().back().span.end == text_.size();
        if (!covered) {
          b->details().errors.push_back(Error(
              "unclosed_operation", open, label,
              absl::StrCat("TASKS on line ", open.line, " is never closed: the answer ends before its ", M("END")),
              absl::StrCat("end the block with a line ", M("END"), " after the ", M("END"),
                           " of its last operation"),
              text_.size()));
        }
        b->span = Span(open.begin, text_.size(), open.line);
        return text_.size();
      }
      if (m.kind == Kind::kEnd) {
        if (depth > 0) {
          --depth;
          pos = m.end;
          continue;
        }
        b->span = Span(open.begin, m.end, open.line);
        return m.end;
      }
      if (m.kind == Kind::kTasks) {
        ++depth;
        b->details().errors.push_back(Error(
            "nested_tasks", m, label,
            absl::StrCat("TASKS on line ", m.line, " is inside the TASKS block of line ", open.line,
                         "; TASKS blocks do not nest, so neither block runs"),
            absl::StrCat("close the first block with ", M("END"), " before opening the next, or put every operation "
                         "in one TASKS block"),
            m.end));
        pos = m.end;
        continue;
      }
      if (m.kind == Kind::kReplace || m.kind == Kind::kTo) {
        b->details().errors.push_back(Stray(m, label));
        pos = m.end;
        continue;
      }
      const std::string sub = Numbered(sub_prefix, ++b->operation_count);
      pos = ReadOperation(m, sub, b);
    }
  }

  // Lines other than blank ones and Markdown fences.
  static bool HasProse(absl::string_view gap) {
    size_t i = 0;
    while (i < gap.size()) {
      size_t nl = gap.find('\n', i);
      if (nl == kNpos) nl = gap.size();
      absl::string_view line = absl::StripAsciiWhitespace(gap.substr(i, nl - i));
      if (!line.empty() && !absl::StartsWith(line, "```") && !absl::StartsWith(line, "~~~")) return true;
      i = nl + 1;
    }
    return false;
  }

  // One WRITE, RUN, SEARCH or unknown operation from its marker; adds an
  // Operation or a CslError to `b` and returns where reading goes on.
  size_t ReadOperation(const Marker& open, const std::string& label, CslBlock* b) {
    const size_t errors = b->errors().size(), operations = b->operations().size();
    const size_t next = ReadOperationBody(open, label, b);
    if (b->errors().size() > errors) {
      last_span_ = b->errors().back().span;
    } else if (b->operations().size() > operations) {
      last_span_ = b->operations().back().span;
    }  // a packed operation set last_span_ itself
    return next;
  }

  size_t ReadOperationBody(const Marker& open, const std::string& label, CslBlock* b) {
    const absl::string_view name = open.name;
    if (open.kind == Kind::kUnknown) {
      // Its body runs to its END (or the next operation): not read again.
      size_t pos = open.end, end = text_.size(), next = text_.size();
      Marker m;
      while (NextMarker(pos, &m)) {
        if (m.kind == Kind::kEnd) {
          end = next = m.end;
          break;
        }
        if (IsOpener(m.kind)) {
          end = next = m.begin;
          break;
        }
        pos = m.end;
      }
      for (const char* op : {"WRITE", "RUN", "SEARCH", "TASKS"}) {
        absl::string_view rest = name;
        if (absl::ConsumePrefix(&rest, op) && absl::StrContains(rest, '=')) {
          b->details().errors.push_back(Error(
              "invalid_attribute", open, label,
              absl::StrCat(op, " on line ", open.line, ": no space between the name and its attributes (", name, ")"),
              absl::StrCat("write ", M(absl::StrCat(op, " ", rest, open.attrs))), end));
          return next;
        }
      }
      const std::string upper = absl::AsciiStrToUpper(name);
      const bool known = KindOf(upper) != Kind::kUnknown;
      b->details().errors.push_back(Error(
          "unknown_operation", open, label,
          absl::StrCat(name, " on line ", open.line, " is not a CSL operation",
                       known ? absl::StrCat(": operation names are case-sensitive, write ", upper) : "",
                       "; nothing in it runs"),
          known ? absl::StrCat("write ", M(absl::StrCat(upper, open.attrs)))
                : absl::StrCat("use ", M("WRITE file=\"path\""), " (create or overwrite a file), ", M("SEARCH file=\"path\""),
                               " (edit one) or ", M("RUN"), " (a shell command: mv, rm, mkdir, ...)"),
          end));
      return next;
    }

    // The body: up to END; REPLACE and TO split a SEARCH.
    size_t pos = open.end;
    size_t to_at = kNpos, to_end = 0, replace_at = kNpos, replace_end = 0;
    std::optional<CslError> problem;
    Marker m;
    while (true) {
      if (!NextMarker(pos, &m)) {
        if (!problem) {
          problem = Error("unclosed_operation", open, label,
                          absl::StrCat(name, " on line ", open.line, " is never closed: the answer ends before its ",
                                       M("END")),
                          absl::StrCat("end the ", name, "'s text with a line ", M("END")), text_.size());
        }
        problem->span = Span(open.begin, text_.size(), open.line);
        b->details().errors.push_back(std::move(*problem));
        return text_.size();
      }
      if (m.kind == Kind::kEnd) break;
      if (IsOpener(m.kind)) {
        b->details().errors.push_back(Error(
            "unclosed_operation", open, label,
            absl::StrCat(name, " on line ", open.line, " is never closed: line ", m.line, " starts ", m.name,
                         " before its ", M("END")),
            absl::StrCat("end the ", name, "'s text with a line ", M("END"), " before line ", m.line, " (its text cannot "
                         "hold a line that starts an operation)"),
            m.begin));
        return m.begin;
      }
      if (open.kind == Kind::kSearch && !problem) {
        if (m.kind == Kind::kTo) {
          if (to_at != kNpos || replace_at != kNpos) {
            problem = Error("stray_marker", open, label,
                            absl::StrCat("SEARCH on line ", open.line, " has ",
                                         replace_at != kNpos ? absl::StrCat("a ", M("TO"), " after its ", M("REPLACE"))
                                                             : absl::StrCat("a second ", M("TO")),
                                         " (line ", m.line, ")"),
                            absl::StrCat("one SEARCH is: the text, optionally ", M("TO"), " and the range's last text, ",
                                         M("REPLACE"), ", the new text, ", M("END")),
                            m.end);
          } else {
            to_at = m.begin;
            to_end = m.end;
          }
        } else if (m.kind == Kind::kReplace) {
          if (replace_at != kNpos) {
            problem = Error("missing_replace", open, label,
                            absl::StrCat("SEARCH on line ", open.line, " has a second ", M("REPLACE"), " (line ", m.line,
                                         ")"),
                            absl::StrCat("give each replacement its own ", M("SEARCH file=\"path\""), " ... ",
                                         M("END")),
                            m.end);
          } else {
            replace_at = m.begin;
            replace_end = m.end;
          }
        }
      }
      pos = m.end;
    }
    const size_t body_end = m.begin;
    const int end_line = m.line;
    const size_t next = m.end;
    if (!build_ && !problem) {
      // Spans only (FindCsl): a checked operation and a refused one cover
      // the same lines.
      last_span_ = Span(open.begin, next, open.line);
      return next;
    }
    if (problem) {
      problem->span = Span(open.begin, next, open.line);
      b->details().errors.push_back(std::move(*problem));
      return next;
    }

    // Everything is checked first and the operation then built in place in
    // `b`: each action's strings are made once, from views of the answer,
    // and moved nowhere (at 15,000 actions in 5 MB the building is the cost).
    auto fail = [&](std::string code, std::string message, std::string fix) {
      b->details().errors.push_back(Error(std::move(code), open, label, std::move(message), std::move(fix), next));
      return next;
    };
    std::string attr_error;
    std::optional<Attributes> attrs = ParseAttributes(open.attrs, &attr_error);
    if (!attrs) {
      return fail("invalid_attribute", absl::StrCat(name, " on line ", open.line, ": ", attr_error),
                  absl::StrCat("write the marker as ", M(absl::StrCat(name, " file=\"path/to/file\""))));
    }
    static const std::vector<absl::string_view> kWriteAttributes = {"file", "append"}, kRunAttributes = {"dir"},
                                                 kSearchAttributes = {"file", "count"};
    const std::vector<absl::string_view>& allowed = open.kind == Kind::kWrite ? kWriteAttributes
                                                    : open.kind == Kind::kRun ? kRunAttributes
                                                                              : kSearchAttributes;
    std::vector<std::string> warnings;
    std::string case_hint;  // `File=` given for `file=`
    auto get = [&](absl::string_view key) -> const absl::string_view* {
      for (const Attribute& a : *attrs) {
        if (a.name == key) return &a.value;
      }
      return nullptr;
    };
    for (const Attribute& a : *attrs) {
      if (std::find(allowed.begin(), allowed.end(), a.name) != allowed.end()) continue;
      std::string hint;
      for (absl::string_view k : allowed) {
        if (absl::EqualsIgnoreCase(k, a.name)) {
          hint = absl::StrCat("; attribute names are case-sensitive: ", k);
          case_hint = absl::StrCat(" (", a.name, "= is not ", k, "=: attribute names are case-sensitive)");
        }
      }
      warnings.push_back(absl::StrCat(name, " on line ", open.line, ": attribute ", a.name, "=\"", a.value,
                                      "\" is not CSL's (", name, " takes ", absl::StrJoin(allowed, ", "),
                                      ") and was ignored", hint));
    }
    const absl::string_view* file = get("file");
    if (open.kind != Kind::kRun && (file == nullptr || file->empty())) {
      return fail("missing_attribute",
                  absl::StrCat(name, " on line ", open.line, file == nullptr ? " has no file attribute" : " has an empty file",
                               case_hint),
                  absl::StrCat("name the file: ", M(absl::StrCat(name, " file=\"path/to/file\""))));
    }

    // The action's name and its texts, as views of the answer.
    const char* action = nullptr;
    absl::string_view body = text_.substr(open.end, body_end - open.end);
    absl::string_view search, last, replace;  // SEARCH
    const absl::string_view* dir = nullptr;   // RUN
    int64_t count = 1;
    bool every = false;
    if (open.kind == Kind::kWrite) {
      const absl::string_view* append = get("append");
      if (append != nullptr && *append != "true" && *append != "false") {
        return fail("invalid_attribute",
                    absl::StrCat("WRITE on line ", open.line, ": append=\"", *append, "\" is neither true nor false"),
                    absl::StrCat("write append=\"true\" to add to the file, or leave it out to overwrite it"));
      }
      action = append != nullptr && *append == "true" ? "file_append" : "file_write";
    } else if (open.kind == Kind::kRun) {
      body = WithoutFinalBreak(body);
      if (IsBlank(body)) {
        return fail("empty_command", absl::StrCat("RUN on line ", open.line, " has no command"),
                    absl::StrCat("put the command on the lines between ", M("RUN"), " and ", M("END"),
                                 ", or leave the RUN out"));
      }
      action = "exec";
      dir = get("dir");
    } else {  // SEARCH
      if (replace_at == kNpos) {
        return fail("missing_replace",
                    absl::StrCat("SEARCH on line ", open.line, " reaches its ", M("END"), " on line ", end_line,
                                 " without a ", M("REPLACE")),
                    absl::StrCat("put ", M("REPLACE"), " and the new text between the text to find and ", M("END"),
                                 " (an empty new text deletes the text found)"));
      }
      const absl::string_view* c = get("count");
      if (c != nullptr) {
        int64_t n = 0;
        if (*c == "all") {
          every = true;
        } else if (absl::SimpleAtoi(*c, &n) && n >= 1 && absl::ascii_isdigit(static_cast<unsigned char>((*c)[0]))) {
          count = n;
        } else {
          return fail("invalid_attribute",
                      absl::StrCat("SEARCH on line ", open.line, ": count=\"", *c,
                                   "\" is neither a whole number of 1 or more nor all"),
                      "give the exact number of matches expected (count=\"2\"), or count=\"all\" for every one (at least one)");
        }
      }
      const size_t search_end = to_at != kNpos ? to_at : replace_at;
      search = WithoutFinalBreak(text_.substr(open.end, search_end - open.end));
      replace = WithoutFinalBreak(text_.substr(replace_end, body_end - replace_end));
      if (search.empty()) {
        return fail("empty_search",
                    absl::StrCat("SEARCH on line ", open.line, " has no text to find before its ",
                                 to_at != kNpos ? M("TO") : M("REPLACE")),
                    absl::StrCat("put the exact lines to find right after the ", M("SEARCH file=\"...\""),
                                 " line (to write a whole file, use ", M("WRITE file=\"...\""), ")"));
      }
      if (to_at != kNpos) {
        last = WithoutFinalBreak(text_.substr(to_end, replace_at - to_end));
        if (last.empty()) {
          return fail("empty_search",
                      absl::StrCat("SEARCH on line ", open.line, " has no text between ", M("TO"), " and ", M("REPLACE")),
                      absl::StrCat("after ", M("TO"), " give the exact last line(s) of the range to replace"));
        }
        action = "file_replace_text_range";
      } else {
        action = "file_replace_all_text";
      }
    }

    // The parameters in schema order, as views of the answer: packed as
    // they are (clada's path: no core::Action is made, and no string
    // allocated, for an operation) or made into the operation's action.
    core::PackedParam params[5];
    size_t n = 0;
    if (open.kind == Kind::kWrite) {
      params[n++] = core::PackedParam::String("path", *file);
      params[n++] = core::PackedParam::String("content", body);
    } else if (open.kind == Kind::kRun) {
      params[n++] = core::PackedParam::String("code", body);
      params[n++] = core::PackedParam::String("lang", "bash");
      if (dir != nullptr && !dir->empty()) params[n++] = core::PackedParam::String("cwd", *dir);
    } else if (to_at != kNpos) {
      params[n++] = core::PackedParam::String("path", *file);
      params[n++] = core::PackedParam::String("old_text_start", search);
      params[n++] = core::PackedParam::String("old_text_end", last);
      params[n++] = core::PackedParam::String("new_text", replace);
      // count="all": every range, at least one (fs-ops' `all`).
      params[n++] = every ? core::PackedParam::Boolean("all", true) : core::PackedParam::Integer("count", count);
    } else {
      params[n++] = core::PackedParam::String("path", *file);
      params[n++] = core::PackedParam::String("old_text", search);
      params[n++] = core::PackedParam::String("new_text", replace);
      if (!every) params[n++] = core::PackedParam::Integer("count", count);
    }
    static constexpr absl::string_view kContent[] = {"content"};
    core::ActionParts parts;
    parts.name = action;
    parts.params = absl::MakeConstSpan(params, n);
    parts.block_id = label;
    parts.start_line = open.line;
    parts.end_line = end_line;
    parts.warnings = warnings;
    if (open.kind == Kind::kWrite) parts.line_params = kContent;
    if (pack_) {
      last_span_ = Span(open.begin, next, open.line);
      out_->packed_actions.Add(parts);
      out_->packed.push_back({open.line});
      b->packed_end = out_->packed.size();
      return next;
    }
    // Made whole and moved in (an Operation made empty first would make an
    // empty parameter object only to free it).
    b->details().operations.push_back(
        Operation{core::MakeAction(parts), std::string(name), label, Span(open.begin, next, open.line)});
    return next;
  }

  absl::string_view text_;
  const Delimiters& d_;
  bool build_;
  bool pack_;
  size_t expected_blocks_;
  CslParseResult* out_ = nullptr;  // what Read is filling
  std::vector<std::pair<int, int>> skip_;
  std::vector<int> furthest_;
  size_t line_pos_ = 0;
  int line_ = 1;  // of line_pos_, the answer's
  size_t first_byte_ = 0;  // where text_ starts in the answer
  // Markers read with blanks inside their delimiters: the warnings not yet
  // given to a block, and the last line warned about (a marker read twice,
  // as the end of an unclosed operation and then as an opener, warns once).
  std::vector<std::string> spaced_warnings_;
  int spaced_warned_ = 0;
  SourceSpan last_span_;  // of the operation ReadOperation read last
};

}  // namespace

CslParseResult ParseCsl(absl::string_view text, const Delimiters& delimiters, const std::vector<LineRange>& skip,
                        const ParseOptions& options) {
  return Reader(text, delimiters, skip, true, options.pack_actions, options.expected_blocks, options.first_line,
                options.first_byte)
      .Read();
}

std::vector<SourceSpan> FindCsl(absl::string_view text, const Delimiters& delimiters,
                                const std::vector<LineRange>& skip) {
  std::vector<SourceSpan> out;
  for (const CslBlock& b : Reader(text, delimiters, skip, false).Read().blocks) out.push_back(b.span);
  return out;
}

std::string OperationOf(absl::string_view action_name) {
  if (action_name == "file_write" || action_name == "file_append") return "WRITE";
  if (action_name == "exec") return "RUN";
  if (action_name == "file_replace_all_text" || action_name == "file_replace_text_range") return "SEARCH";
  return std::string(action_name);
}

}  // namespace clada::csl_parser
