#include "proj/comp/fs-ops/src/placeholder.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace clada::fs_ops::internal {
namespace {

constexpr absl::string_view kUnicodeEllipsis = "\xE2\x80\xA6";  // …

// Words a placeholder is made of. A comment that uses any other word
// ("TODO", "retry", "arguments") is a real comment.
const absl::flat_hash_set<absl::string_view>& PlaceholderWords() {
  static const auto* words = new absl::flat_hash_set<absl::string_view>{
      "a", "abbreviated", "above", "all", "and", "are", "as", "be", "before", "below", "body", "brevity", "case",
      "cases", "class", "classes", "code", "columns", "component", "components", "config", "configuration",
      "content", "contents", "continue", "continues", "css", "definitions", "document", "elided", "entries",
      "etc", "existing", "fields", "file", "files", "for", "function", "functions", "goes", "handlers", "helpers",
      "here", "hooks", "html", "identical", "implementation", "implementations", "imports", "in", "intact", "is",
      "items", "jsx", "keep", "kept", "left", "line", "lines", "logic", "markup", "method", "methods", "module",
      "more", "no", "not", "of", "omit", "omitted", "on", "original", "other", "others", "previous",
      "previously", "properties", "props", "remain", "remainder", "remaining", "remains", "rest", "routes", "rows",
      "s", "same", "section", "sections", "settings", "shown", "similar", "skip", "skipped", "snip", "snipped",
      "so", "stay", "stays", "styles", "template", "tests", "that", "the", "this", "to", "truncated",
      "unaltered", "unchanged", "unmodified", "untouched", "your"};
  return *words;
}

// Words that say the text is left out or kept as it was; without an
// ellipsis a comment needs one of these and a word naming what is left out.
const absl::flat_hash_set<absl::string_view>& StateWords() {
  static const auto* words = new absl::flat_hash_set<absl::string_view>{
      "abbreviated", "elided", "here",    "identical", "intact",    "keep",       "kept",     "omitted",
      "remains",     "shown",  "skipped", "snip",      "snipped",   "stays",      "truncated", "unaltered",
      "unchanged",   "unmodified", "untouched", "same", "rest", "remainder"};
  return *words;
}
const absl::flat_hash_set<absl::string_view>& SubjectWords() {
  static const auto* words = new absl::flat_hash_set<absl::string_view>{
      "rest",      "remainder", "remaining", "existing", "previous", "other",     "original", "code",
      "implementation", "methods", "functions", "file", "content", "body", "lines", "logic"};
  return *words;
}

bool IsEllipsisOnly(absl::string_view s) { return s == "..." || s == kUnicodeEllipsis; }

bool StartsWithEllipsis(absl::string_view s) {
  return absl::StartsWith(s, "...") || absl::StartsWith(s, kUnicodeEllipsis);
}
bool EndsWithEllipsis(absl::string_view s) { return absl::EndsWith(s, "...") || absl::EndsWith(s, kUnicodeEllipsis); }

// The words of `text` (lower case, split at anything not a letter or digit)
// and whether it holds an ellipsis.
struct Words {
  std::vector<std::string> words;
  bool ellipsis = false;
};
Words Tokenize(absl::string_view text) {
  Words w;
  std::string t = absl::AsciiStrToLower(absl::StrReplaceAll(text, {{kUnicodeEllipsis, " ... "}}));
  w.ellipsis = absl::StrContains(t, "...") || absl::StrContains(t, ". . .");
  for (char& c : t) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) c = ' ';
  }
  for (absl::string_view word : absl::StrSplit(t, ' ', absl::SkipEmpty())) w.words.emplace_back(word);
  return w;
}

// Only placeholder words (numbers allowed: "50 lines omitted").
bool AllPlaceholderWords(const Words& w) {
  for (const std::string& word : w.words) {
    bool number = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return absl::ascii_isdigit(c); });
    if (!number && !PlaceholderWords().contains(word)) return false;
  }
  return true;
}
bool Has(const Words& w, const absl::flat_hash_set<absl::string_view>& set) {
  for (const std::string& word : w.words) {
    if (set.contains(word)) return true;
  }
  return false;
}

// The text of a whole-line comment, markers removed, or nullopt when the
// line is not a comment.
std::optional<absl::string_view> CommentText(absl::string_view s) {
  struct Pair {
    absl::string_view open, close;
  };
  static constexpr Pair kBlocks[] = {{"<!--", "-->"}, {"{/*", "*/}"}, {"/*", "*/"}, {"(*", "*)"}, {"{-", "-}"}};
  for (const Pair& p : kBlocks) {
    if (absl::ConsumePrefix(&s, p.open)) {
      absl::ConsumeSuffix(&s, p.close);  // a block comment may go on below
      return absl::StripAsciiWhitespace(s);
    }
  }
  // Line comments: "//", "#", "--", ";", "%", and "*" inside a block comment.
  // "#!" (a shebang) and "#include"-like directives are code: their words
  // are not placeholder words, so they fail below anyway.
  static constexpr absl::string_view kLine[] = {"//", "#", "--", ";", "%", "*"};
  for (absl::string_view marker : kLine) {
    if (!absl::StartsWith(s, marker)) continue;
    while (absl::ConsumePrefix(&s, marker)) {
    }
    absl::ConsumeSuffix(&s, "*/");
    return absl::StripAsciiWhitespace(s);
  }
  return std::nullopt;
}

}  // namespace

bool IsPlaceholderLine(absl::string_view line) {
  absl::string_view s = absl::StripAsciiWhitespace(line);
  if (s.empty()) return false;
  if (s == "[...]" || s == "[\xE2\x80\xA6]") return true;
  std::optional<absl::string_view> comment = CommentText(s);
  if (comment.has_value()) {
    Words w = Tokenize(*comment);
    if (w.words.empty()) return w.ellipsis || *comment == "[...]";  // "# ...", "/* ... */"
    if (!AllPlaceholderWords(w)) return false;
    if (w.ellipsis) return true;
    return Has(w, StateWords()) && Has(w, SubjectWords());
  }
  // A bare line: "... rest of the file unchanged ...", never "..." alone
  // (Python's Ellipsis, YAML's document end) nor "...rest," (a spread).
  if (IsEllipsisOnly(s) || !StartsWithEllipsis(s) || !EndsWithEllipsis(s)) return false;
  Words w = Tokenize(s);
  return !w.words.empty() && AllPlaceholderWords(w) && Has(w, SubjectWords());
}

std::optional<PlaceholderLine> FindPlaceholder(absl::string_view content, absl::string_view existing) {
  return PlaceholderFinder(existing).Find(content);
}

std::optional<PlaceholderLine> PlaceholderFinder::Find(absl::string_view content) {
  int64_t number = 0;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    ++number;
    absl::ConsumeSuffix(&line, "\r");
    if (!IsPlaceholderLine(line)) continue;
    if (!old_lines_.has_value()) {  // built at the first placeholder
      old_lines_.emplace();
      for (absl::string_view old : absl::StrSplit(existing_, '\n')) {
        absl::ConsumeSuffix(&old, "\r");
        old_lines_->insert(old);
      }
    }
    if (!old_lines_->contains(line)) return PlaceholderLine{number, std::string(line)};
  }
  return std::nullopt;
}

}  // namespace clada::fs_ops::internal
