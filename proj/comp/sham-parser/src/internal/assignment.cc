#include "proj/comp/sham-parser/src/internal/assignment.h"

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/sham-parser/src/internal/unicode_tables.h"
#include "proj/comp/sham-parser/src/internal/utf8.h"

namespace clada::sham_parser::internal {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The four hex digits at s[i..i+3] as a number, or -1.
int ReadHex4(absl::string_view s, size_t i) {
  if (i + 4 > s.size()) return -1;
  int v = 0;
  for (size_t k = 0; k < 4; ++k) {
    const int h = HexValue(s[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// True when the byte needs the slow path of the string scanner.
inline bool IsSpecialStringByte(unsigned char b) {
  return b == '"' || b == '\\' || b < 0x20;
}

Assignment Fail(const char* code, size_t begin, size_t end,
                std::optional<size_t> fixed_length = std::nullopt) {
  Assignment a;
  a.kind = Assignment::Kind::kError;
  a.error.code = code;
  a.error.begin = begin;
  a.error.end = end;
  a.error.fixed_length = fixed_length;
  return a;
}

bool IsKeyCodePoint(char32_t cp, bool first) {
  if (cp == '_') return true;
  if (IsUnicodeLetter(cp)) return true;
  return !first && IsUnicodeNumber(cp);
}

}  // namespace

size_t DecodeQuotedString(absl::string_view s, std::string* decoded,
                          bool* valid) {
  decoded->clear();
  *valid = true;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 1;
  while (true) {
    size_t j = i;
    while (j < n && !IsSpecialStringByte(p[j])) ++j;
    if (*valid) decoded->append(s.data() + i, j - i);
    i = j;
    if (i >= n) return absl::string_view::npos;
    if (p[i] == '"') return i;
    if (p[i] < 0x20) {  // JSON forbids raw control characters
      *valid = false;
      ++i;
      continue;
    }
    // A backslash escapes whatever follows it, as far as finding the end goes.
    if (i + 1 >= n) return absl::string_view::npos;
    const char e = s[i + 1];
    i += 2;
    if (!*valid) continue;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        decoded->push_back(e);
        break;
      case 'b':
        decoded->push_back('\b');
        break;
      case 'f':
        decoded->push_back('\f');
        break;
      case 'n':
        decoded->push_back('\n');
        break;
      case 'r':
        decoded->push_back('\r');
        break;
      case 't':
        decoded->push_back('\t');
        break;
      case 'u': {
        const int unit = ReadHex4(s, i);
        if (unit < 0) {
          *valid = false;
          break;
        }
        i += 4;
        char32_t cp = static_cast<char32_t>(unit);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          const int low = (i + 1 < n && s[i] == '\\' && s[i + 1] == 'u')
                              ? ReadHex4(s, i + 2)
                              : -1;
          if (low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((static_cast<char32_t>(unit) - 0xD800) << 10) +
                 (static_cast<char32_t>(low) - 0xDC00);
            i += 6;
          } else {
            cp = 0xFFFD;
          }
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
          cp = 0xFFFD;
        }
        AppendUtf8(cp, decoded);
        break;
      }
      default:
        *valid = false;
        break;
    }
  }
}

Assignment ParseAssignmentLine(absl::string_view line) {
  const size_t equal_pos = line.find('=');
  // `key => value`: the first '=' belongs to an arrow.
  const size_t arrow = line.find("=>");
  if (arrow != absl::string_view::npos && arrow == equal_pos) {
    return Fail("INVALID_VALUE", arrow, arrow + 2);
  }
  // `key := value`: only where the first '=' is that of a `:=`. The
  // reference flags `:=` anywhere on the line, even inside a quoted value
  // (`code = "x := 1"`), which would make Go one-liners unwritable.
  const size_t colon_equals = line.find(":=");
  if (colon_equals != absl::string_view::npos && colon_equals + 1 == equal_pos) {
    return Fail("INVALID_ASSIGNMENT_OPERATOR", colon_equals, colon_equals + 2);
  }
  if (equal_pos == absl::string_view::npos) {
    return Fail("MALFORMED_ASSIGNMENT", 0, line.size());
  }
  const absl::string_view key = TrimJs(line.substr(0, equal_pos));
  if (key.empty()) return Fail("EMPTY_KEY", equal_pos, equal_pos + 1);

  const absl::string_view after = line.substr(equal_pos + 1);
  const size_t lead = LeadingJsWhitespace(after);
  const absl::string_view value_text = TrimEndJs(after.substr(lead));
  const size_t value_start = equal_pos + 1 + lead;
  if (value_text.empty())
    return Fail("INVALID_VALUE", line.size(), line.size(), 1);

  if (value_text[0] == '"') {
    Assignment a;
    bool valid = false;
    const size_t close = DecodeQuotedString(value_text, &a.value, &valid);
    if (close == absl::string_view::npos)
      return Fail("UNCLOSED_QUOTE", value_start, line.size());
    if (!valid)
      return Fail("INVALID_VALUE", value_start, value_start + close + 1);
    a.equal_pos = equal_pos;
    a.key = key;
    const absl::string_view rest = value_text.substr(close + 1);
    if (!rest.empty()) {  // value_text is trimmed, so rest holds something
                          // visible
      const size_t trailing =
          value_start + close + 1 + LeadingJsWhitespace(rest);
      a.kind = Assignment::Kind::kError;
      a.error.code = "TRAILING_CONTENT";
      a.error.begin = trailing;
      a.error.end = line.size();
      return a;
    }
    a.kind = Assignment::Kind::kKeyValue;
    return a;
  }

  // <<'DELIMITER' with a non-empty delimiter free of quotes.
  if (value_text.size() >= 5 && absl::StartsWith(value_text, "<<'") &&
      value_text.back() == '\'') {
    const absl::string_view delimiter =
        value_text.substr(3, value_text.size() - 4);
    if (delimiter.find('\'') == absl::string_view::npos) {
      Assignment a;
      a.kind = Assignment::Kind::kHeredoc;
      a.equal_pos = equal_pos;
      a.key = key;
      a.delimiter = delimiter;
      return a;
    }
  }
  return Fail("INVALID_VALUE", value_start, value_start + value_text.size());
}

std::optional<std::string> KeyProblem(absl::string_view key) {
  size_t pos = 0;
  size_t utf16_pos = 0;
  while (pos < key.size()) {
    const size_t char_start = pos;
    const char32_t cp = DecodeUtf8(key, &pos);
    if (!IsKeyCodePoint(cp, char_start == 0)) {
      return absl::StrCat("Key contains invalid character '",
                          key.substr(char_start, pos - char_start),
                          "' at position ", utf16_pos + 1);
    }
    utf16_pos += cp >= 0x10000 ? 2 : 1;
  }
  if (utf16_pos > kMaxKeyLength)
    return absl::StrCat("Key exceeds ", kMaxKeyLength, " character limit");
  return std::nullopt;
}

}  // namespace clada::sham_parser::internal
