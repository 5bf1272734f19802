#include "proj/comp/core/src/terminal_text.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace clada::core {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Bytes copied as they are whatever follows them: printable ASCII.
constexpr std::array<bool, 256> kPlainTable = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x7F; ++c) plain[c] = true;
  return plain;
}();

// The same, plus the line break and the tab, which every form but one line
// keeps as they are.
constexpr std::array<bool, 256> kPlainOrLineTable = [] {
  std::array<bool, 256> plain = kPlainTable;
  plain['\n'] = true;
  plain['\t'] = true;
  return plain;
}();

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The code points shown escaped although they are well-formed: C1 controls,
// and the characters that are invisible or change the order or the lines of
// what a terminal shows.
bool IsHidden(uint32_t cp) {
  if (cp < 0xA0) return cp >= 0x80;  // C1 controls
  if (cp < 0x2000) return cp == 0xAD || cp == 0x61C || cp == 0x115F || cp == 0x1160 || cp == 0x180E;
  if (cp <= 0x206F) {
    return (cp >= 0x200B && cp <= 0x200F) ||  // zero-width space, joiners, LRM, RLM
           (cp >= 0x2028 && cp <= 0x202E) ||  // line and paragraph separators, embeddings, overrides
           (cp >= 0x2060 && cp <= 0x2064) ||  // word joiner, invisible operators
           (cp >= 0x2066 && cp <= 0x206F);    // isolates, deprecated format characters
  }
  return cp == 0x3164 || cp == 0xFEFF || cp == 0xFFA0 || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
         (cp >= 0xE0000 && cp <= 0xE007F);  // tag characters
}

// One step of decoding at s[i] (Unicode table 3-7): the bytes it takes and
// its code point; `valid` false: s[i] starts no well-formed sequence (it is
// then one byte long) or, with `complete` false, the text ends before the
// sequence could be told whole.
struct Unit {
  size_t len = 1;
  uint32_t cp = 0;
  bool valid = false;
  bool complete = true;
};

Unit Decode(const unsigned char* s, size_t n, size_t i) {
  const unsigned char c = s[i];
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return Unit{};
  }
  for (size_t k = 1; k < len; ++k) {
    if (i + k >= n) {
      Unit u;
      u.complete = false;
      return u;
    }
    const unsigned char b = s[i + k];
    if (k == 1 ? (b < lo || b > hi) : !IsContinuation(b)) return Unit{};
    cp = (cp << 6) | (b & 0x3F);
  }
  Unit u;
  u.len = len;
  u.cp = cp;
  u.valid = true;
  return u;
}

void AppendHex4(uint32_t v, std::string* out) {
  for (int shift = 12; shift >= 0; shift -= 4) out->push_back(kHex[(v >> shift) & 0xF]);
}

// A byte shown as `\xNN` (JSON: `\u00NN`).
void AppendByteEscape(unsigned char c, TerminalForm form, std::string* out) {
  out->append(form == TerminalForm::kJson ? "\\u00" : "\\x");
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 0xF]);
}

// A code point shown as `\uNNNN` or `\UNNNNNNNN` (JSON: a surrogate pair).
void AppendCodePointEscape(uint32_t cp, TerminalForm form, std::string* out) {
  if (cp <= 0xFFFF) {
    out->append("\\u");
    AppendHex4(cp, out);
  } else if (form == TerminalForm::kJson) {
    const uint32_t v = cp - 0x10000;
    out->append("\\u");
    AppendHex4(0xD800 + (v >> 10), out);
    out->append("\\u");
    AppendHex4(0xDC00 + (v & 0x3FF), out);
  } else {
    out->append("\\U");
    AppendHex4(cp >> 16, out);
    AppendHex4(cp & 0xFFFF, out);
  }
}

// AppendEscapedForTerminal that stops, at a whole character or escape,
// before `out` would grow by more than `limit` bytes.
size_t AppendEscaped(absl::string_view text, TerminalForm form, bool final, size_t limit, std::string* out) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  const bool lines = form != TerminalForm::kOneLine;
  const size_t start = out->size();
  const auto room = [&] { return limit - (out->size() - start); };
  std::string escape;
  size_t i = 0;
  while (i < n) {
    // A run of bytes that are kept as they are, copied at once.
    size_t run = i;
    const std::array<bool, 256>& plain = lines ? kPlainOrLineTable : kPlainTable;
    while (run < n && plain[s[run]]) ++run;
    const size_t copied = std::min(run - i, room());
    out->append(text.data() + i, copied);
    i += copied;
    if (i == n || i < run) break;
    const unsigned char c = s[i];
    size_t used = 1;
    escape.clear();
    if (c < 0x80) {
      if (c == '\r' && lines) {
        if (i + 1 == n && !final) break;  // "\r\n" or not: the next byte tells
        if (i + 1 < n && s[i + 1] == '\n') {
          escape = "\r\n";
          used = 2;
        }
      }
      if (escape.empty()) AppendByteEscape(c, form, &escape);
    } else {
      const Unit u = Decode(s, n, i);
      if (!u.complete && !final) break;
      if (!u.valid) {
        if (form == TerminalForm::kJson) {
          escape = "\\ufffd";
        } else {
          AppendByteEscape(c, form, &escape);
        }
      } else if (IsHidden(u.cp)) {
        AppendCodePointEscape(u.cp, form, &escape);
        used = u.len;
      } else {
        escape.assign(text.data() + i, u.len);
        used = u.len;
      }
    }
    if (escape.size() > room()) break;
    out->append(escape);
    i += used;
  }
  return i;
}

}  // namespace

size_t AppendEscapedForTerminal(absl::string_view text, TerminalForm form, bool final, std::string* out) {
  return AppendEscaped(text, form, final, std::numeric_limits<size_t>::max(), out);
}

size_t AppendEscapedForTerminalWithin(absl::string_view text, TerminalForm form, size_t limit, std::string* out) {
  return AppendEscaped(text, form, /*final=*/true, limit, out);
}

std::string EscapeForTerminal(absl::string_view text, TerminalForm form) {
  std::string out;
  out.reserve(text.size());
  AppendEscapedForTerminal(text, form, /*final=*/true, &out);
  return out;
}

TerminalStreamBuf::TerminalStreamBuf(std::ostream& dest, TerminalForm form) : dest_(dest), form_(form) {
  setp(buffer_, buffer_ + sizeof buffer_);
}

TerminalStreamBuf::~TerminalStreamBuf() {
  Drain(/*final=*/true);
  dest_.flush();
}

void TerminalStreamBuf::set_form(TerminalForm form) {
  Drain(/*final=*/true);
  form_ = form;
}

TerminalStreamBuf::int_type TerminalStreamBuf::overflow(int_type ch) {
  Drain(/*final=*/false);
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  *pptr() = traits_type::to_char_type(ch);
  pbump(1);
  return ch;
}

int TerminalStreamBuf::sync() {
  Drain(/*final=*/false);
  dest_.flush();
  return dest_.good() ? 0 : -1;
}

void TerminalStreamBuf::Drain(bool final) {
  const absl::string_view fresh(pbase(), static_cast<size_t>(pptr() - pbase()));
  setp(buffer_, buffer_ + sizeof buffer_);
  escaped_.clear();
  if (held_.empty()) {
    const size_t used = AppendEscapedForTerminal(fresh, form_, final, &escaped_);
    held_.assign(fresh.data() + used, fresh.size() - used);
  } else {
    held_.append(fresh.data(), fresh.size());
    const size_t used = AppendEscapedForTerminal(held_, form_, final, &escaped_);
    held_.erase(0, used);
  }
  if (!escaped_.empty()) dest_.write(escaped_.data(), static_cast<std::streamsize>(escaped_.size()));
}

TerminalStream::TerminalStream(std::ostream& dest, TerminalForm form) : std::ostream(nullptr), buf_(dest, form) {
  rdbuf(&buf_);
}

TerminalStream::~TerminalStream() { flush(); }

}  // namespace clada::core
