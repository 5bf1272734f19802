#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/ascii.h"
#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {

void PatchOpActions(const apply_patch_reader::FileOp& op, absl::string_view text,
                    absl::FunctionRef<void(core::Action&&)> add) {
  core::Action a;
  a.warnings = op.warnings();
  if (op.kind == apply_patch_reader::OpKind::kAdd) {
    a.name = "file_write";
    a.params["path"] = op.path;
    a.params["content"] = op.content();
    add(std::move(a));
  } else if (op.kind == apply_patch_reader::OpKind::kDelete) {
    a.name = "file_delete";
    a.params["path"] = op.path;
    add(std::move(a));
  } else {
    // The operation's lines, without its `*** Move to:` (the move is its own action).
    std::string body;
    for (size_t pos = op.span.begin; pos < op.span.end;) {
      size_t nl = text.find('\n', pos);
      size_t end = nl == absl::string_view::npos || nl >= op.span.end ? op.span.end : nl + 1;
      absl::string_view line = text.substr(pos, end - pos);
      if (!absl::StartsWithIgnoreCase(absl::StripLeadingAsciiWhitespace(line), "*** Move to:")) {
        body.append(line.data(), line.size());
      }
      pos = end;
    }
    a.name = "file_apply_patch";
    a.params["path"] = op.path;
    a.params["patch"] = std::move(body);
    add(std::move(a));
    if (op.move_to().has_value()) {
      core::Action m;
      m.name = "file_move";
      m.params["old_path"] = op.path;
      m.params["new_path"] = *op.move_to();
      add(std::move(m));
    }
  }
}

void DiffFileActions(const udiff_reader::FilePatch& f, absl::string_view text,
                     absl::FunctionRef<void(core::Action&&)> add) {
  core::Action a;
  a.warnings = f.warnings;
  if (f.kind == udiff_reader::FileKind::kAdd || f.kind == udiff_reader::FileKind::kDelete || f.copy_from) {
    // As git apply: a created file must not exist yet, a deleted one must
    // hold exactly the lines the diff removes, a copy is written from its
    // source and keeps it (file_apply_diff checks and does each; its path
    // is the file written, so git-tx plans a copy as that file's creation).
    a.name = "file_apply_diff";
    a.params["path"] = f.path;
    a.params["diff"] = std::string(text.substr(f.span.begin, f.span.end - f.span.begin));
    add(std::move(a));
    return;
  }
  if (f.move_to.has_value()) {
    core::Action m;
    m.name = "file_move";
    m.params["old_path"] = f.path;
    m.params["new_path"] = *f.move_to;
    if (f.hunks.empty()) m.warnings = f.warnings;
    add(std::move(m));
  }
  if (!f.hunks.empty()) {
    a.name = "file_apply_diff";
    a.params["path"] = f.move_to.value_or(f.path);
    // A rename's diff is given from its first hunk: the move is its own action.
    size_t from = f.span.begin;
    if (f.move_to.has_value()) {
      for (int line = f.span.first_line; line < f.hunks[0].source_line && from < f.span.end; ++line) {
        const size_t nl = text.find('\n', from);
        from = nl == absl::string_view::npos ? f.span.end : nl + 1;
      }
    }
    a.params["diff"] = std::string(text.substr(from, f.span.end - from));
    add(std::move(a));
  }
}

SpanPiece PieceOf(absl::string_view text, const answer::Span& span) {
  size_t begin = std::min(span.at.begin, text.size());
  while (begin > 0 && text[begin - 1] != '\n') --begin;
  const size_t end = std::min(std::max(span.at.end, begin), text.size());
  return {text.substr(begin, end - begin), std::max(span.at.first_line, 1), begin};
}

bool More(absl::string_view text, const answer::Span& span) {
  return text.find_first_not_of(" \t\r\n", std::min(span.at.end, text.size())) != absl::string_view::npos;
}

void ShiftLabels(answer::ReadResult& r, absl::string_view prefix, int by) {
  if (by == 0) return;
  for (core::Action& a : r.actions) {
    ShiftNumbers(a.metadata.block_id, prefix, by);
    for (std::string& w : a.warnings) ShiftNumbers(w, prefix, by);
  }
  for (answer::Diagnostic& d : r.diagnostics) {
    ShiftNumbers(d.label, prefix, by);
    ShiftNumbers(d.message, prefix, by);
    ShiftNumbers(d.fix, prefix, by);
  }
  for (std::string& w : r.warnings) ShiftNumbers(w, prefix, by);
}

void EachItsOwnGroup(answer::ReadResult& r, size_t first) {
  for (size_t i = first; i < r.actions.size(); ++i) r.groups.push_back({answer::GroupPolicy::kIndependent, i, 1});
}

core::SourceSpan LineSpan(const core::LineStarts& lines, int first, int last) {
  const size_t n = lines.size();
  const size_t f = static_cast<size_t>(std::clamp(first, 1, static_cast<int>(std::max<size_t>(n, 1)))) - 1;
  const size_t l = static_cast<size_t>(std::clamp(last, first, static_cast<int>(std::max<size_t>(n, 1)))) - 1;
  if (n == 0) return {0, 0, first, last};
  // A last line past the text's (an unclosed block's "line after the last")
  // is its last line.
  return {lines.Begin(f), lines.End(std::min(l, n - 1)), first, std::max(first, std::min(last, static_cast<int>(n)))};
}

void ShiftNumbers(std::string& s, absl::string_view prefix, int by) {
  if (by == 0 || prefix.empty() || s.find(prefix.data(), 0, prefix.size()) == std::string::npos) return;
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t at = s.find(prefix.data(), pos, prefix.size());
    if (at == std::string::npos) break;
    size_t digits = at + prefix.size();
    while (digits < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
    out.append(s, pos, at + prefix.size() - pos);
    pos = at + prefix.size();
    int n = 0;
    const bool whole = digits > pos && (at == 0 || !absl::ascii_isalnum(static_cast<unsigned char>(s[at - 1]))) &&
                       absl::SimpleAtoi(absl::string_view(s).substr(pos, digits - pos), &n);
    if (whole) {
      absl::StrAppend(&out, n + by);
      pos = digits;
    }
  }
  out.append(s, pos, std::string::npos);
  s = std::move(out);
}

std::optional<std::string> LookUpFix(absl::Span<const FixPhrase> table, absl::string_view code,
                                     absl::string_view action) {
  const bool edit = absl::StartsWith(action, "file_replace") || absl::StartsWith(action, "file_apply");
  for (const FixPhrase& row : table) {
    if (row.code == code && (edit || !row.edits_only)) return std::string(row.text);
  }
  return std::nullopt;
}

std::optional<std::string> LookUpTerm(absl::Span<const TermPhrase> table, absl::string_view name,
                                      absl::string_view value) {
  for (const TermPhrase& row : table) {
    if (row.name != name) continue;
    // A word said with a value ("count=\"2\""), given none, is the bare name.
    if (value.empty() && absl::StrContains(row.text, "{value}")) return std::string(name);
    return absl::StrReplaceAll(row.text, {{"{value}", value}});
  }
  return std::nullopt;
}

}  // namespace clada::readers
