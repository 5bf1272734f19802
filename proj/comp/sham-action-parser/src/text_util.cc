#include "proj/comp/sham-action-parser/src/text_util.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/utf8.h"

namespace clada::sham_action_parser::internal {

std::string QuoteForMessage(absl::string_view text, size_t max_chars) {
  std::string out = "\"";
  size_t chars = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (chars == max_chars) {
      out += "...";
      break;
    }
    const size_t len = core::Utf8SequenceLength(text, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else if (text[i] == '\n') {
      out += "\\n";
      ++i;
    } else if (text[i] == '\t') {
      out += "\\t";
      ++i;
    } else if (text[i] == '\r') {
      out += "\\r";
      ++i;
    } else if (text[i] == '\0') {
      out += "\\0";
      ++i;
    } else if (static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7F) {
      out += absl::StrCat("\\u00",
                          absl::Hex(static_cast<unsigned char>(text[i]),
                                    absl::kZeroPad2));
      ++i;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
    ++chars;
  }
  out += "\"";
  return out;
}

IntegerParse ParseDecimalInteger(absl::string_view text, int64_t* value) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) i = 1;
  if (i == text.size()) return IntegerParse::kNotInteger;
  for (size_t k = i; k < text.size(); ++k) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(text[k])))
      return IntegerParse::kNotInteger;
  }
  // Accumulate negatively so that INT64_MIN fits.
  int64_t result = 0;
  for (; i < text.size(); ++i) {
    const int digit = text[i] - '0';
    if (result < (std::numeric_limits<int64_t>::min() + digit) / 10)
      return IntegerParse::kOutOfRange;
    result = result * 10 - digit;
  }
  if (!negative) {
    if (result == std::numeric_limits<int64_t>::min())
      return IntegerParse::kOutOfRange;
    result = -result;
  }
  *value = result;
  return IntegerParse::kOk;
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  const std::string x = absl::AsciiStrToLower(a);
  const std::string y = absl::AsciiStrToLower(b);
  std::vector<size_t> row(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= y.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (x[i - 1] == y[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[y.size()];
}

}  // namespace clada::sham_action_parser::internal
