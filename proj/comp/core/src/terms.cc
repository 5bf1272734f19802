#include "proj/comp/core/src/terms.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace clada::core {
namespace {

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// A marked term's inside: names of schema words, '|' between two, then
// "=value" (any bytes but the mark); or one name, '~' and digits.
bool IsTerm(absl::string_view inside) {
  const size_t eq = inside.find('=');
  absl::string_view names = inside.substr(0, eq);
  if (const size_t tilde = names.find('~'); tilde != absl::string_view::npos && eq == absl::string_view::npos) {
    absl::string_view digits = names.substr(tilde + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != absl::string_view::npos) return false;
    names = names.substr(0, tilde);
    if (names.find('|') != absl::string_view::npos) return false;
  }
  if (names.empty()) return false;
  bool after_bar = true;
  for (char c : names) {
    if (c == '|') {
      if (after_bar) return false;
      after_bar = true;
    } else if (IsNameChar(c)) {
      after_bar = false;
    } else {
      return false;
    }
  }
  return !after_bar;
}

std::string Bare(absl::string_view name, absl::string_view value) {
  return value.empty() ? std::string(name) : absl::StrCat(name, " = ", value);
}

}  // namespace

std::string Term(absl::string_view name) { return absl::StrCat(std::string(1, kTermMark), name, std::string(1, kTermMark)); }

std::string Term(absl::string_view name, absl::string_view value) {
  return absl::StrCat(std::string(1, kTermMark), name, "=", value, std::string(1, kTermMark));
}

std::string TermOr(absl::string_view first, absl::string_view second) {
  return absl::StrCat(std::string(1, kTermMark), first, "|", second, std::string(1, kTermMark));
}

std::string TermPadding(absl::string_view text, size_t less) {
  if (text.size() > 2 && text.front() == kTermMark && text.back() == kTermMark &&
      IsTerm(text.substr(1, text.size() - 2)) && text.find_first_of("=|~") == absl::string_view::npos) {
    return absl::StrCat(text.substr(0, text.size() - 1), "~", less, std::string(1, kTermMark));
  }
  return std::string(text.size() > less ? text.size() - less : 0, ' ');
}

std::string RenderTerms(absl::string_view message, SayTermFn say) {
  std::string out;
  size_t at = 0;
  while (at < message.size()) {
    const size_t open = message.find(kTermMark, at);
    if (open == absl::string_view::npos) break;
    const size_t close = message.find(kTermMark, open + 1);
    if (close == absl::string_view::npos) break;
    const absl::string_view inside = message.substr(open + 1, close - open - 1);
    if (!IsTerm(inside)) {  // a lone mark: kept, and the next may open a term
      out.append(message.data() + at, open + 1 - at);
      at = open + 1;
      continue;
    }
    out.append(message.data() + at, open - at);
    at = close + 1;
    if (const size_t tilde = inside.find('~'); tilde != absl::string_view::npos) {
      const absl::string_view name = inside.substr(0, tilde);
      size_t less = 0;
      if (!absl::SimpleAtoi(inside.substr(tilde + 1), &less)) less = 0;
      const std::string said = say(name, "").value_or(std::string(name));
      size_t width = 0;  // characters: bytes that start one
      for (char c : said) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      out.append(width > less ? width - less : 0, ' ');
      continue;
    }
    const size_t eq = inside.find('=');
    const absl::string_view value = eq == absl::string_view::npos ? "" : inside.substr(eq + 1);
    const std::vector<absl::string_view> names = absl::StrSplit(inside.substr(0, eq), '|');
    std::vector<std::string> said;
    for (absl::string_view name : names) {
      std::optional<std::string> s = say(name, value);
      if (s.has_value() && std::find(said.begin(), said.end(), *s) == said.end()) said.push_back(*std::move(s));
    }
    if (said.empty()) {
      for (absl::string_view name : names) said.push_back(Bare(name, value));
    }
    out += said[0];
    for (size_t i = 1; i < said.size(); ++i) absl::StrAppend(&out, " (or ", said[i], ")");
  }
  out.append(message.data() + at, message.size() - at);
  return out;
}

std::string BareTerms(absl::string_view message) {
  if (message.find(kTermMark) == absl::string_view::npos) return std::string(message);
  return RenderTerms(message, [](absl::string_view name, absl::string_view value) -> std::optional<std::string> {
    return Bare(name, value);
  });
}

}  // namespace clada::core
