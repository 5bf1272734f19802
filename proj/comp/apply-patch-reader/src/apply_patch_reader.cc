#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/line_starts.h"

namespace clada::apply_patch_reader {
namespace {

// The answer's number of line `index` (0-based) of the text read.
int LineNumber(const ReadOptions& o, size_t index) { return o.first_line + static_cast<int>(index); }

// A line quoted as Markdown (`> `, `>`), without its quote mark; nullopt
// when it is not quoted.
std::optional<absl::string_view> Unquoted(absl::string_view raw) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(raw);
  if (!absl::ConsumePrefix(&s, ">")) return std::nullopt;
  absl::ConsumePrefix(&s, " ");
  return s;
}

// An answer whose only envelopes are quoted as Markdown (`> *** Begin
// Patch`): each quoted run of lines holding one is a `quoted_patch` error
// (its operations' lines would carry the quote marks), never silence.
void QuotedPatches(absl::string_view text, std::vector<Patch>* out, const ReadOptions& o) {
  const core::LineStarts lines(text);
  const size_t n = lines.size();
  for (size_t i = 0; i < n; ++i) {
    if (patch_text::IsBeginPatchLine(lines.Content(i))) return;  // a real envelope: quoted ones are citations
  }
  for (size_t i = 0; i < n; ++i) {
    std::optional<absl::string_view> u = Unquoted(lines.Content(i));
    if (!u.has_value() || !patch_text::IsBeginPatchLine(*u)) continue;
    size_t first = i, last = i;
    while (first > 0 && Unquoted(lines.Content(first - 1)).has_value()) --first;
    while (last + 1 < n && Unquoted(lines.Content(last + 1)).has_value()) ++last;
    Patch p;
    p.span = {o.first_byte + lines.Begin(first), o.first_byte + lines.End(last), LineNumber(o, first),
              LineNumber(o, last)};
    p.ended = true;
    p.errors.push_back({"quoted_patch", LineNumber(o, i),
                        absl::StrCat("the patch on line ", LineNumber(o, i), " is quoted with '>' (a Markdown quote) on lines ",
                                     LineNumber(o, first), "-", LineNumber(o, last), ", so none of it was read or applied"),
                        "send the patch again without the '> ' before its lines: `*** Begin Patch` alone on its line, "
                        "through `*** End Patch`"});
    out->push_back(std::move(p));
    i = last;
  }
}

// The quoted envelopes of `text` when there are some and no other.
std::vector<Patch> Quoted(absl::string_view text, const ReadOptions& o) {
  std::vector<Patch> out;
  if (absl::StrContains(text, "> *** Begin") || absl::StrContains(text, ">*** Begin")) QuotedPatches(text, &out, o);
  return out;
}

}  // namespace

std::vector<Patch> ReadPatches(absl::string_view text, const ReadOptions& options) {
  std::vector<Patch> quoted = Quoted(text, options);
  if (!quoted.empty()) return quoted;
  return patch_text::ParsePatches(text, options);
}

std::vector<Patch> ReadEnvelopes(absl::string_view text, const ReadOptions& options) {
  std::vector<Patch> quoted = Quoted(text, options);
  if (!quoted.empty()) return quoted;
  return patch_text::ParseEnvelopes(text, options);
}

std::vector<SourceSpan> FindPatches(absl::string_view text) {
  std::vector<SourceSpan> spans;
  for (const Patch& p : ReadEnvelopes(text)) spans.push_back(p.span);
  return spans;
}

}  // namespace clada::apply_patch_reader
