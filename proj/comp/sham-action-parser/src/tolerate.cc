// TolerateChatNoise: one pass over the answer's lines that follows the
// grammar's block structure (header, assignments, heredocs, end marker) and
// rewrites the lines whose meaning is plain. See tolerate.h and doc/ARCH.md
// ("Tolerated and refused forms").
#include "proj/comp/sham-action-parser/src/tolerate.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/newlines.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/src/text_util.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_action_parser::internal {
namespace {

constexpr size_t kNpos = absl::string_view::npos;

// Warnings kept per block; the rest are counted.
constexpr size_t kMaxWarningsPerBlock = 10;

// One code point of `s` at byte `i` and its length; ill-formed bytes read
// as U+FFFD, one byte each.
char32_t DecodeAt(absl::string_view s, size_t i, size_t* length) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  *length = 1;
  if (c < 0x80) return c;
  size_t n = 0;
  char32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0xFFFD;
  }
  if (i + n > s.size()) return 0xFFFD;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  *length = n;
  return cp;
}

// Characters a chat inserts that are invisible on screen.
bool IsInvisible(char32_t cp) {
  return cp == 0x200B || cp == 0x200C || cp == 0x200D || cp == 0x2060 ||
         cp == 0xFEFF;
}

// No-break spaces: look like a space.
bool IsSpaceLike(char32_t cp) { return cp == 0x00A0 || cp == 0x202F; }

bool IsNoise(char32_t cp) { return IsInvisible(cp) || IsSpaceLike(cp); }

bool IsBlank(char32_t cp) { return cp == ' ' || cp == '\t' || IsNoise(cp); }

bool IsCurlyDoubleQuote(char32_t cp) {
  return cp == 0x201C || cp == 0x201D || cp == 0x201E;
}

// Bytes of blank characters at the start / end of `s`.
size_t LeadingBlank(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t len;
    if (!IsBlank(DecodeAt(s, i, &len))) break;
    i += len;
  }
  return i;
}

size_t TrailingBlank(absl::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 &&
           end - start < 4)
      --start;
    size_t len;
    const char32_t cp = DecodeAt(s, start, &len);
    if (start + len != end || !IsBlank(cp)) break;
    end = start;
  }
  return s.size() - end;
}

absl::string_view TrimBlank(absl::string_view s) {
  s.remove_prefix(LeadingBlank(s));
  s.remove_suffix(TrailingBlank(s));
  return s;
}

bool HasNonAsciiBlank(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t len;
    if (IsNoise(DecodeAt(s, i, &len))) return true;
    i += len;
  }
  return false;
}

bool HasInvisible(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t len;
    if (IsInvisible(DecodeAt(s, i, &len))) return true;
    i += len;
  }
  return false;
}

// Characters (code points) in `s`.
size_t CharCount(absl::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) {
    size_t len;
    DecodeAt(s, i, &len);
    i += len;
  }
  return n;
}

// "2 × U+0020 (space), U+00A0 (no-break space)": the characters of `s`, in
// order of first appearance, with their counts.
std::string DescribeChars(absl::string_view s) {
  std::vector<std::pair<char32_t, int>> seen;
  for (size_t i = 0; i < s.size();) {
    size_t len;
    const char32_t cp = DecodeAt(s, i, &len);
    i += len;
    auto it = std::find_if(seen.begin(), seen.end(),
                           [&](const auto& p) { return p.first == cp; });
    if (it == seen.end()) {
      seen.emplace_back(cp, 1);
    } else {
      ++it->second;
    }
  }
  return absl::StrJoin(seen, ", ", [](std::string* out, const auto& p) {
    if (p.second > 1) absl::StrAppend(out, p.second, " × ");
    absl::StrAppend(out, DescribeCodePoint(p.first));
  });
}

// The header of a block as a chat may have mangled it.
struct HeaderLine {
  std::string prefix;      // quote marks and indentation before it
  bool quoted = false;     // the prefix holds '>'
  std::string cleaned;     // the header as the grammar wants it
  std::string id;
  std::string end;         // "#!END_SHAM_" + id
  std::string eot;         // "EOT_SHAM_" + id
  std::string eot_prefix;  // "EOT_SHAM_"
  std::string lead_noise;  // noise between the prefix and "#!"
  std::string trailing;    // removed after "]"
  std::string inside_spaces;     // no-break spaces inside, read as spaces
  std::string inside_invisible;  // zero-width characters inside, dropped
};

// The prefix of `line`: optional indentation, then quote marks ('>' each
// followed by optional spaces), or indentation alone.
size_t PrefixLength(absl::string_view line, bool* quoted) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  *quoted = false;
  while (i < line.size() && line[i] == '>') {
    *quoted = true;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  }
  return i;
}

bool IsAsciiAlnumOrDash(char c) { return absl::ascii_isalnum(c) || c == '-'; }

std::optional<HeaderLine> ReadHeader(absl::string_view line) {
  HeaderLine h;
  const size_t p = PrefixLength(line, &h.quoted);
  h.prefix = std::string(line.substr(0, p));
  absl::string_view rest = line.substr(p);
  const size_t lead = LeadingBlank(rest);
  h.lead_noise = std::string(rest.substr(0, lead));
  rest.remove_prefix(lead);
  if (rest.size() < 8 || rest[0] != '#' || rest[1] != '!' || rest[6] != ' ')
    return std::nullopt;
  const absl::string_view family = rest.substr(2, 4);
  std::string end_prefix, eot_prefix;
  if (family == "SHAM") {
    end_prefix = "#!END_SHAM_";
    eot_prefix = "EOT_SHAM_";
  } else if (family == "NESL") {
    end_prefix = "#!END_NESL_";
    eot_prefix = "EOT_NESL_";
  } else if (family == "nesl") {
    end_prefix = "#!end_";
    eot_prefix = "EOT_";
  } else {
    return std::nullopt;
  }
  const size_t trail = TrailingBlank(rest);
  h.trailing = std::string(rest.substr(rest.size() - trail));
  rest.remove_suffix(trail);
  // Inside: no-break spaces read as spaces, zero-width characters dropped.
  h.cleaned.reserve(rest.size());
  for (size_t i = 0; i < rest.size();) {
    size_t len;
    const char32_t cp = DecodeAt(rest, i, &len);
    if (IsSpaceLike(cp)) {
      h.cleaned.push_back(' ');
      h.inside_spaces.append(rest.data() + i, len);
    } else if (IsInvisible(cp)) {
      h.inside_invisible.append(rest.data() + i, len);
    } else {
      h.cleaned.append(rest.data() + i, len);
    }
    i += len;
  }
  // #!SHAM [@label: id]
  const absl::string_view c = h.cleaned;
  size_t i = 7;
  if (c.size() < i + 2 || c[i] != '[' || c[i + 1] != '@') return std::nullopt;
  i += 2;
  const size_t label = i;
  while (i < c.size() && IsAsciiAlnumOrDash(c[i])) ++i;
  if (i == label || i + 2 > c.size() || c[i] != ':' || c[i + 1] != ' ')
    return std::nullopt;
  const size_t id_start = i + 2;
  if (c.size() < id_start + 2 || c.back() != ']') return std::nullopt;
  const absl::string_view id = c.substr(id_start, c.size() - 1 - id_start);
  if (id.find(']') != kNpos || id.empty()) return std::nullopt;
  h.id = std::string(id);
  h.end = end_prefix + h.id;
  h.eot = eot_prefix + h.id;
  h.eot_prefix = eot_prefix;
  return h;
}

bool IsUnquotedHeader(absl::string_view line) {
  std::optional<HeaderLine> h = ReadHeader(line);
  return h.has_value() && !h->quoted;
}

// True for a line the grammar takes as an end marker of the end prefix
// `end_prefix` with some well-formed ID (it closes the block, reporting
// MISMATCHED_END when the ID differs).
bool IsWellFormedEndMarker(absl::string_view t, absl::string_view end_prefix) {
  if (!absl::StartsWith(t, end_prefix)) return false;
  absl::string_view id = t.substr(end_prefix.size());
  if (!id.empty() && id.back() == '\'') id.remove_suffix(1);
  if (id.size() < 2 || id.size() > 8) return false;
  return std::all_of(id.begin(), id.end(),
                     [](char ch) { return absl::ascii_isalnum(ch); });
}

std::string Shown(absl::string_view s) { return QuoteForMessage(s, 60); }

class Scanner {
 public:
  // `first_line`, `quoted_as_a_whole`: as TolerateChatNoise's.
  Scanner(absl::string_view text, bool read_quoted_blocks, int first_line = 1,
          std::optional<bool> quoted_as_a_whole = std::nullopt)
      : text_(text),
        read_quoted_blocks_(read_quoted_blocks),
        first_line_(first_line),
        quoted_as_a_whole_(quoted_as_a_whole) {
    starts_.reserve(1 + core::CountNewlines(text_));
    starts_.push_back(0);
    for (const char* p = text_.data(), *end = p + text_.size();
         (p = static_cast<const char*>(std::memchr(p, '\n', end - p))) != nullptr;)
      starts_.push_back(static_cast<size_t>(++p - text_.data()));
  }

  ToleratedText Run() && {
    whole_quoted_ = read_quoted_blocks_ || WholeAnswerQuoted();
    size_t i = 0;
    while (i < line_count()) {
      std::optional<HeaderLine> h = ReadHeader(Line(i));
      if (!h.has_value()) {
        ++i;
        continue;
      }
      i = ProcessBlock(i, *h);
    }
    if (!replaced_.empty()) Assemble();
    return std::move(out_);
  }

 private:
  // Line i's content: from its start to its '\n' (a '\r' before it left
  // out), or to the end.
  struct Span {
    size_t begin;
    size_t end;
  };
  Span LineSpan(size_t i) const {
    const size_t begin = starts_[i];
    if (i + 1 >= starts_.size()) return {begin, text_.size()};
    size_t end = starts_[i + 1] - 1;
    if (end > begin && text_[end - 1] == '\r') --end;
    return {begin, end};
  }

  size_t line_count() const { return starts_.size(); }

  absl::string_view Line(size_t i) const {
    const Span s = LineSpan(i);
    return text_.substr(s.begin, s.end - s.begin);
  }

  void Replace(size_t i, std::string content) {
    replaced_[i] = std::move(content);
  }

  bool WholeAnswerQuoted() const {
    return quoted_as_a_whole_.has_value() ? *quoted_as_a_whole_ : QuotedAsAWhole(text_);
  }

  // The answer's number of line index i.
  int No(size_t i) const { return static_cast<int>(i) + first_line_; }

 public:
  static bool QuotedAsAWhole(absl::string_view text) {
    Scanner s(text, false);
    return s.AllLinesQuoted();
  }

 private:
  bool AllLinesQuoted() const {
    bool any = false;
    for (size_t i = 0; i < line_count(); ++i) {
      absl::string_view t = TrimBlank(Line(i));
      if (t.empty()) continue;
      if (t[0] != '>') return false;
      any = true;
    }
    return any;
  }

  void Assemble() {
    out_.changed = true;
    out_.text.reserve(text_.size());
    std::vector<size_t> changed;
    changed.reserve(replaced_.size());
    for (const auto& [i, unused] : replaced_) changed.push_back(i);
    std::sort(changed.begin(), changed.end());
    size_t copied = 0;  // bytes of text_ already in out_.text
    for (const size_t i : changed) {
      const Span s = LineSpan(i);
      out_.text.append(text_.data() + copied, s.begin - copied);
      out_.text += replaced_[i];
      copied = s.end;
    }
    out_.text.append(text_.data() + copied, text_.size() - copied);
  }

  // The line index holding byte `offset`.
  size_t LineOf(size_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    return static_cast<size_t>(it - starts_.begin()) - 1;
  }

  // `line` without the block's prefix: nullopt when the line does not carry
  // it (and is not blank).
  std::optional<absl::string_view> Unprefixed(absl::string_view line,
                                              const HeaderLine& h) const {
    if (h.prefix.empty()) return line;
    if (absl::StartsWith(line, h.prefix)) return line.substr(h.prefix.size());
    if (TrimBlank(line).empty()) return absl::string_view();
    if (h.quoted && absl::StripTrailingAsciiWhitespace(line) ==
                        absl::StripTrailingAsciiWhitespace(h.prefix))
      return absl::string_view();
    return std::nullopt;
  }

  // The line that closes a heredoc `delimiter` opened before line `from`,
  // as the grammar finds it (the first occurrence on a line, nothing but
  // "'" after it, no "<<" before it), with blanks tolerated after it; npos
  // when none does.
  size_t FindCloser(const std::string& delimiter, size_t from) {
    if (from >= line_count()) return kNpos;
    size_t pos = starts_[from];
    auto known = absent_from_.find(delimiter);
    if (known != absent_from_.end() && pos >= known->second) return kNpos;
    const size_t start = pos;
    while (true) {
      const size_t at = text_.find(delimiter, pos);
      if (at == kNpos) break;
      const size_t li = LineOf(at);
      const Span s = LineSpan(li);
      if (at + delimiter.size() <= s.end) {
        const absl::string_view before = text_.substr(s.begin, at - s.begin);
        absl::string_view after = text_.substr(
            at + delimiter.size(), s.end - at - delimiter.size());
        after.remove_suffix(TrailingBlank(after));
        absl::ConsumePrefix(&after, "'");
        if (after.empty() && before.find("<<") == kNpos) return li;
      }
      pos = s.end + 1;
      if (pos >= text_.size()) break;
    }
    auto& absent = absent_from_[delimiter];
    absent = absent == 0 ? start : std::min(absent, start);
    return kNpos;
  }

  void Warn(BlockNotes& notes, std::string w) {
    notes.warnings.push_back(std::move(w));
  }

  // A heredoc closer line `raw` (prefix already removed as `s`): the form
  // the grammar reads, with a warning when blanks or invisible characters
  // around the delimiter were dropped.
  void TolerateCloser(size_t li, absl::string_view s,
                      const std::string& delimiter, BlockNotes& notes) {
    const size_t at = s.find(delimiter);
    if (at == kNpos) return;
    absl::string_view before = s.substr(0, at);
    absl::string_view after = s.substr(at + delimiter.size());
    const size_t trail = TrailingBlank(after);
    const absl::string_view dropped_after = after.substr(after.size() - trail);
    after.remove_suffix(trail);
    std::string new_before;
    std::string dropped_before;
    if (TrimBlank(before).empty()) {
      // Only blanks before the delimiter: keep ASCII indentation (the
      // grammar's indented-closer rule warns about it), drop the rest.
      for (size_t i = 0; i < before.size();) {
        size_t len;
        const char32_t cp = DecodeAt(before, i, &len);
        if (cp == ' ' || cp == '\t') {
          new_before.append(before.data() + i, len);
        } else {
          dropped_before.append(before.data() + i, len);
        }
        i += len;
      }
    } else {
      new_before = std::string(before);
    }
    if (dropped_after.empty() && dropped_before.empty()) return;
    Replace(li, absl::StrCat(new_before, delimiter, after));
    if (!dropped_before.empty()) {
      Warn(notes, absl::StrCat("Line ", No(li), ": ignored ",
                               DescribeChars(dropped_before),
                               " before the heredoc closer ", delimiter));
    }
    if (!dropped_after.empty()) {
      Warn(notes, absl::StrCat("Line ", No(li), ": ignored ",
                               DescribeChars(dropped_after),
                               " after the heredoc closer ", delimiter));
    }
  }

  // Reads the block whose header is line `hi`; returns the line to go on
  // from.
  size_t ProcessBlock(size_t hi, const HeaderLine& h) {
    const size_t n = line_count();
    BlockNotes notes;
    notes.header_line = No(hi);
    notes.id = h.id;
    if (h.quoted && !whole_quoted_) {
      // A quotation of a block (an earlier answer, an example): reported,
      // not run, and left as it is.
      size_t j = hi + 1;
      for (; j < n; ++j) {
        std::optional<absl::string_view> s = Unprefixed(Line(j), h);
        if (!s.has_value()) break;
        if (absl::StartsWithIgnoreCase(TrimBlank(*s), "#!end")) {
          ++j;
          break;
        }
      }
      out_.warnings.push_back(absl::StrCat(
          "Block '", ToValidUtf8(h.id), "' (lines ", No(hi), "-", No(j - 1),
          ") is quoted ('", absl::StripTrailingAsciiWhitespace(h.prefix),
          "' before its lines), so it was not run: a block in a quotation "
          "is taken for an example; write it without the quote marks to "
          "run it"));
      return j;
    }

    // The header.
    const absl::string_view header_raw = Line(hi);
    if (header_raw != h.cleaned) Replace(hi, h.cleaned);
    if (!h.lead_noise.empty()) {
      Warn(notes, absl::StrCat("Line ", No(hi), ": ignored ",
                               DescribeChars(h.lead_noise),
                               " before the header"));
    }
    if (!h.inside_spaces.empty()) {
      Warn(notes, absl::StrCat("Line ", No(hi), ": read ",
                               DescribeChars(h.inside_spaces),
                               " inside the header as a space"));
    }
    if (!h.inside_invisible.empty()) {
      Warn(notes, absl::StrCat("Line ", No(hi), ": ignored ",
                               DescribeChars(h.inside_invisible),
                               " inside the header"));
    }
    if (!h.trailing.empty()) {
      Warn(notes, absl::StrCat("Line ", No(hi), ": ignored ",
                               DescribeChars(h.trailing), " after the header"));
    }

    size_t j = hi + 1;
    bool closed = false;
    size_t last_good = hi;       // the last header, assignment or closer line
    size_t first_stray = kNpos;  // the first line that is no assignment
    bool nonuniform = false;
    const auto refuse = [&](std::string message, std::string fix) {
      notes.refusals.push_back({std::move(message), std::move(fix)});
    };
    // Removes the prefix of line `k`; false when the line lacks it.
    const auto strip = [&](size_t k, absl::string_view* s) {
      const absl::string_view raw = Line(k);
      std::optional<absl::string_view> u = Unprefixed(raw, h);
      if (!u.has_value()) {
        if (!nonuniform) {
          nonuniform = true;
          notes.suppress_from = notes.header_line;
          refuse(absl::StrCat(
                     "Block '", ToValidUtf8(h.id), "' starts ",
                     h.quoted ? "in a quotation ('" : "indented ('",
                     ToValidUtf8(h.prefix), "' before its header on line ",
                     No(hi), ") but line ", No(k), " does not: ",
                     Shown(raw)),
                 h.quoted ? "Quote every line of the block alike, or none; "
                            "the whole block was skipped"
                          : "Indent every line of the block alike, or start "
                            "each at column 1; the whole block was skipped");
        }
        *s = raw;
        return false;
      }
      *s = *u;
      if (u->size() != raw.size()) Replace(k, std::string(*u));
      return true;
    };

    for (; j < n; ++j) {
      // Block lines without the prefix are read as they are (a key at
      // column 1 in an indented block means the same); only heredoc
      // content must carry it.
      absl::string_view s = Line(j);
      if (std::optional<absl::string_view> u = Unprefixed(s, h)) {
        if (u->size() != s.size()) Replace(j, std::string(*u));
        s = *u;
      }
      const absl::string_view t = TrimBlank(s);
      if (t.empty()) {
        if (HasInvisible(s)) {
          Replace(j, "");
          Warn(notes, absl::StrCat("Line ", No(j), ": ignored a line of ",
                                   DescribeChars(s)));
        }
        continue;
      }
      if (absl::StartsWithIgnoreCase(t, "#!end")) {
        if (t == h.end || t == h.end + "'" ||
            IsWellFormedEndMarker(t, h.end.substr(0, h.end.size() - h.id.size()))) {
          if (t.size() != s.size()) {
            Replace(j, std::string(t));
            const size_t lead = LeadingBlank(s);
            if (lead > 0) {
              Warn(notes, absl::StrCat("Line ", No(j), ": ignored ",
                                       DescribeChars(s.substr(0, lead)),
                                       " before the end marker"));
            }
            if (s.size() - lead > t.size()) {
              Warn(notes, absl::StrCat(
                              "Line ", No(j), ": ignored ",
                              DescribeChars(s.substr(lead + t.size())),
                              " after the end marker"));
            }
          }
          closed = true;
          break;
        }
        const size_t before_t = CharCount(text_.substr(
            starts_[j], static_cast<size_t>(t.data() - text_.data()) -
                            starts_[j]));
        refuse(absl::StrCat("Line ", No(j), ": the end marker ", Shown(t),
                            " is not ", h.end, ": ",
                            EndMarkerDifference(t, h.end, before_t)),
               absl::StrCat("End the block with the line ", h.end,
                            " exactly; the whole block was skipped (the "
                            "blocks after it were read on their own)"));
        Replace(j, h.end);
        closed = true;
        break;
      }
      // A header (not a quoted one, which the grammar does not take for a
      // header either): this block was left open.
      if (IsUnquotedHeader(s)) break;
      const size_t eq = s.find('=');
      if (eq == kNpos) {
        if (first_stray == kNpos) first_stray = j;
        continue;
      }
      j = ProcessAssignment(j, s, eq, h, notes, strip);
      if (first_stray == kNpos) last_good = j;
    }

    if (!closed && first_stray != kNpos) {
      refuse(absl::StrCat("Block '", ToValidUtf8(h.id),
                          "' has no end marker: the text from line ",
                          No(first_stray), " (", Shown(Line(first_stray)),
                          ") on was read as part of it"),
             absl::StrCat("Add the line ", h.end, " after line ",
                          No(last_good),
                          "; the whole block was skipped"));
      if (notes.suppress_from == 0)
        notes.suppress_from = No(first_stray);
    }
    const size_t last = closed ? j : j - 1;
    if (!h.prefix.empty() && !nonuniform) {
      std::vector<std::string> head;
      head.push_back(absl::StrCat(
          "Lines ", No(hi), "-", No(last), ": ",
          h.quoted
              ? absl::StrCat("the block is quoted ('",
                             absl::StripTrailingAsciiWhitespace(h.prefix),
                             "' before every line) like the whole answer; "
                             "it was read without the quote marks")
              : absl::StrCat("the block is indented by ",
                             DescribeChars(h.prefix),
                             " (as in a Markdown list item); it was read "
                             "without the indentation")));
      notes.warnings.insert(notes.warnings.begin(), head.begin(), head.end());
    }
    if (notes.warnings.size() > kMaxWarningsPerBlock) {
      const size_t more = notes.warnings.size() - kMaxWarningsPerBlock;
      notes.warnings.resize(kMaxWarningsPerBlock);
      notes.warnings.push_back(
          absl::StrCat("and ", more, " more such lines in this block"));
    }
    if (!notes.warnings.empty() || !notes.refusals.empty())
      out_.blocks.push_back(std::move(notes));
    return closed ? j + 1 : j;
  }

  // "it has '.' (U+002E) at column 15" / "it lacks ..." for an end marker
  // line that is not `want`; `offset` is the characters before `got` on
  // its line.
  static std::string EndMarkerDifference(absl::string_view got,
                                         absl::string_view want,
                                         size_t offset) {
    size_t i = 0;
    size_t chars = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) {
      if ((static_cast<unsigned char>(got[i]) & 0xC0) != 0x80) ++chars;
      ++i;
    }
    if (i == got.size()) {
      return absl::StrCat("it ends after column ", offset + chars, " without ",
                          Shown(want.substr(i)));
    }
    while (i > 0 && (static_cast<unsigned char>(got[i]) & 0xC0) == 0x80) {
      --i;
    }
    size_t len;
    const char32_t cp = DecodeAt(got, i, &len);
    std::string what = absl::StrCat("it has ", Shown(got.substr(i, len)), " (",
                                    DescribeCodePoint(cp), ") at column ",
                                    offset + CharCount(got.substr(0, i)) + 1);
    if (i < want.size()) {
      absl::StrAppend(&what, " where ", want, " has ",
                      Shown(want.substr(i, 1)));
    }
    return what;
  }

  // One assignment line `s` (prefix removed) of block `h` at line `j`, with
  // its first '=' at `eq`. Returns the last line it used (a heredoc's
  // closer).
  template <typename Strip>
  size_t ProcessAssignment(size_t j, absl::string_view s, size_t eq,
                           const HeaderLine& h, BlockNotes& notes,
                           const Strip& strip) {
    const size_t n = line_count();
    absl::string_view key_part = s.substr(0, eq);
    absl::string_view value_part = s.substr(eq + 1);
    bool rewrite = false;
    // Noise before the key: a no-break or zero-width character (the
    // grammar reads any leading character as part of the key).
    const size_t lead = LeadingBlank(key_part);
    const absl::string_view lead_text = key_part.substr(0, lead);
    const std::string key(TrimBlank(key_part));
    if (lead > 0 && HasNonAsciiBlank(lead_text)) {
      Warn(notes, absl::StrCat("Line ", No(j), ": ignored ",
                               DescribeChars(lead_text), " before the key '",
                               ToValidUtf8(key), "'"));
      rewrite = true;
    }
    const size_t key_trail = TrailingBlank(key_part);
    const absl::string_view key_trail_text =
        key_part.substr(key_part.size() - key_trail);
    if (key_trail < key_part.size() && HasInvisible(key_trail_text)) {
      Warn(notes, absl::StrCat("Line ", No(j), ": ignored ",
                               DescribeChars(key_trail_text),
                               " between the key '", ToValidUtf8(key),
                               "' and '='"));
      rewrite = true;
    }
    const size_t value_lead = LeadingBlank(value_part);
    const absl::string_view value_lead_text = value_part.substr(0, value_lead);
    if (HasInvisible(value_lead_text)) {
      Warn(notes, absl::StrCat("Line ", No(j), ": ignored ",
                               DescribeChars(value_lead_text),
                               " after '=' of the key '", ToValidUtf8(key),
                               "'"));
      rewrite = true;
    }
    const absl::string_view value = TrimBlank(value_part);
    std::string new_value;  // set when the value is rewritten

    // A heredoc opener.
    if (absl::StartsWith(value, "<<")) {
      absl::string_view d = value.substr(2);
      const bool proper = d == absl::StrCat("'", h.eot, "'");
      // Single or double quotes, or none, on either side.
      if (!absl::ConsumePrefix(&d, "'")) absl::ConsumePrefix(&d, "\"");
      if (!absl::ConsumeSuffix(&d, "'")) absl::ConsumeSuffix(&d, "\"");
      const bool heredoc_like =
          !d.empty() && d.find_first_of("'\" \t") == kNpos &&
          (absl::StartsWith(d, h.eot_prefix) || absl::StartsWith(d, "EOT"));
      if (!proper && !heredoc_like) {
        if (rewrite) Replace(j, absl::StrCat(key, " = ", value));
        return j;
      }
      const std::string delimiter(proper ? absl::string_view(h.eot) : d);
      if (rewrite && proper) Replace(j, absl::StrCat(key, " = ", value));
      if (!proper) {
        std::string fix = absl::StrCat(
            "Write ", ToValidUtf8(key), " = <<'", h.eot,
            "' (the delimiter in single quotes), the value's lines, then a "
            "line ",
            h.eot, "; the whole block was skipped");
        const bool quotes_missing = d == h.eot;
        notes.refusals.push_back(
            {absl::StrCat("Line ", No(j), ": the heredoc opener ",
                          Shown(value),
                          quotes_missing
                              ? absl::StrCat(" does not put its delimiter in "
                                             "single quotes (<<'",
                                             h.eot, "')")
                              : absl::StrCat(" names the delimiter ",
                                             Shown(d), ", not ", h.eot)),
             std::move(fix)});
      }
      size_t closer = FindCloser(delimiter, j + 1);
      // The line that ends the block when the heredoc does not: its end
      // marker (or a look-alike) or the next header.
      std::string near_miss;
      const auto block_end = [&] {
        size_t k = j + 1;
        for (; k < n; ++k) {
          absl::string_view raw = Line(k);
          absl::string_view u = raw;
          if (absl::StartsWith(u, h.prefix)) u.remove_prefix(h.prefix.size());
          const absl::string_view t = TrimBlank(u);
          if (absl::StartsWithIgnoreCase(t, "#!end") || IsUnquotedHeader(u))
            break;
          if (near_miss.empty() && absl::StartsWith(t, "EOT"))
            near_miss = absl::StrCat(" (line ", No(k), " is ", Shown(t), ")");
        }
        return k;
      };
      // A refused opener's text is not read past its block: a closer of
      // that name further on belongs to another block.
      size_t k = kNpos;
      if (!proper) {
        k = block_end();
        if (closer != kNpos && closer >= k) closer = kNpos;
      }
      if (closer == kNpos) {
        // Never closed: the block ends at its end marker (or before the
        // next header); the heredoc's lines are not read.
        if (k == kNpos) k = block_end();
        if (proper) {
          notes.refusals.push_back(
              {absl::StrCat("Line ", No(j), ": the heredoc of '",
                            ToValidUtf8(key),
                            "' is never closed: no line after it is ", h.eot,
                            near_miss),
               absl::StrCat("End the heredoc with a line containing only ",
                            h.eot, "; the whole block was skipped")});
        }
        if (notes.suppress_from == 0)
          notes.suppress_from = No(j);
        for (size_t m = j; m < k; ++m) Replace(m, "");
        return k - 1;
      }
      // Closed: the content lines keep their text (without the block's
      // prefix); the closer may carry blanks.
      if (!proper) {
        for (size_t m = j; m <= closer; ++m) Replace(m, "");
        return closer;
      }
      for (size_t m = j + 1; m < closer && !h.prefix.empty(); ++m) {
        absl::string_view content;
        strip(m, &content);
      }
      absl::string_view closer_line;
      strip(closer, &closer_line);
      TolerateCloser(closer, closer_line, delimiter, notes);
      return closer;
    }

    // Curly quotes around the whole value: “text”.
    size_t len1 = 0;
    size_t len2 = 0;
    if (!value.empty()) {
      const char32_t open = DecodeAt(value, 0, &len1);
      size_t last = value.size() - 1;
      while (last > 0 &&
             (static_cast<unsigned char>(value[last]) & 0xC0) == 0x80)
        --last;
      const char32_t close = DecodeAt(value, last, &len2);
      if (IsCurlyDoubleQuote(open) && IsCurlyDoubleQuote(close) &&
          last >= len1) {
        const absl::string_view inner = value.substr(len1, last - len1);
        bool plain = true;
        for (size_t i = 0; i < inner.size() && plain;) {
          size_t len;
          const char32_t cp = DecodeAt(inner, i, &len);
          if (cp == '"' || cp == '\\' || cp < 0x20 || IsCurlyDoubleQuote(cp))
            plain = false;
          i += len;
        }
        if (plain) {
          new_value = absl::StrCat("\"", inner, "\"");
          Warn(notes,
               absl::StrCat(
                   "Line ", No(j), ": read the value of '", ToValidUtf8(key),
                   "', written in curly quotes (",
                   absl::StrFormat("U+%04X ... U+%04X",
                                   static_cast<uint32_t>(open),
                                   static_cast<uint32_t>(close)),
                   "), as ", Shown(inner),
                   "; write straight double quotes (U+0022)"));
          rewrite = true;
        }
      }
    }
    if (rewrite) {
      Replace(j, absl::StrCat(key, " = ", new_value.empty() ? value
                                                             : new_value));
    }
    return j;
  }

  absl::string_view text_;
  bool read_quoted_blocks_ = false;
  int first_line_ = 1;  // the answer's line text_ starts
  std::optional<bool> quoted_as_a_whole_;
  std::vector<size_t> starts_;  // of each line
  // Line index -> its new content (without the line terminator).
  absl::flat_hash_map<size_t, std::string> replaced_;
  bool whole_quoted_ = false;
  // Delimiter -> offset from which it is known never to close.
  absl::flat_hash_map<std::string, size_t> absent_from_;
  ToleratedText out_;
};

}  // namespace

std::string DescribeCodePoint(char32_t cp) {
  const char* name = nullptr;
  switch (cp) {
    case 0x09: name = "tab"; break;
    case 0x20: name = "space"; break;
    case 0x22: name = "straight double quote"; break;
    case 0xA0: name = "no-break space"; break;
    case 0x200B: name = "zero-width space"; break;
    case 0x200C: name = "zero-width non-joiner"; break;
    case 0x200D: name = "zero-width joiner"; break;
    case 0x2060: name = "word joiner"; break;
    case 0x202F: name = "narrow no-break space"; break;
    case 0xFEFF: name = "byte order mark"; break;
    case 0x201C: name = "left curly double quote"; break;
    case 0x201D: name = "right curly double quote"; break;
    case 0x201E: name = "low curly double quote"; break;
    case 0x2018: name = "left curly single quote"; break;
    case 0x2019: name = "right curly single quote"; break;
    default: break;
  }
  std::string out = absl::StrFormat("U+%04X", static_cast<uint32_t>(cp));
  if (name != nullptr) absl::StrAppend(&out, " (", name, ")");
  return out;
}

std::string FirstLookalike(absl::string_view line, size_t from) {
  size_t column = 0;
  for (size_t i = 0; i < line.size();) {
    size_t len;
    const char32_t cp = DecodeAt(line, i, &len);
    ++column;
    if (i < from) {
      i += len;
      continue;
    }
    if (IsNoise(cp) || IsCurlyDoubleQuote(cp) || cp == 0x2018 ||
        cp == 0x2019) {
      return absl::StrCat(DescribeCodePoint(cp), " at column ", column);
    }
    i += len;
  }
  return "";
}

ToleratedText TolerateChatNoise(absl::string_view answer,
                                bool read_quoted_blocks, int first_line,
                                std::optional<bool> quoted_as_a_whole) {
  // No "#!": no header, nothing to read.
  if (answer.size() > sham_parser::kMaxInputBytes ||
      answer.find("#!") == kNpos)
    return ToleratedText{};
  return Scanner(answer, read_quoted_blocks, first_line, quoted_as_a_whole).Run();
}

}  // namespace clada::sham_action_parser::internal

namespace clada::sham_action_parser {

std::string TolerantReading(absl::string_view answer, bool read_quoted_blocks) {
  internal::ToleratedText t =
      internal::TolerateChatNoise(answer, read_quoted_blocks);
  return t.changed ? std::move(t.text) : std::string(answer);
}

std::optional<std::string> TolerantReadingIfChanged(absl::string_view answer, bool read_quoted_blocks) {
  internal::ToleratedText t = internal::TolerateChatNoise(answer, read_quoted_blocks);
  if (!t.changed) return std::nullopt;
  return std::move(t.text);
}

bool QuotedAsAWhole(absl::string_view answer) {
  return internal::Scanner::QuotedAsAWhole(answer);
}

}  // namespace clada::sham_action_parser
