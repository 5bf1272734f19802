#include "proj/comp/sham-parser/src/internal/line_syntax.h"

#include <cstring>

#include "absl/strings/match.h"
#include "proj/comp/sham-parser/src/internal/utf8.h"

namespace clada::sham_parser::internal {
namespace {

constexpr size_t kHeaderPrefixLength = 7;  // "#!SHAM " and its siblings

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

}  // namespace

const Dialect kShamDialect = {
    "#!SHAM ", "#!END_SHAM_", "EOT_SHAM_",
    "#!SHAM [@three-char-SHA-256: ", "Invalid SHAM header format"};
const Dialect kNeslUpperDialect = {
    "#!NESL ", "#!END_NESL_", "EOT_NESL_",
    "#!NESL [@three-char-SHA-256: ", "Invalid NESL header format"};
const Dialect kNeslDialect = {
    "#!nesl ", "#!end_", "EOT_",
    "#!nesl [@three-char-SHA-256: ", "Invalid NESL header format"};

const Dialect* FindHeaderDialect(absl::string_view line) {
  const absl::string_view rest = line.substr(LeadingJsWhitespace(line));
  if (rest.size() < kHeaderPrefixLength || rest[0] != '#' || rest[1] != '!' ||
      rest[6] != ' ')
    return nullptr;
  const Dialect* dialect;
  const absl::string_view name = rest.substr(2, 4);
  if (name == "SHAM") {
    dialect = &kShamDialect;
  } else if (name == "NESL") {
    dialect = &kNeslUpperDialect;
  } else if (name == "nesl") {
    dialect = &kNeslDialect;
  } else {
    return nullptr;
  }
  // The reference tests the trimmed line, so the prefix's space only counts
  // when something other than whitespace follows it.
  if (TrailingJsWhitespace(rest) > rest.size() - kHeaderPrefixLength)
    return nullptr;
  return dialect;
}

Classification ClassifyLine(absl::string_view line,
                            const Dialect* block_dialect) {
  const size_t lead = LeadingJsWhitespace(line);
  if (lead == line.size()) return {LineType::kEmpty, nullptr};
  const absl::string_view rest = line.substr(lead);
  if (block_dialect != nullptr &&
      absl::StartsWith(rest, block_dialect->end_prefix)) {
    return {LineType::kEndMarker, nullptr};
  }
  if (const Dialect* d = FindHeaderDialect(rest)) return {LineType::kHeader, d};
  if (std::memchr(rest.data(), '=', rest.size()) != nullptr)
    return {LineType::kAssignment, nullptr};
  return {LineType::kUnknown, nullptr};
}

std::optional<absl::string_view> ParseHeaderId(absl::string_view line,
                                               const Dialect& dialect) {
  if (!absl::StartsWith(line, dialect.header_prefix)) return std::nullopt;
  size_t i = dialect.header_prefix.size();
  const size_t n = line.size();
  if (i + 2 > n || line[i] != '[' || line[i + 1] != '@') return std::nullopt;
  i += 2;
  const size_t label_start = i;
  while (i < n && (IsAsciiAlnum(line[i]) || line[i] == '-')) ++i;
  if (i == label_start || i + 2 > n || line[i] != ':' || line[i + 1] != ' ')
    return std::nullopt;
  const size_t id_start = i + 2;
  if (n < id_start + 2 || line[n - 1] != ']') return std::nullopt;
  const absl::string_view id = line.substr(id_start, n - 1 - id_start);
  if (std::memchr(id.data(), ']', id.size()) != nullptr) return std::nullopt;
  return id;
}

std::optional<absl::string_view> ParseEndMarkerId(absl::string_view line,
                                                  const Dialect& dialect) {
  if (!absl::StartsWith(line, dialect.end_prefix)) return std::nullopt;
  absl::string_view id = line.substr(dialect.end_prefix.size());
  if (!id.empty() && id.back() == '\'') id.remove_suffix(1);
  if (id.size() < 2 || id.size() > 8) return std::nullopt;
  for (const char c : id) {
    if (!IsAsciiAlnum(c)) return std::nullopt;
  }
  return id;
}

const char* BlockIdProblem(absl::string_view id) {
  const size_t length = Utf16Length(id);
  // The reference says "exactly 3" whatever the bounds; kept word for word.
  if (length < 2 || length > 8) return "Block ID must be exactly 3 characters";
  for (const char c : id) {
    if (!IsAsciiAlnum(c))
      return "Block ID must contain only alphanumeric characters";
  }
  return nullptr;
}

}  // namespace clada::sham_parser::internal
