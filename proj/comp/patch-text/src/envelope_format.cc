#include "proj/comp/patch-text/src/envelope_format.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace clada::patch_text {
namespace {

using hunk_apply::Hunk;
using hunk_apply::PatchLine;

constexpr absl::string_view kBegin = "*** Begin Patch";
constexpr absl::string_view kEnd = "*** End Patch";
constexpr absl::string_view kEofMarker = "*** End of File";
constexpr absl::string_view kHeaders = "`*** Add File: <path>`, `*** Delete File: <path>` or `*** Update File: <path>`";

struct Line {
  absl::string_view text;    // without "\n" or "\r\n"
  uint32_t break_bytes = 0;  // 1 ("\n"), 2 ("\r\n") or 0 (the last line, unended)
};

// Where line i starts in the text: its view's offset from line 0's, which
// starts the text (24 bytes a line, not 40 with both offsets kept).
size_t LineBegin(const std::vector<Line>& lines, size_t i) {
  return static_cast<size_t>(lines[i].text.data() - lines[0].text.data());
}
// Where the line after line i starts (line i's end with its break).
size_t LineNext(const std::vector<Line>& lines, size_t i) {
  return LineBegin(lines, i) + lines[i].text.size() + lines[i].break_bytes;
}

std::vector<Line> SplitText(absl::string_view text) {
  std::vector<Line> lines;
  // Reserved: a vector that doubles would hold 1.5 times an answer of
  // millions of lines for a moment.
  lines.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t next = nl == absl::string_view::npos ? text.size() : nl + 1;
    size_t end = nl == absl::string_view::npos ? text.size() : nl;
    if (end > start && text[end - 1] == '\r') --end;
    lines.push_back({text.substr(start, end - start), static_cast<uint32_t>(next - end)});
    start = next;
  }
  return lines;
}

absl::string_view Trim(absl::string_view s) { return absl::StripAsciiWhitespace(s); }

std::string Quote(absl::string_view s) {
  constexpr size_t kMax = 100;
  if (s.size() <= kMax) return absl::StrCat("`", s, "`");
  return absl::StrCat("`", s.substr(0, kMax), "…`");
}

enum class Marker { kNone, kBegin, kEnd, kAdd, kDelete, kUpdate, kMove, kEof, kOtherStars };

struct Classified {
  Marker marker = Marker::kNone;
  bool canonical = true;  // written exactly as the grammar has it (after trimming)
  std::string arg;        // the path of a header
};

// Reads a trimmed line that starts with '*'.
Classified Classify(absl::string_view raw) {
  Classified c;
  absl::string_view t = Trim(raw);
  if (t.empty() || t[0] != '*') return c;
  absl::string_view inner = t;
  while (!inner.empty() && (inner[0] == '*' || inner[0] == ' ')) inner.remove_prefix(1);
  absl::string_view bare = inner;
  while (!bare.empty() && (bare.back() == '*' || bare.back() == ' ')) bare.remove_suffix(1);
  const std::string lower = absl::AsciiStrToLower(bare);
  if (lower == "begin patch") {
    c.marker = Marker::kBegin;
    c.canonical = t == kBegin;
    return c;
  }
  if (lower == "end patch") {
    c.marker = Marker::kEnd;
    c.canonical = t == kEnd;
    return c;
  }
  if (lower == "end of file") {
    c.marker = Marker::kEof;
    c.canonical = t == kEofMarker;
    return c;
  }
  struct Header {
    absl::string_view name;
    Marker marker;
  };
  static constexpr Header kNames[] = {{"add file:", Marker::kAdd},
                                      {"delete file:", Marker::kDelete},
                                      {"update file:", Marker::kUpdate},
                                      {"move to:", Marker::kMove}};
  for (const Header& h : kNames) {
    if (absl::StartsWithIgnoreCase(inner, h.name)) {
      c.marker = h.marker;
      c.arg = std::string(Trim(inner.substr(h.name.size())));
      static constexpr absl::string_view kCanonical[] = {
          "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "};
      c.canonical = absl::StartsWith(t, kCanonical[&h - kNames]);
      return c;
    }
  }
  if (absl::StartsWith(t, "***")) c.marker = Marker::kOtherStars;
  return c;
}

bool IsOpHeader(Marker m) { return m == Marker::kAdd || m == Marker::kDelete || m == Marker::kUpdate; }

// A path as written: surrounding backticks or quotes removed.
std::string CleanPath(std::string path, std::vector<std::string>* warnings) {
  if (path.size() >= 2) {
    const char a = path.front(), b = path.back();
    if ((a == '`' && b == '`') || (a == '"' && b == '"') || (a == '\'' && b == '\'')) {
      warnings->push_back(absl::StrCat("the path ", path, " was read without its quotes"));
      path = path.substr(1, path.size() - 2);
    }
  }
  return path;
}

// The heredoc delimiter opened on `raw` (`apply_patch <<'EOF'`), or "".
std::string HeredocDelimiter(absl::string_view raw) {
  size_t at = raw.find("<<");
  if (at == absl::string_view::npos) return "";
  absl::string_view rest = raw.substr(at + 2);
  if (!rest.empty() && rest[0] == '-') rest.remove_prefix(1);
  while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
  char quote = 0;
  if (!rest.empty() && (rest[0] == '\'' || rest[0] == '"')) {
    quote = rest[0];
    rest.remove_prefix(1);
  }
  size_t n = 0;
  while (n < rest.size() && (absl::ascii_isalnum(rest[n]) || rest[n] == '_')) ++n;
  if (n == 0 || absl::ascii_isdigit(rest[0])) return "";
  if (quote && (n >= rest.size() || rest[n] != quote)) return "";
  return std::string(rest.substr(0, n));
}

bool IsFence(absl::string_view raw, char* ch, size_t* count) {
  if (raw.empty() || (raw[0] != '`' && raw[0] != '~')) return false;
  size_t n = 0;
  while (n < raw.size() && raw[n] == raw[0]) ++n;
  if (n < 3) return false;
  *ch = raw[0];
  *count = n;
  return true;
}

// Where an envelope's body ends and why.
enum class EndKind { kEndPatch, kEndOfText, kFence, kHeredoc, kNextBegin };

class BodyParser {
 public:
  // `keep_ops` false: the operations are read and counted, not kept.
  BodyParser(const std::vector<Line>& lines, size_t first, size_t end, bool implicit_end, Patch* patch,
             bool keep_ops, const TextOrigin& origin)
      : lines_(lines),
        i_(first),
        end_(end),
        implicit_(implicit_end),
        patch_(patch),
        keep_ops_(keep_ops),
        origin_(origin) {}

  // Parses lines [first, end). Returns the index of the first line not read
  // (end, or where a missing `*** End Patch` was taken to be).
  size_t Run() {
    while (i_ < end_ && !stopped_) {
      absl::string_view raw = lines_[i_].text;
      if (Trim(raw).empty()) {
        ++i_;
        continue;
      }
      Classified c = Classify(raw);
      if (IsOpHeader(c.marker)) {
        ParseOp(c);
        continue;
      }
      if (implicit_) {
        Stop();
        break;
      }
      if (c.marker == Marker::kMove) {
        Error("misplaced_marker", i_, absl::StrCat(Quote(raw), " is not right after an `*** Update File:` line"),
              "put `*** Move to: <new path>` on the line right after `*** Update File: <path>`");
      } else if (c.marker == Marker::kEof) {
        Error("misplaced_marker", i_, absl::StrCat(Quote(raw), " is not at the end of an update hunk"),
              "put `*** End of File` right after the last line of a hunk that ends at the end "
              "of the file, or remove it");
      } else if (c.marker == Marker::kOtherStars || c.marker == Marker::kBegin) {
        Error("invalid_header", i_, absl::StrCat(Quote(raw), " is not a valid file operation header"),
              absl::StrCat("start each file operation with ", kHeaders));
      } else {
        Error("bad_line", i_, absl::StrCat(Quote(raw), " is outside any file operation"),
              absl::StrCat("start a file operation with ", kHeaders,
                           ", or end the patch before this line with `*** End Patch`"));
      }
      ++i_;
      SkipToNextHeader();
    }
    return i_;
  }

  bool stopped() const { return stopped_; }
  size_t ops_read() const { return ops_read_; }
  size_t stop_line() const { return stop_line_; }
  size_t last_read() const { return last_read_; }

 private:
  void Error(std::string code, size_t index, std::string message, std::string fix) {
    patch_->errors.push_back({std::move(code), Ln(index), std::move(message), std::move(fix)});
  }

  void Stop() {
    stopped_ = true;
    stop_line_ = i_;
  }

  void SkipToNextHeader() {
    while (i_ < end_) {
      absl::string_view raw = lines_[i_].text;
      if (!raw.empty() && raw[0] != ' ' && raw[0] != '+' && raw[0] != '-' && IsOpHeader(Classify(raw).marker)) {
        return;
      }
      ++i_;
    }
  }

  void Read(size_t index) { last_read_ = std::max(last_read_, index); }

  // The answer's number of line `index` (0-based) of the text read.
  int Ln(size_t index) const { return origin_.first_line + static_cast<int>(index); }

  void ParseOp(const Classified& header) {
    const size_t start = i_;
    FileOp op;
    op.kind = header.marker == Marker::kAdd      ? OpKind::kAdd
              : header.marker == Marker::kDelete ? OpKind::kDelete
                                                 : OpKind::kUpdate;
    const absl::string_view raw = lines_[i_].text;
    if (!header.canonical) {
      op.details().warnings.push_back(absl::StrCat("line ", Ln(i_), ": ", Quote(Trim(raw)), " was read as `",
                                         HeaderWords(op.kind), header.arg, "`"));
    }
    if (header.arg.empty()) {
      Error("missing_path", i_, absl::StrCat(Quote(raw), " names no file"),
            absl::StrCat("write `", HeaderWords(op.kind), "<path>` with the file's path"));
      ++i_;
      SkipToNextHeader();
      return;
    }
    std::vector<std::string> path_warnings;
    op.path = CleanPath(header.arg, &path_warnings);
    for (std::string& w : path_warnings) op.details().warnings.push_back(std::move(w));
    Read(i_);
    ++i_;
    bool ok = true;
    switch (op.kind) {
      case OpKind::kAdd:
        ParseAdd(&op);
        break;
      case OpKind::kDelete:
        ParseDelete(&op);
        break;
      case OpKind::kUpdate:
        ok = ParseUpdate(&op, start);
        break;
    }
    if (!ok) {
      if (!stopped_) SkipToNextHeader();
      return;
    }
    op.span.begin = origin_.first_byte + LineBegin(lines_, start);
    size_t last = start;
    for (size_t k = start; k < i_ && k <= last_read_; ++k) last = k;
    op.span.end = origin_.first_byte + LineNext(lines_, last);
    op.span.first_line = Ln(start);
    op.span.last_line = Ln(last);
    ++ops_read_;
    if (keep_ops_) patch_->ops.push_back(std::move(op));
  }

  static absl::string_view HeaderWords(OpKind kind) {
    switch (kind) {
      case OpKind::kAdd:
        return "*** Add File: ";
      case OpKind::kDelete:
        return "*** Delete File: ";
      case OpKind::kUpdate:
        return "*** Update File: ";
    }
    return "";
  }

  void ParseAdd(FileOp* op) {
    bool warned = false;
    while (i_ < end_) {
      absl::string_view raw = lines_[i_].text;
      if (!raw.empty() && raw[0] == '+') {
        op->details().content.append(raw.data() + 1, raw.size() - 1);
        op->details().content.push_back('\n');
        Read(i_);
        ++i_;
        continue;
      }
      // Blank lines followed by more `+` lines: empty lines whose `+` is missing.
      if (Trim(raw).empty()) {
        size_t k = i_;
        while (k < end_ && Trim(lines_[k].text).empty()) ++k;
        if (k < end_ && !lines_[k].text.empty() && lines_[k].text[0] == '+') {
          if (!warned) {
            op->details().warnings.push_back(absl::StrCat("line ", Ln(i_),
                                                ": a blank line inside `*** Add File:` was read "
                                                "as an empty line of the file (it needs a `+`)"));
            warned = true;
          }
          for (; i_ < k; ++i_) op->details().content.push_back('\n');
          continue;
        }
      }
      break;
    }
  }

  void ParseDelete(FileOp* op) {
    size_t skipped = 0;
    const size_t first = i_;
    while (i_ < end_ && !lines_[i_].text.empty() && lines_[i_].text[0] == '-') {
      Read(i_);
      ++i_;
      ++skipped;
    }
    if (skipped > 0) {
      op->details().warnings.push_back(absl::StrCat("lines ", Ln(first), "-", Ln(i_ - 1),
                                          ": the `-` lines after `*** Delete File:` were ignored "
                                          "(deleting needs only the header)"));
    }
  }

  // One update hunk being read.
  struct Chunk {
    Hunk hunk;
    bool open = false;          // an `@@` line was read (or the first hunk started bare)
    size_t trailing_blank = 0;  // context lines at the end that were blank patch lines
    bool has_lines() const { return !hunk.lines.empty(); }
  };

  // Closes `c` into op->details().hunks. Blank patch lines at the end of a hunk that has
  // other old lines are dropped (models put blank lines between hunks).
  void Close(Chunk* c, FileOp* op) {
    if (!c->has_lines()) return;
    size_t old_lines = 0;
    for (const PatchLine& l : c->hunk.lines) old_lines += l.kind != PatchLine::kAdd;
    if (c->trailing_blank > 0 && old_lines > c->trailing_blank) {
      c->hunk.lines.resize(c->hunk.lines.size() - c->trailing_blank);
    }
    op->details().hunks.push_back(std::move(c->hunk));
    *c = Chunk();
  }

  bool ParseUpdate(FileOp* op, size_t header) {
    // `*** Move to:` right after the header.
    if (i_ < end_) {
      Classified c = Classify(lines_[i_].text);
      if (c.marker == Marker::kMove) {
        if (c.arg.empty()) {
          Error("missing_path", i_, absl::StrCat(Quote(lines_[i_].text), " names no file"),
                "write `*** Move to: <new path>`, or remove the line to keep the file's name");
          ++i_;
          return false;
        }
        std::string to = CleanPath(c.arg, &op->details().warnings);
        if (!c.canonical) {
          op->details().warnings.push_back(absl::StrCat("line ", Ln(i_), ": ", Quote(Trim(lines_[i_].text)),
                                              " was read as `*** Move to: ", to, "`"));
        }
        if (to == op->path) {
          op->details().warnings.push_back(absl::StrCat("line ", Ln(i_),
                                              ": `*** Move to:` names the file's own path; the "
                                              "file stays where it is"));
        } else {
          op->details().move_to = std::move(to);
        }
        Read(i_);
        ++i_;
      }
    }
    Chunk cur;
    while (i_ < end_) {
      absl::string_view raw = lines_[i_].text;
      const char first = raw.empty() ? '\0' : raw[0];
      if (first != ' ' && first != '+' && first != '-' && !raw.empty()) {
        Classified c = Classify(raw);
        if (c.marker == Marker::kEof) {
          if (cur.has_lines()) {
            cur.hunk.is_end_of_file = true;
            cur.trailing_blank = 0;
            Close(&cur, op);
          } else if (!op->details().hunks.empty() && !cur.open) {
            op->details().hunks.back().is_end_of_file = true;
          } else {
            Error("misplaced_marker", i_, "`*** End of File` comes before any line of its hunk",
                  "put `*** End of File` after the hunk's last line");
            ++i_;
            return false;
          }
          if (!c.canonical) {
            op->details().warnings.push_back(
                absl::StrCat("line ", Ln(i_), ": ", Quote(Trim(raw)), " was read as `*** End of File`"));
          }
          Read(i_);
          ++i_;
          continue;
        }
        if (c.marker != Marker::kNone) break;  // the next operation (or a bad header)
        if (absl::StartsWith(raw, "@@")) {
          if (cur.has_lines()) Close(&cur, op);
          if (!cur.open) cur.hunk.source_line = Ln(i_);
          cur.open = true;
          ReadAnchor(raw, &cur.hunk, op);
          Read(i_);
          ++i_;
          continue;
        }
        if (Trim(raw).empty()) {  // whitespace other than a leading space
          AddLine(&cur, PatchLine::kContext, raw, /*blank=*/true);
          continue;
        }
        // A line that is not part of the patch.
        if (implicit_) {
          Stop();
          break;
        }
        Error("bad_line", i_, absl::StrCat(Quote(raw), " in `*** Update File: ", op->path, "` is not a hunk line"),
              "start every hunk line with ' ' (unchanged context), '-' (removed) or '+' (added), "
              "and open each hunk with `@@` or `@@ <a line above the change>`");
        ++i_;
        return false;
      }
      if (raw.empty()) {
        if (cur.has_lines()) {
          AddLine(&cur, PatchLine::kContext, "", /*blank=*/true);
        } else {
          ++i_;
        }
        continue;
      }
      if (!cur.open && !op->details().hunks.empty()) {
        // Lines after `*** End of File` without a new `@@`.
        Error("bad_line", i_, absl::StrCat(Quote(raw), " follows `*** End of File` without `@@`"),
              "open the next hunk with `@@` or `@@ <a line above the change>`");
        ++i_;
        return false;
      }
      const PatchLine::Kind kind = first == '+'   ? PatchLine::kAdd
                                   : first == '-' ? PatchLine::kDelete
                                                  : PatchLine::kContext;
      AddLine(&cur, kind, raw.substr(1), /*blank=*/false);
    }
    if (stopped_ && cur.trailing_blank > 0) {
      cur.hunk.lines.resize(cur.hunk.lines.size() - cur.trailing_blank);
      cur.trailing_blank = 0;
    }
    if (cur.open && !cur.has_lines()) {
      Error("empty_hunk", static_cast<size_t>(cur.hunk.source_line - origin_.first_line),
            absl::StrCat("the hunk opened on line ", cur.hunk.source_line, " in `*** Update File: ", op->path,
                         "` has no lines"),
            "follow `@@` with the hunk's lines (' ' context, '-' removed, '+' added), or remove it");
      return false;
    }
    Close(&cur, op);
    if (op->details().hunks.empty()) {
      Error("empty_update", header, absl::StrCat("`*** Update File: ", op->path, "` has no hunks"),
            "add the changes as `@@` followed by ' ', '-' and '+' lines, or remove the section");
      return false;
    }
    return true;
  }

  void AddLine(Chunk* cur, PatchLine::Kind kind, absl::string_view text, bool blank) {
    if (!cur->open && !cur->has_lines()) {
      cur->open = true;  // the first hunk may start without `@@`
      cur->hunk.source_line = Ln(i_);
    }
    cur->hunk.lines.push_back({kind, std::string(text)});
    cur->trailing_blank = blank ? cur->trailing_blank + 1 : 0;
    if (!blank) Read(i_);
    ++i_;
  }

  // `@@`, `@@ <anchor>`, or a unified-diff header `@@ -a,b +c,d @@ <anchor>`.
  void ReadAnchor(absl::string_view raw, Hunk* hunk, FileOp* op) {
    absl::string_view rest = raw.substr(2);
    absl::string_view t = Trim(rest);
    if (t.empty()) return;
    if (t[0] == '-' && t.size() > 1 && absl::ascii_isdigit(t[1])) {
      size_t close = t.find("@@");
      if (close != absl::string_view::npos) {
        op->details().warnings.push_back(absl::StrCat("line ", Ln(i_), ": the line numbers in ", Quote(raw),
                                            " are ignored; apply_patch places hunks by their context"));
        absl::string_view after = Trim(t.substr(close + 2));
        if (!after.empty()) hunk->anchors.push_back(std::string(after));
        return;
      }
    }
    if (rest[0] == ' ') {
      hunk->anchors.push_back(std::string(rest.substr(1)));
      return;
    }
    op->details().warnings.push_back(absl::StrCat("line ", Ln(i_), ": ", Quote(raw), " was read as `@@ ", rest, "`"));
    hunk->anchors.push_back(std::string(rest));
  }

  const std::vector<Line>& lines_;
  size_t i_;
  size_t end_;
  bool implicit_;
  Patch* patch_;
  bool keep_ops_;
  TextOrigin origin_;
  size_t ops_read_ = 0;
  bool stopped_ = false;
  size_t stop_line_ = 0;
  size_t last_read_ = 0;
};

struct Envelope {
  size_t open = 0;   // first line of the span (heredoc opener or Begin)
  size_t begin = 0;  // the Begin line
  size_t end = 0;    // first line after the body (the End line, or where reading stopped)
  size_t close = 0;  // last line of the span
  EndKind end_kind = EndKind::kEndOfText;
  bool begin_canonical = true;
  bool end_canonical = true;
};

// The answer's number of line `index` (0-based) of the text read.
int LineNumber(const TextOrigin& o, size_t index) { return o.first_line + static_cast<int>(index); }

core::SourceSpan SpanOf(const std::vector<Line>& lines, size_t first, size_t last, const TextOrigin& o) {
  return {o.first_byte + LineBegin(lines, first), o.first_byte + LineNext(lines, last), LineNumber(o, first),
          LineNumber(o, last)};
}

// Reads the envelope whose `*** Begin Patch` is lines[b].
// Lines before `first_free` belong to an earlier patch.
Patch ReadEnvelope(const std::vector<Line>& lines, size_t b, size_t first_free, bool in_fence, char fence_ch,
                   size_t fence_count, size_t* resume, bool keep_ops, const TextOrigin& o) {
  auto ln = [&o](size_t index) { return LineNumber(o, index); };
  Patch patch;
  Envelope env;
  env.begin = b;
  env.open = b;
  env.begin_canonical = Classify(lines[b].text).canonical;
  std::string delimiter;
  if (b > first_free) {
    delimiter = HeredocDelimiter(lines[b - 1].text);
    if (!delimiter.empty()) env.open = b - 1;
  }
  size_t j = b + 1;
  for (; j < lines.size(); ++j) {
    absl::string_view raw = lines[j].text;
    Classified c = Classify(raw);
    if (c.marker == Marker::kEnd) {
      env.end_kind = EndKind::kEndPatch;
      env.end_canonical = c.canonical;
      break;
    }
    if (c.marker == Marker::kBegin && !raw.empty() && raw[0] != ' ' && raw[0] != '+' && raw[0] != '-') {
      env.end_kind = EndKind::kNextBegin;
      break;
    }
    if (!delimiter.empty() && absl::StripTrailingAsciiWhitespace(raw) == delimiter) {
      env.end_kind = EndKind::kHeredoc;
      break;
    }
    char ch;
    size_t count;
    if (in_fence && IsFence(raw, &ch, &count) && ch == fence_ch && count >= fence_count &&
        Trim(raw.substr(count)).empty()) {
      env.end_kind = EndKind::kFence;
      break;
    }
  }
  env.end = j;
  const bool explicit_end = env.end_kind == EndKind::kEndPatch;
  BodyParser body(lines, b + 1, j, !explicit_end, &patch, keep_ops, o);
  body.Run();
  const size_t stop = body.stop_line();

  if (!env.begin_canonical) {
    patch.warnings.push_back(absl::StrCat("line ", ln(b), ": ", Quote(Trim(lines[b].text)), " was read as `", kBegin,
                                          "` (write exactly that line)"));
  }
  size_t last;  // last line of the span
  patch.ended = explicit_end;
  if (explicit_end) {
    last = j;
    if (!env.end_canonical) {
      patch.warnings.push_back(absl::StrCat("line ", ln(j), ": ", Quote(Trim(lines[j].text)), " was read as `", kEnd,
                                            "` (write exactly that line)"));
    }
    if (!delimiter.empty() && j + 1 < lines.size() &&
        absl::StripTrailingAsciiWhitespace(lines[j + 1].text) == delimiter) {
      last = j + 1;
    }
    *resume = last + 1;
  } else {
    // The patch ends where reading stopped; trailing blank lines are not part of it.
    last = std::max(b, body.last_read());
    std::string where;
    if (body.stopped()) {
      where = absl::StrCat("line ", ln(stop), " ", Quote(lines[stop].text), ", which is not part of a patch");
    } else if (env.end_kind == EndKind::kHeredoc) {
      where = absl::StrCat("the heredoc's end on line ", ln(j));
      last = j;
    } else if (env.end_kind == EndKind::kFence) {
      where = absl::StrCat("the closing fence on line ", ln(j));
    } else if (env.end_kind == EndKind::kNextBegin) {
      where = absl::StrCat("the next `", kBegin, "` on line ", ln(j));
    } else {
      where = "the end of the answer";
    }
    if (!body.stopped() && env.end_kind == EndKind::kEndOfText) {
      // The answer stops inside the envelope: it was cut off (a model's
      // output limit), and its last operation may hold half a line. None
      // of it is applied.
      patch.ops.clear();
      patch.errors.push_back(
          {"truncated", ln(b),
           o.cut ? absl::StrCat("the patch opened on line ", ln(b), " stops at line ", ln(last),
                                " before the rest of the answer, without its `", kEnd,
                                "` line: it was cut off, so none of the patch was applied")
                 : absl::StrCat("the answer ends at line ", ln(last), " inside the patch opened on line ", ln(b),
                                ", before its `", kEnd, "` line: it was cut off, so none of the patch was applied"),
           absl::StrCat("send the rest of the patch (from line ", ln(b), " on, or the whole envelope again) and end it "
                        "with the line `", kEnd, "`")});
      patch.span = SpanOf(lines, env.open, last, o);
      *resume = j;
      return patch;
    }
    patch.warnings.push_back(absl::StrCat("the patch opened on line ", ln(b), " has no `", kEnd, "` line before ",
                                          where, "; it was read up to line ", ln(last),
                                          ". End every patch with the line `", kEnd, "`"));
    *resume = body.stopped() ? stop : (env.end_kind == EndKind::kHeredoc ? j + 1 : j);
  }
  patch.span = SpanOf(lines, env.open, last, o);
  if (body.ops_read() == 0 && patch.errors.empty()) {
    patch.errors.push_back({"empty_patch", ln(b),
                            "the patch has no file operations, so no file was changed",
                            absl::StrCat("put one or more of ", kHeaders,
                                         " with their lines "
                                         "between `",
                                         kBegin, "` and `", kEnd, "`")});
  }
  return patch;
}

// A file operation header outside any envelope: reports it and skips the
// patch-like lines that follow.
Patch ReadStray(const std::vector<Line>& lines, size_t h, size_t* resume, const TextOrigin& o) {
  Patch patch;
  size_t last = h;
  size_t k = h + 1;
  for (; k < lines.size(); ++k) {
    absl::string_view raw = lines[k].text;
    Classified c = Classify(raw);
    if (c.marker == Marker::kEnd) {
      last = k;
      ++k;
      patch.ended = true;
      break;
    }
    if (c.marker == Marker::kBegin) break;
    const char first = raw.empty() ? ' ' : raw[0];
    if (first != ' ' && first != '+' && first != '-' && first != '@' && first != '*') break;
    if (!Trim(raw).empty()) last = k;
  }
  *resume = k;
  patch.span = SpanOf(lines, h, last, o);
  patch.errors.push_back(
      {"missing_begin", LineNumber(o, h),
       absl::StrCat(Quote(Trim(lines[h].text)), " is not inside a patch: no `", kBegin, "` line comes before it"),
       absl::StrCat("put the line `", kBegin, "` before line ", LineNumber(o, h), " and the line `", kEnd,
                    "` after the patch's last line")});
  return patch;
}

std::vector<Patch> ReadAll(absl::string_view text, bool keep_ops, const TextOrigin& o) {
  std::vector<Patch> out;
  // Every marker starts with `*`: an answer without one has no patch, and
  // its lines are not tabled (40 bytes a line).
  if (!absl::StrContains(text, '*')) return out;
  const std::vector<Line> lines = SplitText(text);
  bool in_fence = false;
  char fence_ch = 0;
  size_t fence_count = 0;
  size_t i = 0;
  size_t first_free = 0;  // the first line not in an earlier patch
  while (i < lines.size()) {
    absl::string_view raw = lines[i].text;
    Classified c = Classify(raw);
    if (c.marker == Marker::kBegin) {
      size_t resume = i + 1;
      out.push_back(ReadEnvelope(lines, i, first_free, in_fence, fence_ch, fence_count, &resume, keep_ops, o));
      i = std::max(resume, i + 1);
      first_free = i;
      continue;
    }
    if (IsOpHeader(c.marker)) {
      size_t resume = i + 1;
      out.push_back(ReadStray(lines, i, &resume, o));
      i = std::max(resume, i + 1);
      first_free = i;
      continue;
    }
    char ch;
    size_t count;
    if (IsFence(raw, &ch, &count)) {
      if (!in_fence) {
        in_fence = true;
        fence_ch = ch;
        fence_count = count;
      } else if (ch == fence_ch && count >= fence_count && Trim(raw.substr(count)).empty()) {
        in_fence = false;
      }
    }
    ++i;
  }
  return out;
}

}  // namespace

absl::string_view OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd:
      return "add";
    case OpKind::kDelete:
      return "delete";
    case OpKind::kUpdate:
      return "update";
  }
  return "";
}

bool IsBeginPatchLine(absl::string_view line) { return Classify(line).marker == Marker::kBegin; }

std::vector<Patch> ParsePatches(absl::string_view text, const TextOrigin& origin) {
  return ReadAll(text, /*keep_ops=*/true, origin);
}

std::vector<Patch> ParseEnvelopes(absl::string_view text, const TextOrigin& origin) {
  return ReadAll(text, /*keep_ops=*/false, origin);
}

}  // namespace clada::patch_text
