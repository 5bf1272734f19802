#include "proj/comp/sham-parser/src/internal/utf8.h"

#include <cstdint>
#include <cstring>

namespace clada::sham_parser::internal {
namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ull;

// Length (1-4) of the well-formed sequence at p, or 0 when it is ill-formed;
// then *subpart is the length of its maximal subpart (at least 1), which the
// WHATWG decoder turns into one U+FFFD.
int CheckSequence(const unsigned char* p, size_t avail, int* subpart) {
  const unsigned char b = p[0];
  if (b < 0x80) return 1;
  int need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b == 0xE0) {
    need = 2;
    lo = 0xA0;
  } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
    need = 2;
  } else if (b == 0xED) {
    need = 2;
    hi = 0x9F;
  } else if (b == 0xF0) {
    need = 3;
    lo = 0x90;
  } else if (b >= 0xF1 && b <= 0xF3) {
    need = 3;
  } else if (b == 0xF4) {
    need = 3;
    hi = 0x8F;
  } else {
    *subpart = 1;
    return 0;
  }
  for (int i = 1; i <= need; ++i) {
    if (static_cast<size_t>(i) >= avail || p[i] < lo || p[i] > hi) {
      *subpart = i;
      return 0;
    }
    lo = 0x80;
    hi = 0xBF;
  }
  return need + 1;
}

// Skips ASCII a word at a time; returns the index of the first
// non-ASCII byte at or after i (or n).
size_t SkipAscii(const unsigned char* p, size_t i, size_t n) {
  while (i + 32 <= n) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    if ((w[0] | w[1] | w[2] | w[3]) & kHighBits) break;
    i += 32;
  }
  while (i + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w & kHighBits) break;
    i += 8;
  }
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

bool IsAsciiWhitespace(unsigned char b) {
  return b == ' ' || (b >= 0x09 && b <= 0x0D);
}

// Whitespace encoded in three bytes starting with E1, E2, E3 or EF.
bool IsThreeByteWhitespace(unsigned char a, unsigned char b, unsigned char c) {
  switch (a) {
    case 0xE1:
      return b == 0x9A && c == 0x80;  // U+1680
    case 0xE2:
      if (b == 0x80)
        return c <= 0x8A || c == 0xA8 || c == 0xA9 ||
               c == 0xAF;             // U+2000-200A, 2028, 2029, 202F
      return b == 0x81 && c == 0x9F;  // U+205F
    case 0xE3:
      return b == 0x80 && c == 0x80;  // U+3000
    case 0xEF:
      return b == 0xBB && c == 0xBF;  // U+FEFF
    default:
      return false;
  }
}

}  // namespace

std::string ReplaceInvalidUtf8(absl::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  std::string out;
  out.reserve(n + n / 8);
  size_t i = 0;
  size_t valid_from = 0;  // start of the well-formed run not yet copied
  while (i < n) {
    if (p[i] < 0x80) {
      i = SkipAscii(p, i, n);
      continue;
    }
    int subpart = 0;
    const int len = CheckSequence(p + i, n - i, &subpart);
    if (len > 0) {
      i += len;
      continue;
    }
    if (i > valid_from) out.append(s.data() + valid_from, i - valid_from);
    out.push_back('\xEF');  // U+FFFD
    out.push_back('\xBF');
    out.push_back('\xBD');
    i += subpart;
    valid_from = i;
  }
  out.append(s.data() + valid_from, n - valid_from);
  return out;
}

char32_t DecodeUtf8(absl::string_view s, size_t* pos) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + *pos;
  const unsigned char b = p[0];
  if (b < 0x80) {
    *pos += 1;
    return b;
  }
  if (b < 0xE0) {
    *pos += 2;
    return (char32_t{b} & 0x1F) << 6 | (p[1] & 0x3F);
  }
  if (b < 0xF0) {
    *pos += 3;
    return (char32_t{b} & 0x0F) << 12 | (char32_t{p[1]} & 0x3F) << 6 |
           (p[2] & 0x3F);
  }
  *pos += 4;
  return (char32_t{b} & 0x07) << 18 | (char32_t{p[1]} & 0x3F) << 12 |
         (char32_t{p[2]} & 0x3F) << 6 | (p[3] & 0x3F);
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t Utf16Length(absl::string_view s) {
  size_t units = 0;
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    // Every lead byte starts one unit; four-byte sequences need a surrogate
    // pair.
    units += ((b & 0xC0) != 0x80) + (b >= 0xF0);
  }
  return units;
}

bool IsJsWhitespace(char32_t cp) {
  switch (cp) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
    case 0xFEFF:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

size_t LeadingJsWhitespace(absl::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (IsAsciiWhitespace(p[i])) {
      ++i;
    } else if (p[i] == 0xC2 && i + 1 < n && p[i + 1] == 0xA0) {
      i += 2;
    } else if (i + 2 < n && IsThreeByteWhitespace(p[i], p[i + 1], p[i + 2])) {
      i += 3;
    } else {
      break;
    }
  }
  return i;
}

size_t TrailingJsWhitespace(absl::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  const size_t total = n;
  while (n > 0) {
    if (IsAsciiWhitespace(p[n - 1])) {
      --n;
    } else if (n >= 2 && p[n - 2] == 0xC2 && p[n - 1] == 0xA0) {
      n -= 2;
    } else if (n >= 3 && IsThreeByteWhitespace(p[n - 3], p[n - 2], p[n - 1])) {
      n -= 3;
    } else {
      break;
    }
  }
  return total - n;
}

absl::string_view TrimStartJs(absl::string_view s) {
  return s.substr(LeadingJsWhitespace(s));
}

absl::string_view TrimEndJs(absl::string_view s) {
  return s.substr(0, s.size() - TrailingJsWhitespace(s));
}

absl::string_view TrimJs(absl::string_view s) {
  return TrimEndJs(TrimStartJs(s));
}

}  // namespace clada::sham_parser::internal
