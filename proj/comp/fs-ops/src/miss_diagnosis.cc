#include "proj/comp/fs-ops/src/miss_diagnosis.h"

#include <emmintrin.h>
#include <string.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/terms.h"
#include "proj/comp/fs-ops/src/text_edit.h"
#include "proj/comp/fs-ops/src/utf8.h"

namespace clada::fs_ops::internal {
namespace {

constexpr size_t kNpos = absl::string_view::npos;

// Normalisations, each of which can be switched off to learn whether it was
// needed for a match.
enum NormFlag : unsigned {
  kEol = 1,         // drop the "\r" of "\r\n"
  kTrailing = 2,    // drop trailing whitespace
  kIndent = 4,      // drop leading whitespace
  kInnerSpace = 8,  // collapse inner whitespace runs to one space
  kBlank = 16,      // drop blank lines
  kPunct = 32,      // Unicode quotes, dashes, ellipsis, spaces -> ASCII
  kCase = 64,       // ASCII letters to lower case
  kAll = 127,
};

struct FlagName {
  NormFlag flag;
  const char* name;
};
constexpr FlagName kFlagNames[] = {
    {kEol, "line endings"},  {kTrailing, "trailing whitespace"}, {kIndent, "indentation"}, {kInnerSpace, "whitespace"},
    {kBlank, "blank lines"}, {kPunct, "unicode punctuation"},    {kCase, "letter case"},
};

// A text normalised line by line; normalised lines are joined with "\n".
struct NormalizedText {
  std::string text;
  int64_t total_lines = 0;            // lines of the original (editor count)
  std::vector<uint32_t> line_start;   // offset of each normalised line in `text`
  std::vector<uint32_t> orig_line;    // its 1-based line in the original
  std::vector<uint32_t> orig_offset;  // offset of that original line
};

enum Class : uint8_t { kPlain = 0, kSpace = 1, kHigh = 2 };

struct Tables {
  std::array<uint8_t, 256> cls{};
  std::array<char, 256> lower{};
  std::array<char, 256> folded{};  // kAll on ASCII: lower case, spaces as ' '
  std::array<uint8_t, 256> is_space{};
  // folded | is_space << 8 | (c >= 0x80) << 9: one load per byte in the
  // whole-file pass.
  std::array<uint16_t, 256> packed{};
  Tables() {
    for (int c = 0; c < 256; ++c) {
      cls[c] = c >= 0x80 ? kHigh : kPlain;
      lower[c] = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
      folded[c] = lower[c];
    }
    for (unsigned char c : {' ', '\t', '\v', '\f'}) {
      cls[c] = kSpace;
      folded[c] = ' ';
      is_space[c] = 1;
    }
    for (int c = 0; c < 256; ++c) {
      packed[c] =
          static_cast<uint16_t>(static_cast<unsigned char>(folded[c]) | is_space[c] << 8 | (c >= 0x80 ? 1 : 0) << 9);
    }
  }
};
const Tables& T() {
  static const Tables* t = new Tables();
  return *t;
}

// What a non-ASCII sequence becomes under kPunct.
struct Mapped {
  int length = 0;          // bytes consumed (0: not special)
  bool space = false;      // a Unicode space
  const char* ascii = "";  // replacement ("" with length > 0: removed)
};

Mapped MapUnicode(const unsigned char* p, const unsigned char* end) {
  Mapped m;
  size_t avail = static_cast<size_t>(end - p);
  if (p[0] == 0xC2 && avail >= 2) {
    if (p[1] == 0xA0) return {2, true, " "};
    if (p[1] == 0xAB || p[1] == 0xBB) return {2, false, "\""};
    return m;
  }
  if (avail < 3) return m;
  unsigned char b1 = p[1], b2 = p[2];
  if (p[0] == 0xE2 && b1 == 0x80) {
    if (b2 <= 0x8A || b2 == 0xAF || b2 == 0xA8 || b2 == 0xA9) return {3, true, " "};
    if (b2 == 0x8B || b2 == 0x8C || b2 == 0x8D) return {3, false, ""};
    if (b2 >= 0x90 && b2 <= 0x95) return {3, false, "-"};
    if (b2 >= 0x98 && b2 <= 0x9B) return {3, false, "'"};
    if (b2 >= 0x9C && b2 <= 0x9F) return {3, false, "\""};
    if (b2 == 0xA6) return {3, false, "..."};
    if (b2 == 0xB2) return {3, false, "'"};
    if (b2 == 0xB3) return {3, false, "\""};
    return m;
  }
  if (p[0] == 0xE2 && b1 == 0x81 && b2 == 0x9F) return {3, true, " "};
  if (p[0] == 0xE2 && b1 == 0x81 && b2 == 0xA0) return {3, false, ""};
  if (p[0] == 0xE2 && b1 == 0x88 && b2 == 0x92) return {3, false, "-"};
  if (p[0] == 0xE3 && b1 == 0x80 && b2 == 0x80) return {3, true, " "};
  if (p[0] == 0xEF && b1 == 0xBB && b2 == 0xBF) return {3, false, ""};
  return m;
}

// Appends a whitespace run as it is (Unicode spaces as " " under kPunct).
template <unsigned F>
char* EmitRun(const unsigned char* p, const unsigned char* end, char* w) {
  while (p < end) {
    if (*p >= 0x80 && (F & kPunct)) {
      Mapped m = MapUnicode(p, end);
      if (m.length > 0 && m.space) {
        *w++ = ' ';
        p += m.length;
        continue;
      }
    }
    *w++ = static_cast<char>(*p++);
  }
  return w;
}

// Length of the whitespace character at p (ASCII, or a Unicode space under
// kPunct), 0 when p is not whitespace.
template <unsigned F>
inline int SpaceAt(const Tables& t, const unsigned char* p, const unsigned char* end) {
  uint8_t cls = t.cls[*p];
  if (cls == kSpace) return 1;
  if ((F & kPunct) && cls == kHigh) {
    Mapped m = MapUnicode(p, end);
    if (m.length > 0 && m.space) return m.length;
  }
  return 0;
}

// Normalises line by line with the normalisations in F. One template,
// instantiated per flag set, so the whole-file pass (all flags) runs a tight
// loop and every variant follows the same rules.
template <unsigned F>
NormalizedText NormalizeT(absl::string_view input, bool with_maps) {
  const Tables& t = T();
  NormalizedText out;
  out.text.resize(input.size() + 1);
  char* const wbegin = out.text.data();
  char* w = wbegin;
  const auto* base = reinterpret_cast<const unsigned char*>(input.data());
  const unsigned char* const input_end = base + input.size();
  const unsigned char* line = base;
  uint32_t line_no = 0;
  bool first_out_line = true;
  bool more = true;
  while (more) {
    ++line_no;
    const unsigned char* nl =
        static_cast<const unsigned char*>(memchr(line, '\n', static_cast<size_t>(input_end - line)));
    const unsigned char* end = nl == nullptr ? input_end : nl;
    const unsigned char* next = nl == nullptr ? input_end : nl + 1;
    more = nl != nullptr;
    if ((F & kEol) && end > line && end[-1] == '\r') --end;

    char* line_begin_w = w;
    if (!first_out_line) *w++ = '\n';
    char* content_w = w;
    bool seen = false;
    const unsigned char* p = line;
    if (F == kAll) {
      // Branchless for ASCII lines: every byte is written mapped, and w
      // advances except for a space after a space. Leading spaces were
      // skipped and a trailing one is dropped after. A line with a
      // non-ASCII byte is redone by the general loop below.
      const unsigned char* q = p;
      while (q < end && t.is_space[*q]) ++q;
      char* wq = w;
      unsigned last_space = 1;
      unsigned all = 0;
      // 16 bytes at a time while they are ASCII with no double space:
      // lower-case, spaces to ' ', stored as they are.
      const __m128i kSpace = _mm_set1_epi8(' ');
      const __m128i kTab = _mm_set1_epi8('\t');
      const __m128i kVt = _mm_set1_epi8('\v');
      const __m128i kFf = _mm_set1_epi8('\f');
      const __m128i kBeforeA = _mm_set1_epi8('A' - 1);
      const __m128i kAfterZ = _mm_set1_epi8('Z' + 1);
      const __m128i kCaseBit = _mm_set1_epi8(0x20);
      while (end - q >= 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
        __m128i sp = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, kSpace), _mm_cmpeq_epi8(v, kTab)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, kVt), _mm_cmpeq_epi8(v, kFf)));
        unsigned spm = static_cast<unsigned>(_mm_movemask_epi8(sp));
        unsigned high = static_cast<unsigned>(_mm_movemask_epi8(v));
        if (high != 0 || (spm & ((spm << 1) | last_space)) != 0) break;
        __m128i upper = _mm_and_si128(_mm_cmpgt_epi8(v, kBeforeA), _mm_cmplt_epi8(v, kAfterZ));
        v = _mm_add_epi8(v, _mm_and_si128(upper, kCaseBit));
        v = _mm_or_si128(_mm_andnot_si128(sp, v), _mm_and_si128(sp, kSpace));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(wq), v);
        wq += 16;
        q += 16;
        last_space = spm >> 15;
      }
      for (; q < end; ++q) {
        unsigned e = t.packed[*q];
        unsigned sp = (e >> 8) & 1;
        *wq = static_cast<char>(e);
        wq += 1 - (sp & last_space);
        last_space = sp;
        all |= e;
      }
      if (!(all & 0x200)) {
        if (wq > w && wq[-1] == ' ') --wq;
        seen = wq > w;
        w = wq;
        p = end;
      }
    }
    while (p < end) {
      // Plain bytes: the hot loop.
      while (p < end && t.cls[*p] == kPlain) {
        *w++ = (F & kCase) ? t.lower[*p] : static_cast<char>(*p);
        ++p;
        seen = true;
      }
      if (p >= end) break;
      int space = SpaceAt<F>(t, p, end);
      if (space > 0) {
        const unsigned char* run = p;
        p += space;
        while (p < end && (space = SpaceAt<F>(t, p, end)) > 0) p += space;
        bool trailing = p >= end;
        if (!seen) {
          // Leading (or the whole line, when also trailing).
          if (!(F & kIndent) && !(trailing && (F & kTrailing))) w = EmitRun<F>(run, p, w);
        } else if (trailing) {
          if (!(F & kTrailing)) w = EmitRun<F>(run, p, w);
        } else if (F & kInnerSpace) {
          *w++ = ' ';
        } else {
          w = EmitRun<F>(run, p, w);
        }
        continue;
      }
      // A non-ASCII byte: mapped punctuation, a removed zero-width
      // character, or copied as it is.
      if (F & kPunct) {
        Mapped m = MapUnicode(p, end);
        if (m.length > 0) {
          for (const char* r = m.ascii; *r; ++r) {
            *w++ = *r;
            seen = true;
          }
          p += m.length;
          continue;
        }
      }
      *w++ = static_cast<char>(*p++);
      seen = true;
    }
    if (!seen && (F & kBlank)) {
      w = line_begin_w;  // drop the blank line
    } else {
      if (with_maps) {
        out.line_start.push_back(static_cast<uint32_t>(content_w - wbegin));
        out.orig_line.push_back(line_no);
        out.orig_offset.push_back(static_cast<uint32_t>(line - base));
      }
      first_out_line = false;
    }
    line = next;
  }
  out.text.resize(static_cast<size_t>(w - wbegin));
  out.total_lines = input.empty() || input.back() == '\n' ? line_no - 1 : line_no;
  return out;
}

NormalizedText Normalize(absl::string_view input, unsigned flags, bool with_maps) {
  switch (flags) {
    case kAll:
      return NormalizeT<kAll>(input, with_maps);
    case kAll & ~kEol:
      return NormalizeT<kAll & ~kEol>(input, with_maps);
    case kAll & ~kTrailing:
      return NormalizeT<kAll & ~kTrailing>(input, with_maps);
    case kAll & ~kIndent:
      return NormalizeT<kAll & ~kIndent>(input, with_maps);
    case kAll & ~kInnerSpace:
      return NormalizeT<kAll & ~kInnerSpace>(input, with_maps);
    case kAll & ~kBlank:
      return NormalizeT<kAll & ~kBlank>(input, with_maps);
    case kAll & ~kPunct:
      return NormalizeT<kAll & ~kPunct>(input, with_maps);
    case kAll & ~kCase:
      return NormalizeT<kAll & ~kCase>(input, with_maps);
    default:
      break;
  }
  abort();  // only the sets above are used
}

// Offset of `needle` in `hay` at or after `from`, or npos. SSE2 filter on
// the needle's first and last bytes, 16 positions at a time, then a compare
// (W. Mula's method): several times faster than glibc's memmem on the
// repetitive text of normalised source. Needles over 64 bytes go to memmem
// (two-way, linear), so the worst case stays bounded.
size_t FastFind(absl::string_view hay, absl::string_view needle, size_t from = 0) {
  size_t n = needle.size();
  if (n < 2 || n > 64 || from > hay.size() || hay.size() - from < n + 16) return FindText(hay, needle, from);
  const char* h = hay.data();
  const __m128i first = _mm_set1_epi8(needle[0]);
  const __m128i last = _mm_set1_epi8(needle[n - 1]);
  size_t i = from;
  size_t limit = hay.size() - n - 15;  // blocks of 16 candidate starts
  for (; i < limit; i += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i + n - 1));
    unsigned mask =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last))));
    while (mask != 0) {
      unsigned bit = static_cast<unsigned>(__builtin_ctz(mask));
      if (memcmp(h + i + bit + 1, needle.data() + 1, n - 2) == 0) return i + bit;
      mask &= mask - 1;
    }
  }
  return FindText(hay, needle, i);
}

size_t FastCount(absl::string_view hay, absl::string_view needle, size_t from) {
  size_t count = 0;
  if (needle.empty()) return 0;
  for (size_t at = FastFind(hay, needle, from); at != kNpos; at = FastFind(hay, needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// Index of the normalised line holding `offset`.
size_t LineIndexOf(const NormalizedText& n, size_t offset) {
  auto it = std::upper_bound(n.line_start.begin(), n.line_start.end(), static_cast<uint32_t>(offset));
  return it == n.line_start.begin() ? 0 : static_cast<size_t>(it - n.line_start.begin()) - 1;
}

// The original line starting at `offset`, without its line break.
absl::string_view OriginalLine(absl::string_view text, size_t offset) {
  size_t nl = text.find('\n', offset);
  absl::string_view line = text.substr(offset, nl == kNpos ? kNpos : nl - offset);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Offsets of original lines first..last (1-based), found from the start
// offset of line `first`.
std::vector<absl::string_view> OriginalLines(absl::string_view text, size_t first_offset, int64_t count) {
  std::vector<absl::string_view> lines;
  size_t pos = first_offset;
  for (int64_t i = 0; i < count && pos <= text.size(); ++i) {
    lines.push_back(OriginalLine(text, pos));
    size_t nl = text.find('\n', pos);
    if (nl == kNpos) break;
    pos = nl + 1;
  }
  return lines;
}

std::string LineSpan(int64_t a, int64_t b) {
  return a == b ? absl::StrCat("line ", a) : absl::StrCat("lines ", a, "-", b);
}

// "1 line", "N lines".
std::string LineCount(int64_t n) { return absl::StrCat(n, n == 1 ? " line" : " lines"); }

// The region's lines as they are, numbered; long regions are elided.
std::string ShowLines(absl::string_view text, size_t first_offset, int64_t first, int64_t last) {
  constexpr int64_t kMaxShown = 16;
  constexpr size_t kMaxLineBytes = 300;
  std::vector<absl::string_view> lines = OriginalLines(text, first_offset, last - first + 1);
  int64_t width = static_cast<int64_t>(absl::StrCat(first + static_cast<int64_t>(lines.size()) - 1).size());
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    int64_t n = static_cast<int64_t>(lines.size());
    if (n > kMaxShown && static_cast<int64_t>(i) == kMaxShown - 4) {
      absl::StrAppend(&out, "  ... (", n - kMaxShown + 1, " more lines)\n");
      i = static_cast<size_t>(n - 4);
    }
    absl::string_view l = lines[i];
    std::string shown(Utf8Prefix(l, kMaxLineBytes));
    if (shown.size() < l.size()) shown += " ...";
    absl::StrAppend(&out, absl::StrFormat("%*d | ", static_cast<int>(width), first + static_cast<int64_t>(i)),
                    ToValidUtf8(shown), "\n");
  }
  return out;
}

// Splits into lines without line breaks ("\r" of "\r\n" kept off).
std::vector<absl::string_view> SplitLines(absl::string_view text) {
  std::vector<absl::string_view> lines;
  size_t pos = 0;
  while (true) {
    size_t nl = text.find('\n', pos);
    lines.push_back(OriginalLine(text, pos));
    if (nl == kNpos) break;
    pos = nl + 1;
  }
  return lines;
}

// The first pair (needle line, file line) that differ, pairing non-blank
// lines in order; the needle's first line may be a line's tail and its last
// a line's head.
struct Difference {
  bool found = false;
  int64_t file_line = 0;
  absl::string_view file_text;
  absl::string_view needle_text;
};

bool IsBlank(absl::string_view line) {
  NormalizedText n = Normalize(line, kAll, false);
  return n.text.empty();
}

Difference FirstDifference(absl::string_view text, size_t region_offset, int64_t first_line, int64_t last_line,
                           absl::string_view needle) {
  std::vector<absl::string_view> file_lines = OriginalLines(text, region_offset, last_line - first_line + 1);
  std::vector<absl::string_view> needle_lines = SplitLines(needle);
  std::vector<std::pair<int64_t, absl::string_view>> file_nb;
  for (size_t i = 0; i < file_lines.size(); ++i) {
    if (!IsBlank(file_lines[i])) file_nb.emplace_back(first_line + static_cast<int64_t>(i), file_lines[i]);
  }
  std::vector<absl::string_view> needle_nb;
  for (absl::string_view l : needle_lines) {
    if (!IsBlank(l)) needle_nb.push_back(l);
  }
  Difference d;
  size_t n = std::min(file_nb.size(), needle_nb.size());
  for (size_t i = 0; i < n; ++i) {
    absl::string_view f = file_nb[i].second;
    absl::string_view o = needle_nb[i];
    bool same = f == o;
    if (!same && i == 0 && f.size() >= o.size() && f.substr(f.size() - o.size()) == o) same = true;
    if (!same && i + 1 == needle_nb.size() && f.substr(0, o.size()) == o) same = true;
    if (!same) {
      d.found = true;
      d.file_line = file_nb[i].first;
      d.file_text = f;
      d.needle_text = o;
      return d;
    }
  }
  return d;
}

std::string DifferenceText(const Difference& d, absl::string_view what) {
  if (!d.found) return "";
  // `what` may be a term (core::Term), said as wide as the dialect says it.
  const std::string pad = core::TermPadding(what, 4);
  return absl::StrCat("First difference, at line ", d.file_line,
                      " (escapes show tabs, \\r and look-alike "
                      "characters):\n  file: ",
                      pad, VisibleLine(d.file_text), "\n  ", what, ": ", VisibleLine(d.needle_text), "\n");
}

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

std::vector<absl::string_view> Words(absl::string_view text) {
  std::vector<absl::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IsWordByte(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && IsWordByte(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

// Share of the needle's words (as a multiset) that also occur in `region`.
double WordOverlap(absl::string_view needle, absl::string_view region, int64_t* common, int64_t* total) {
  absl::flat_hash_map<absl::string_view, int> have;
  for (absl::string_view w : Words(region)) ++have[w];
  int64_t hit = 0, all = 0;
  for (absl::string_view w : Words(needle)) {
    ++all;
    auto it = have.find(w);
    if (it != have.end() && it->second > 0) {
      --it->second;
      ++hit;
    }
  }
  *common = hit;
  *total = all;
  return all == 0 ? 0.0 : static_cast<double>(hit) / static_cast<double>(all);
}

}  // namespace

std::string VisibleLine(absl::string_view line) {
  std::string out = "\"";
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  const unsigned char* end = p + line.size();
  while (p < end) {
    unsigned char c = *p;
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == 0x7F) {
      absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
    } else if (c >= 0x80) {
      Mapped m = MapUnicode(p, end);
      if (m.length > 0) {
        // Decode the code point to name it.
        uint32_t cp = m.length == 2 ? ((p[0] & 0x1F) << 6) | (p[1] & 0x3F)
                                    : ((p[0] & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
        absl::StrAppend(&out, absl::StrFormat("\\u%04x", cp));
        p += m.length;
        continue;
      }
      size_t bad = 0;
      absl::string_view rest(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p));
      // Copy one well-formed character, or mark a stray byte.
      size_t n = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
      if (n <= rest.size() && IsValidUtf8(rest.substr(0, n), &bad)) {
        out.append(rest.data(), n);
        p += n;
        continue;
      }
      absl::StrAppend(&out, absl::StrFormat("\\x%02x", c));
    } else {
      out.push_back(static_cast<char>(c));
    }
    ++p;
  }
  out += "\"";
  return out;
}

MissDiagnosis DiagnoseMiss(absl::string_view text, absl::string_view needle, absl::string_view what) {
  MissDiagnosis d;
  const std::string tail = absl::StrCat("Nothing was applied (edits need an exact match): copy ", what,
                                        " from the file's lines exactly, as shown, and retry.");
  NormalizedText file = Normalize(text, kAll, true);
  NormalizedText want = Normalize(needle, kAll, true);
  if (want.text.empty()) {
    d.message = absl::StrCat(what, " holds only whitespace; give the exact text to find.");
    return d;
  }
  if (file.line_start.empty()) {
    d.message = absl::StrCat("The file is empty or holds only whitespace (", LineCount(file.total_lines),
                             "); read it again before editing.");
    return d;
  }

  // 1. A match once line endings, whitespace, Unicode punctuation and case
  //    are normalised.
  size_t hit = FastFind(file.text, want.text);
  if (hit != kNpos) {
    d.kind = MissKind::kNormalized;
    d.normalized_matches = 1 + static_cast<int64_t>(FastCount(file.text, want.text, hit + want.text.size()));
    size_t a = LineIndexOf(file, hit);
    size_t b = LineIndexOf(file, hit + want.text.size() - 1);
    d.first_line = file.orig_line[a];
    d.last_line = file.orig_line[b];
    size_t region_begin = file.orig_offset[a];
    size_t region_end = text.find('\n', file.orig_offset[b]);
    region_end = region_end == kNpos ? text.size() : region_end + 1;
    std::string region = NormalizeBreaks(text.substr(region_begin, region_end - region_begin));
    std::string want_lf = NormalizeBreaks(needle);
    for (const FlagName& f : kFlagNames) {
      unsigned flags = kAll & ~static_cast<unsigned>(f.flag);
      if (Normalize(region, flags, false).text.find(Normalize(want_lf, flags, false).text) == std::string::npos) {
        d.differences.push_back(f.name);
      }
    }
    if (d.differences.empty()) d.differences.push_back("whitespace");
    std::vector<std::string> names(d.differences.begin(), d.differences.end());
    std::string others = d.normalized_matches > 1 ? absl::StrCat(" (and ", d.normalized_matches - 1, " other place",
                                                                 d.normalized_matches > 2 ? "s" : "", ")")
                                                  : "";
    Difference diff = FirstDifference(text, region_begin, d.first_line, d.last_line, needle);
    d.message = absl::StrCat("It matches ", LineSpan(d.first_line, d.last_line), others, " when ", JoinNumbers(names),
                             names.size() == 1 ? " is" : " are", " ignored.\n", DifferenceText(diff, what),
                             "What the file has at ", LineSpan(d.first_line, d.last_line), ":\n",
                             ShowLines(text, region_begin, d.first_line, d.last_line), tail);
    return d;
  }

  // 2. The region that holds most of the needle's distinctive words, voted
  //    for by each word's occurrences (aligned on the word's line).
  std::vector<absl::string_view> words;
  for (absl::string_view w : Words(want.text)) {
    if (w.size() >= 3 && std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
  }
  std::stable_sort(words.begin(), words.end(),
                   [](absl::string_view x, absl::string_view y) { return x.size() > y.size(); });
  if (words.size() > 3) words.resize(3);
  constexpr size_t kMaxHitsPerWord = 2000;
  absl::flat_hash_map<int64_t, uint32_t> votes;
  std::vector<int64_t> aligned;
  for (size_t wi = 0; wi < words.size(); ++wi) {
    absl::string_view w = words[wi];
    int64_t word_line = static_cast<int64_t>(LineIndexOf(want, static_cast<size_t>(w.data() - want.text.data())));
    aligned.clear();
    size_t pos = 0;
    bool common = false;
    while (true) {
      size_t at = FastFind(file.text, w, pos);
      if (at == kNpos) break;
      pos = at + w.size();
      bool left_ok = at == 0 || !IsWordByte(static_cast<unsigned char>(file.text[at - 1]));
      bool right_ok = pos >= file.text.size() || !IsWordByte(static_cast<unsigned char>(file.text[pos]));
      if (!left_ok || !right_ok) continue;
      if (aligned.size() >= kMaxHitsPerWord) {
        common = true;
        break;
      }
      aligned.push_back(static_cast<int64_t>(LineIndexOf(file, at)) - word_line);
    }
    if (common) continue;
    for (int64_t start : aligned) votes[start] |= 1u << wi;
  }
  int64_t best_start = 0;
  size_t best_weight = 0;
  for (const auto& [start, mask] : votes) {
    size_t weight = 0;
    for (size_t wi = 0; wi < words.size(); ++wi) {
      if (mask & (1u << wi)) weight += words[wi].size();
    }
    if (weight > best_weight || (weight == best_weight && start < best_start)) {
      best_weight = weight;
      best_start = start;
    }
  }
  if (best_weight > 0) {
    int64_t n_lines = static_cast<int64_t>(file.line_start.size());
    int64_t a = std::max<int64_t>(0, best_start);
    int64_t b = std::min<int64_t>(n_lines - 1, best_start + static_cast<int64_t>(want.line_start.size()) - 1);
    size_t from = file.line_start[static_cast<size_t>(a)];
    size_t to = b + 1 < n_lines ? file.line_start[static_cast<size_t>(b + 1)] : file.text.size();
    int64_t common = 0, total = 0;
    double overlap = WordOverlap(want.text, absl::string_view(file.text).substr(from, to - from), &common, &total);
    if (overlap >= 0.5) {
      d.kind = MissKind::kClose;
      d.first_line = file.orig_line[static_cast<size_t>(a)];
      d.last_line = file.orig_line[static_cast<size_t>(b)];
      size_t region_begin = file.orig_offset[static_cast<size_t>(a)];
      Difference diff = FirstDifference(text, region_begin, d.first_line, d.last_line, needle);
      d.message = absl::StrCat("The most similar text is at ", LineSpan(d.first_line, d.last_line), " (", common,
                               " of ", what, "'s ", total, " words appear there).\n", DifferenceText(diff, what),
                               "What the file has at ", LineSpan(d.first_line, d.last_line), ":\n",
                               ShowLines(text, region_begin, d.first_line, d.last_line),
                               "If this is the place you mean, copy ", what,
                               " from these lines exactly and retry. Nothing was applied (edits need an exact "
                               "match).");
      return d;
    }
  }

  d.message = absl::StrCat("No similar text is in the file (", LineCount(file.total_lines),
                           "). Read it again and copy it exactly, including indentation, or check that the path "
                           "names the file you mean.");
  return d;
}

}  // namespace clada::fs_ops::internal
