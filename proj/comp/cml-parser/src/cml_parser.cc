#include "proj/comp/cml-parser/src/cml_parser.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/newlines.h"
#include "pugixml.hpp"

namespace clada::cml_parser {
namespace {

constexpr absl::string_view kTaskNames[] = {"edit", "write", "move", "remove", "run"};
constexpr absl::string_view kCdataOpen = "<![CDATA[";

bool IsNameEnd(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '>' || c == '/'; }

// The element name an opener at `pos` ('<') starts, or "" when it is not a
// CML opener (tasks or a task).
absl::string_view OpenerAt(absl::string_view text, size_t pos) {
  // Most '<' of prose and of task content start no CML name: one compare.
  const char first = pos + 1 < text.size() ? text[pos + 1] : '\0';
  if (first != 't' && first != 'e' && first != 'w' && first != 'm' && first != 'r') return "";
  absl::string_view rest = text.substr(pos + 1);
  auto named = [&](absl::string_view name) {
    return rest.size() > name.size() && rest.substr(0, name.size()) == name && IsNameEnd(rest[name.size()]);
  };
  if (named("tasks")) return "tasks";
  for (absl::string_view n : kTaskNames) {
    if (named(n)) return n;
  }
  return "";
}

// Counts lines incrementally for offsets that only grow.
class LineCounter {
 public:
  explicit LineCounter(absl::string_view text) : text_(text) {}
  // Starts at `begin`, known to be on `line`.
  LineCounter(absl::string_view text, size_t begin, int line) : text_(text) {
    const size_t nl = begin == 0 ? absl::string_view::npos : text.rfind('\n', begin - 1);
    start_pos_ = pos_ = begin;
    start_line_ = line_ = line;
    start_line_start_ = line_start_ = nl == absl::string_view::npos ? 0 : nl + 1;
  }
  // 1-based line and column of byte `offset` (offset >= every earlier one).
  std::pair<int, int> At(size_t offset) {
    offset = std::min(offset, text_.size());
    if (offset < pos_) Reset();
    if (offset < pos_) offset = pos_;
    const char* base = text_.data();
    const size_t added = core::CountNewlines(base + pos_, offset - pos_);
    if (added > 0) {
      line_ += static_cast<int>(added);
      const void* nl = memrchr(base + pos_, '\n', offset - pos_);
      line_start_ = static_cast<const char*>(nl) - base + 1;
    }
    pos_ = offset;
    return {line_, static_cast<int>(offset - line_start_) + 1};
  }
  int Line(size_t offset) { return At(offset).first; }

 private:
  void Reset() { pos_ = start_pos_, line_ = start_line_, line_start_ = start_line_start_; }
  absl::string_view text_;
  size_t start_pos_ = 0;
  int start_line_ = 1;
  size_t start_line_start_ = 0;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

struct Found {
  SourceSpan span;
  std::string name;     // "tasks" or a task name
  bool closed = true;   // its end tag (or "/>") was found
  bool open_tag_closed = true;
};

// Index just past the start tag that begins at `pos` (its '>'), honouring
// quoted attribute values; npos when the tag never ends on its line... or at all.
size_t StartTagEnd(absl::string_view text, size_t pos, bool* self_closing) {
  char quote = 0;
  for (size_t i = pos + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      *self_closing = text[i - 1] == '/';
      return i + 1;
    } else if (c == '<') {
      return absl::string_view::npos;  // another tag starts: this one never ended
    }
  }
  return absl::string_view::npos;
}

// Finds `</name>` after `from`, skipping CDATA sections and comments. Returns
// the index past its '>' or npos. `*stop` is where an unclosed element is cut:
// the next opener of `cut_name` (any CML opener when empty), or the end.
size_t CloseTag(absl::string_view text, size_t from, absl::string_view name, size_t* stop) {
  char close_buf[8] = {'<', '/'};  // "</" + the longest name, "remove" or "tasks"
  name.copy(close_buf + 2, sizeof(close_buf) - 2);
  const absl::string_view close(close_buf, 2 + std::min(name.size(), sizeof(close_buf) - 2));
  size_t i = from;
  *stop = absl::string_view::npos;
  while (i < text.size()) {
    const size_t lt = text.find('<', i);
    if (lt == absl::string_view::npos) break;
    absl::string_view rest = text.substr(lt);
    if (rest.substr(0, kCdataOpen.size()) == kCdataOpen) {
      const size_t end = text.find("]]>", lt + kCdataOpen.size());
      if (end == absl::string_view::npos) {
        // An unterminated CDATA section: cut at the next opener after it.
        i = lt + kCdataOpen.size();
        while ((i = text.find('<', i)) != absl::string_view::npos) {
          absl::string_view op = OpenerAt(text, i);
          if (!op.empty() && (name != "tasks" || op == "tasks")) break;
          ++i;
        }
        *stop = i == absl::string_view::npos ? text.size() : i;
        return absl::string_view::npos;
      }
      i = end + 3;
      continue;
    }
    if (rest.substr(0, 4) == "<!--") {
      const size_t end = text.find("-->", lt + 4);
      if (end == absl::string_view::npos) break;
      i = end + 3;
      continue;
    }
    if (rest.substr(0, close.size()) == close) {
      size_t j = lt + close.size();
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
      if (j < text.size() && text[j] == '>') return j + 1;
    }
    absl::string_view op = OpenerAt(text, lt);
    if (!op.empty() && (op == "tasks" || name != "tasks")) {
      if (*stop == absl::string_view::npos) *stop = lt;
      // A task inside a task, or tasks inside tasks: the element is unclosed.
      return absl::string_view::npos;
    }
    i = lt + 1;
  }
  *stop = text.size();
  return absl::string_view::npos;
}

// Index of the first `c` at or after `from`, or text.size().
size_t FindChar(absl::string_view text, char c, size_t from) {
  if (from >= text.size()) return text.size();
  const void* p = std::memchr(text.data() + from, c, text.size() - from);
  return p == nullptr ? text.size() : static_cast<const char*>(p) - text.data();
}

// The CML elements of `text` in order, one at a time, as each is found:
// the elements are not kept (a million one-line tasks made a vector of
// 64 MB that lived beside their blocks, and a list of their spans 80 MB).
// `text` starts line `first_line` of the answer: spans give the answer's
// lines (and `skip_lines` are the answer's), their bytes are `text`'s.
class FoundIterator {
 public:
  FoundIterator(absl::string_view text, const std::vector<LineRange>& skip_lines, int first_line)
      : text_(text), lines_(text, 0, first_line) {
    // Every element starts with `<`: an answer without one (a million SHAM
    // blocks, say) has none, and its lines are not tabled.
    if (text.find('<') == absl::string_view::npos) {
      i_ = text.size();
      return;
    }
    // Byte ranges of the skipped lines.
    if (!skip_lines.empty()) {
      std::vector<size_t> starts;
      starts.reserve(core::CountNewlines(text.data(), text.size()) + 1);
      starts.push_back(0);
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') starts.push_back(i + 1);
      }
      for (LineRange r : skip_lines) {
        if (r.first < 1 || r.last < r.first) continue;
        // The part of the range that is in `text`.
        r.first = std::max(r.first - (first_line - 1), 1);
        r.last -= first_line - 1;
        if (r.last < r.first || static_cast<size_t>(r.first) > starts.size()) continue;
        const size_t b = starts[r.first - 1];
        const size_t e = static_cast<size_t>(r.last) < starts.size() ? starts[r.last] : text.size();
        skip_.emplace_back(b, e);
      }
      std::sort(skip_.begin(), skip_.end());
    }
    next_lt_ = FindChar(text, '<', 0);
    next_bt_ = FindChar(text, '`', 0);
  }

  // The next element, or false when there is none.
  bool Next(Found* out) {
    const absl::string_view text = text_;
    const size_t n = text.size();
    size_t& i = i_;
    size_t& next_lt = next_lt_;
    size_t& next_bt = next_bt_;
    size_t& next_skip = next_skip_;
    const std::vector<std::pair<size_t, size_t>>& skip = skip_;
    LineCounter& lines = lines_;
    while (i < n) {
      // The next '<' or '`' (memchr for each, remembered until passed).
      if (next_lt < i) next_lt = FindChar(text, '<', i);
      if (next_bt < i) next_bt = FindChar(text, '`', i);
      i = std::min(next_lt, next_bt);
      if (i >= n) break;
      const char* p = text.data() + i;
      while (next_skip < skip.size() && skip[next_skip].second <= i) ++next_skip;
      if (next_skip < skip.size() && skip[next_skip].first <= i) {
        i = skip[next_skip].second;
        continue;
      }
      if (*p == '`') {
        // Inline code (`...` or ``...`` on one line) is prose, never CML.
        size_t run = 0;
        while (i + run < n && text[i + run] == '`') ++run;
        if (run <= 2) {
          const size_t eol = std::min(text.find('\n', i), n);
          const std::string ticks(run, '`');
          const size_t close = text.substr(0, eol).find(ticks, i + run);
          if (close != absl::string_view::npos) {
            i = close + run;
            continue;
          }
        }
        i += run;
        continue;
      }
      if (text.substr(i, 4) == "<!--") {
        const size_t e = text.find("-->", i + 4);
        i = e == absl::string_view::npos ? n : e + 3;
        continue;
      }
      absl::string_view name = OpenerAt(text, i);
      if (name.empty()) {
        ++i;
        continue;
      }
      Found f;
      f.name = std::string(name);
      f.span.begin = i;
      bool self_closing = false;
      const size_t tag_end = StartTagEnd(text, i, &self_closing);
      if (tag_end == absl::string_view::npos) {
        // The start tag never ends: the block is that line.
        f.open_tag_closed = false;
        f.closed = false;
        const size_t eol = text.find('\n', i);
        f.span.end = eol == absl::string_view::npos ? n : eol;
      } else if (self_closing) {
        f.span.end = tag_end;
      } else {
        size_t stop = 0;
        const size_t close = CloseTag(text, tag_end, name, &stop);
        if (close == absl::string_view::npos) {
          f.closed = false;
          f.span.end = stop;
        } else {
          f.span.end = close;
        }
      }
      if (f.span.end <= f.span.begin) f.span.end = std::min(n, f.span.begin + 1);
      f.span.first_line = lines.Line(f.span.begin);
      f.span.last_line = lines.Line(f.span.end > f.span.begin ? f.span.end - 1 : f.span.begin);
      i = f.span.end;
      *out = std::move(f);
      return true;
    }
    return false;
  }

 private:
  absl::string_view text_;
  std::vector<std::pair<size_t, size_t>> skip_;
  size_t next_skip_ = 0;
  size_t next_lt_ = 0, next_bt_ = 0;
  LineCounter lines_;
  size_t i_ = 0;
};

// Calls `on_found` with each CML element of `text` in order (FoundIterator).
void ForEachFound(absl::string_view text, const std::vector<LineRange>& skip_lines, int first_line,
                  absl::FunctionRef<void(const Found&)> on_found) {
  FoundIterator elements(text, skip_lines, first_line);
  Found f;
  while (elements.Next(&f)) on_found(f);
}

bool IsValidUtf8(absl::string_view s, size_t* bad) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    // ASCII, 32 then eight bytes at a time.
    while (i + 32 <= n) {
      uint64_t w[4];
      std::memcpy(w, p + i, 32);
      if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL) != 0) break;
      i += 32;
    }
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if ((w & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    unsigned int cp = 0;
    if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
    else {
      *bad = i;
      return false;
    }
    if (i + len > n) {
      *bad = i;
      return false;
    }
    for (int k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) {
        *bad = i;
        return false;
      }
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      *bad = i;
      return false;
    }
    i += len;
  }
  return true;
}

// Appends `cdata` to `out` with "]]&gt;" decoded (UnescapeCdata).
void AppendUnescapedCdata(absl::string_view cdata, std::string* out) {
  size_t i = 0;
  while (true) {
    const size_t j = cdata.find("]]&gt;", i);
    if (j == absl::string_view::npos) break;
    out->append(cdata.data() + i, j - i);
    out->append("]]>");
    i = j + 6;
  }
  out->append(cdata.data() + i, cdata.size() - i);
}

// Text laid out on lines of its own between its tags (`<search>`, a line
// break, the lines, a line break and the closing tag's indentation): the
// first line break and the closing tag's indentation are layout, not text,
// and that indentation is taken off every line that starts with it (as a
// Swift multi-line string literal reads its closing delimiter's). Any other
// text is kept as written.
void DropLayout(std::string* text) {
  absl::string_view t = *text;
  size_t first = absl::StartsWith(t, "\n") ? 1 : absl::StartsWith(t, "\r\n") ? 2 : 0;
  const size_t last_break = t.rfind('\n');
  if (first == 0 || last_break == absl::string_view::npos || last_break + 1 < first) return;
  const absl::string_view indent = t.substr(last_break + 1);
  if (indent.find_first_not_of(" \t") != absl::string_view::npos) return;
  const absl::string_view body = t.substr(first, last_break + 1 - first);  // whole lines
  std::string out;
  out.reserve(body.size());
  for (size_t pos = 0; pos < body.size();) {
    size_t nl = body.find('\n', pos);
    absl::string_view line = body.substr(pos, nl - pos + 1);
    if (!indent.empty()) absl::ConsumePrefix(&line, indent);
    out.append(line.data(), line.size());
    pos = nl + 1;
  }
  *text = std::move(out);
}

// The text of an element: its CDATA and character data in order, CDATA with
// "]]&gt;" decoded. Whitespace-only character data beside CDATA is layout.
// Built in one string of the right size: a task's content is most of the
// bytes of a CML answer, and each extra copy of it showed in the benchmark.
std::string ElementText(const pugi::xml_node& node, bool* has_child_element) {
  bool any_cdata = false;
  size_t size = 0;
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    const pugi::xml_node_type type = c.type();
    if (type == pugi::node_cdata) any_cdata = true;
    if (type == pugi::node_element) *has_child_element = true;
    if (type == pugi::node_cdata || type == pugi::node_pcdata) size += std::strlen(c.value());
  }
  std::string out;
  out.reserve(size);
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_cdata) {
      absl::string_view v = c.value();
      // `<![CDATA[` and a line break, the text on the lines below: the
      // break is layout (a file's first line, a shebang, stays first).
      if (out.empty() && !absl::ConsumePrefix(&v, "\n")) absl::ConsumePrefix(&v, "\r\n");
      AppendUnescapedCdata(v, &out);
    } else if (c.type() == pugi::node_pcdata) {
      absl::string_view v = c.value();
      if (any_cdata && absl::StripAsciiWhitespace(v).empty()) continue;
      out.append(v.data(), v.size());
    }
  }
  if (!any_cdata) DropLayout(&out);
  return out;
}

class BlockReader {
 public:
  // `packed`: where ParseOptions::pack_actions puts the tasks (null: in the block).
  // `first_byte`: where `text` starts in the answer (the block's span is the answer's).
  BlockReader(absl::string_view text, const Found& found, int* next_task, pugi::xml_document& doc,
              std::string& buffer, CmlParseResult* packed, size_t first_byte)
      : packed_(packed),
        doc_(doc),
        buffer_(buffer),
        text_(text),
        found_(found),
        next_task_(next_task),
        lines_(text, found.span.begin, found.span.first_line) {
    block_.set_tasks_block(found.name == "tasks");
    SourceSpan span = found.span;
    span.begin += first_byte;
    span.end += first_byte;
    block_.set_span(span);
    if (packed_ != nullptr) block_.set_packed_begin(static_cast<uint32_t>(packed_->packed.size()));
  }

  CmlBlock Read() {
    absl::string_view src = text_.substr(found_.span.begin, found_.span.end - found_.span.begin);
    if (src.size() > CmlBlock::kMaxLength) {
      Malformed(found_.span.begin, "the block is 2 GiB long or longer", "Split it into blocks of less than 2 GiB");
      CountTasksRoughly(src.substr(0, CmlBlock::kMaxLength));
      return std::move(block_);
    }
    if (!found_.closed) {
      Malformed(found_.span.begin,
                found_.open_tag_closed
                    ? absl::StrCat("<", found_.name, "> is never closed: no </", found_.name, "> follows it")
                    : absl::StrCat("the start tag <", found_.name, " ...> never ends: no '>' closes it"),
                found_.open_tag_closed ? absl::StrCat("Close it with </", found_.name, ">")
                                       : "End the start tag with '>' (or '/>' for an empty element)");
      CountTasksRoughly(src);
      return std::move(block_);
    }
    const size_t nul = src.find('\0');
    if (nul != absl::string_view::npos) {
      Malformed(found_.span.begin + nul, "the block holds a NUL byte", "Remove the NUL byte");
      CountTasksRoughly(src);
      return std::move(block_);
    }
    pugi::xml_document& doc = doc_;
    const unsigned int options = (pugi::parse_default & ~pugi::parse_eol) | pugi::parse_ws_pcdata_single;
    // Parsed in place in a copy that is reused from block to block:
    // load_buffer would allocate and free a copy per block.
    buffer_.assign(src.data(), src.size());
    pugi::xml_parse_result r = doc.load_buffer_inplace(buffer_.data(), buffer_.size(), options, pugi::encoding_utf8);
    if (!r) {
      const size_t off = r.offset < 0 ? 0 : static_cast<size_t>(r.offset);
      Malformed(found_.span.begin + std::min(off, src.size()), r.description(),
                "Fix the XML of this block: every element closed, attribute values in quotes, and & < written as "
                "&amp; &lt; outside CDATA (or put the text in <![CDATA[...]]>)");
      CountTasksRoughly(src);
      return std::move(block_);
    }
    pugi::xml_node root = doc.document_element();
    if (block_.is_tasks_block()) {
      ReadTasks(root);
    } else {
      ReadTask(root, /*versioned=*/false);
    }
    return std::move(block_);
  }

 private:
  size_t Offset(const pugi::xml_node& n) const {
    // pugixml gives an element's name; its '<' is one byte before.
    ptrdiff_t off = n.offset_debug();
    if (n.type() == pugi::node_element && off > 0) --off;
    return found_.span.begin + (off < 0 ? 0 : static_cast<size_t>(off));
  }

  void Malformed(size_t at, absl::string_view what, std::string fix) {
    auto [line, col] = lines_.At(at);
    CmlError e;
    e.code = "malformed_xml";
    e.line = line;
    e.column = col;
    e.message = absl::StrCat("malformed_xml: ", what, " (line ", line, ", column ", col, ")");
    e.fix = std::move(fix);
    block_.details().errors.push_back(std::move(e));
  }

  // A block that cannot be parsed still uses up the numbers of the tasks it
  // appears to hold, so the numbers after it do not depend on the damage.
  void CountTasksRoughly(absl::string_view src) {
    int count = 0;
    if (!block_.is_tasks_block()) {
      count = 1;
    } else {
      for (size_t i = src.find('<', 1); i != absl::string_view::npos; i = src.find('<', i + 1)) {
        if (src.substr(i, kCdataOpen.size()) == kCdataOpen) {
          const size_t e = src.find("]]>", i);
          if (e == absl::string_view::npos) break;
          i = e;
          continue;
        }
        absl::string_view op = OpenerAt(src, i);
        if (!op.empty() && op != "tasks") ++count;
      }
    }
    block_.details().counted_tasks = count;
    *next_task_ += count;
  }

  void ReadTasks(const pugi::xml_node& root) {
    const pugi::xml_attribute version = root.attribute("version");
    bool versioned = false;
    if (version) {
      versioned = true;
      block_.details().version = version.value();
      if (!KnownVersion(block_.version())) {
        auto [line, col] = lines_.At(Offset(root));
        CmlError e;
        e.code = "unsupported_version";
        e.line = line;
        e.column = col;
        e.message = absl::StrCat("unsupported_version: <tasks version=\"", block_.version(), "\"> on line ", line,
                                 " is not a CML version clada knows (1.x), so nothing in this block was run");
        e.fix = "Write <tasks version=\"1.0\"> or leave the version out";
        block_.details().errors.push_back(std::move(e));
        int count = 0;
        for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
          if (c.type() == pugi::node_element && IsTaskName(c.name())) ++count;
        }
        block_.details().counted_tasks = count;
        *next_task_ += count;
        return;
      }
    }
    for (pugi::xml_attribute a = root.first_attribute(); a; a = a.next_attribute()) {
      if (absl::string_view(a.name()) != "version") {
        block_.details().warnings.push_back(absl::StrCat("<tasks> on line ", lines_.Line(Offset(root)), ": attribute '",
                                               a.name(), "' is not part of CML and was ignored"));
      }
    }
    size_t elements = 0;
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) elements += c.type() == pugi::node_element;
    size_t known = 0;
    std::vector<std::string> unknown;  // the first few elements that are no task
    if (packed_ == nullptr) block_.details().tasks.reserve(elements);
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
        if (!absl::StripAsciiWhitespace(c.value()).empty()) {
          block_.details().warnings.push_back(absl::StrCat("<tasks> on line ", lines_.Line(Offset(root)),
                                                 ": text outside any task was ignored"));
        }
        continue;
      }
      if (c.type() != pugi::node_element) continue;
      if (IsTaskName(c.name())) {
        ++known;
      } else if (unknown.size() < 3) {
        unknown.push_back(absl::StrCat("<", c.name(), "> on line ", lines_.Line(Offset(c))));
      }
      ReadTask(c, versioned);
    }
    // Elements, none of them a task (all misspelt): an answer that looks
    // like edits and runs nothing is an error, not only warnings.
    if (known == 0 && !unknown.empty()) {
      auto [line, col] = lines_.At(Offset(root));
      CmlError e;
      e.code = "no_known_task";
      e.line = line;
      e.column = col;
      e.message = absl::StrCat("no_known_task: <tasks> on line ", line, " holds no CML task (",
                               absl::StrJoin(unknown, ", "), unknown.size() < elements ? ", ..." : "",
                               unknown.size() == 1 ? " is not a task element" : " are not task elements",
                               "), so nothing in this block was run");
      e.fix = "Name each task <edit>, <write>, <move>, <remove> or <run> (<search> and <replace> go inside an <edit>)";
      block_.details().errors.push_back(std::move(e));
    }
  }

  static bool KnownVersion(absl::string_view v) {
    // 1, 1.x, 1.x.y: digits separated by dots, major 1.
    if (v.empty() || v[0] != '1') return false;
    if (v.size() == 1) return true;
    if (v[1] != '.') return false;
    bool digit = false;
    for (size_t i = 2; i < v.size(); ++i) {
      if (absl::ascii_isdigit(v[i])) {
        digit = true;
      } else if (v[i] == '.' && digit) {
        digit = false;
      } else {
        return false;
      }
    }
    return digit;
  }

  static bool IsTaskName(absl::string_view n) {
    return std::find(std::begin(kTaskNames), std::end(kTaskNames), n) != std::end(kTaskNames);
  }

  void ReadTask(const pugi::xml_node& node, bool versioned) {
    const absl::string_view name = node.name();
    const size_t at = Offset(node);
    const int line = lines_.Line(at);
    if (!IsTaskName(name)) {
      block_.details().warnings.push_back(absl::StrCat(
          "<", name, "> on line ", line, " is not a CML task (edit, write, move, remove, run) and was skipped"));
      (void)versioned;
      return;
    }
    const int number = ++*next_task_;
    // Built in its place in the block: a Task moved in would allocate and
    // free one more empty params object per task.
    // Packed, the task is built in a scratch one, reset each time.
    if (packed_ != nullptr) scratch_ = Task();
    Task& t = packed_ != nullptr ? scratch_ : block_.details().tasks.emplace_back();
    TaskBuilder b{name, line, number, t.action};
    b.Build(node);
    if (!b.errors.empty()) {
      if (packed_ == nullptr) block_.details().tasks.pop_back();
      CmlError e;
      e.code = "invalid_task";
      e.line = line;
      e.column = lines_.At(at).second;
      e.task_number = number;
      e.message = absl::StrCat("invalid_task: <", name, "> (task-", number, ", line ", line,
                               "): ", absl::StrJoin(b.errors, "; "));
      e.fix = absl::StrJoin(b.fixes, "; ");
      block_.details().errors.push_back(std::move(e));
      return;
    }
    t.number = number;
    t.line = line;
    t.action.metadata.block_id = absl::StrCat("task-", number);
    t.action.metadata.start_line = line;
    t.action.metadata.end_line = line;
    t.action.warnings = std::move(b.warnings);
    if (packed_ != nullptr) {
      packed_->packed_actions.Add(t.action);
      packed_->packed.push_back({number, line});
    }
  }

  // What a value is, for an error message ("attribute 'path'", "<search>"):
  // put together only when there is an error to report.
  struct What {
    absl::string_view before, name, after;
    std::string Str() const { return absl::StrCat(before, name, after); }
  };

  struct TaskBuilder {
    absl::string_view name;
    int line;
    int number;
    core::Action& action;
    std::vector<std::string> errors, fixes, warnings;

    void Error(std::string e, std::string fix) {
      errors.push_back(std::move(e));
      if (!fix.empty()) fixes.push_back(std::move(fix));
    }

    // Attribute `key`: required ones must be non-empty.
    std::string Attr(const pugi::xml_node& n, const char* key, bool required, bool* present = nullptr) {
      pugi::xml_attribute a = n.attribute(key);
      if (present != nullptr) *present = static_cast<bool>(a);
      if (!a) {
        if (required) {
          Error(absl::StrCat("attribute '", key, "' is missing"),
                absl::StrCat("Add ", key, "=\"...\" to <", name, ">"));
        }
        return "";
      }
      std::string v = a.value();
      if (required && v.empty()) {
        Error(absl::StrCat("attribute '", key, "' is empty"), absl::StrCat("Give ", key, " a path"));
      }
      CheckUtf8(v, What{"attribute '", key, "'"});
      return v;
    }

    void CheckUtf8(const std::string& v, const What& what) {
      size_t bad = 0;
      if (!IsValidUtf8(v, &bad)) {
        Error(absl::StrCat(what.Str(), " is not valid UTF-8 (byte 0x",
                           absl::Hex(static_cast<unsigned char>(v[bad]), absl::kZeroPad2), " at offset ", bad, ")"),
              "Write the text as UTF-8");
      }
    }

    void CheckAttributes(const pugi::xml_node& n, std::initializer_list<absl::string_view> known) {
      for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
        if (std::find(known.begin(), known.end(), absl::string_view(a.name())) == known.end()) {
          warnings.push_back(absl::StrCat("<", name, "> on line ", line, ": attribute '", a.name(),
                                          "' is not part of CML and was ignored"));
        }
      }
    }

    std::string Content(const pugi::xml_node& n, const What& what) {
      bool child = false;
      std::string s = ElementText(n, &child);
      if (child) {
        Error(absl::StrCat(what.Str(), " holds an element; its text must be plain or in <![CDATA[...]]>"),
              "Put text that contains < in <![CDATA[...]]>");
      }
      if (absl::string_view(s).substr(0, 3) == "\xEF\xBB\xBF") s.erase(0, 3);  // BOM stripped (seeds)
      CheckUtf8(s, what);
      return s;
    }

    // The action's params, with room for `n` of them: an ordered_json object
    // is a vector of (const key, value) pairs, which a reallocation copies,
    // values and all (not moves), so growing it one param at a time copied
    // every task's content again.
    void ReserveParams(size_t n) { action.params.get_ref<core::Json::object_t&>().reserve(n); }

    void Build(const pugi::xml_node& n) {
      if (name == "write") {
        CheckAttributes(n, {"path", "append"});
        std::string path = Attr(n, "path", true);
        bool has_append = false;
        const std::string append = Attr(n, "append", false, &has_append);
        if (has_append && append != "true" && append != "false") {
          Error(absl::StrCat("append must be \"true\" or \"false\", got \"", append, "\""), "Write append=\"true\"");
        }
        std::string content = Content(n, What{"the content"});
        action.name = append == "true" ? "file_append" : "file_write";
        ReserveParams(2);
        action.params["path"] = std::move(path);
        action.params["content"] = std::move(content);
      } else if (name == "edit") {
        CheckAttributes(n, {"path", "count"});
        std::string path = Attr(n, "path", true);
        bool has_count = false;
        const std::string count_text = Attr(n, "count", false, &has_count);
        int64_t count = 1;
        if (has_count && (!absl::SimpleAtoi(count_text, &count) || count < 1)) {
          Error(absl::StrCat("count must be a whole number of 1 or more, got \"", count_text, "\""),
                "Write count=\"2\" for two matches, or leave it out for one");
        }
        std::optional<std::string> search, start, end, replace;
        for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
          if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
            if (!absl::StripAsciiWhitespace(c.value()).empty()) {
              Error("text outside <search>/<replace>", "Put the text inside <search> or <replace>");
            }
            continue;
          }
          if (c.type() != pugi::node_element) continue;
          const absl::string_view cn = c.name();
          std::optional<std::string>* slot = cn == "search"         ? &search
                                             : cn == "search-start" ? &start
                                             : cn == "search-end"   ? &end
                                             : cn == "replace"      ? &replace
                                                                    : nullptr;
          if (slot == nullptr) {
            Error(absl::StrCat("<", cn, "> is not part of <edit>"),
                  "Use <search> and <replace>, or <search-start>, <search-end> and <replace>");
            continue;
          }
          if (slot->has_value()) {
            Error(absl::StrCat("<", cn, "> appears twice"), "Write one edit per change");
            continue;
          }
          *slot = Content(c, What{"<", cn, ">"});
        }
        if (!replace) Error("<replace> is missing", "Add <replace>new text</replace> (empty to delete)");
        const bool range = start.has_value() || end.has_value();
        if (search && range) {
          Error("it has both <search> and <search-start>/<search-end>", "Use one or the other");
        } else if (range) {
          if (!start) Error("<search-start> is missing", "Add <search-start> with the text the range starts with");
          if (!end) Error("<search-end> is missing", "Add <search-end> with the text the range ends with");
          if (start && start->empty()) Error("<search-start> is empty", "Give the text the range starts with");
          if (end && end->empty()) Error("<search-end> is empty", "Give the text the range ends with");
        } else if (!search) {
          Error("<search> is missing", "Add <search>exact text</search>");
        } else if (search->empty()) {
          Error("<search> is empty: an empty search matches everywhere",
                "Give the exact text to replace, or use <write> to replace the whole file");
        }
        if (range) {
          action.name = "file_replace_text_range";
          ReserveParams(5);
          action.params["path"] = std::move(path);
          action.params["old_text_start"] = start ? std::move(*start) : std::string();
          action.params["old_text_end"] = end ? std::move(*end) : std::string();
          action.params["new_text"] = replace ? std::move(*replace) : std::string();
          action.params["count"] = count;
        } else {
          action.name = "file_replace_all_text";
          ReserveParams(4);
          action.params["path"] = std::move(path);
          action.params["old_text"] = search ? std::move(*search) : std::string();
          action.params["new_text"] = replace ? std::move(*replace) : std::string();
          action.params["count"] = count;
        }
      } else if (name == "move") {
        CheckAttributes(n, {"from", "to"});
        std::string from = Attr(n, "from", true);
        std::string to = Attr(n, "to", true);
        NoContent(n);
        action.name = "file_move";
        ReserveParams(2);
        action.params["old_path"] = std::move(from);
        action.params["new_path"] = std::move(to);
      } else if (name == "remove") {
        CheckAttributes(n, {"path"});
        std::string path = Attr(n, "path", true);
        NoContent(n);
        action.name = "file_delete";
        action.params["path"] = std::move(path);
        // The seeds' <remove> deletes a directory with everything in it.
        action.edit_options.delete_directories = true;
      } else if (name == "run") {
        CheckAttributes(n, {"dir"});
        bool has_dir = false;
        std::string dir = Attr(n, "dir", false, &has_dir);
        if (has_dir && dir.empty()) Error("attribute 'dir' is empty", "Give dir a directory, or leave it out");
        std::string code = Content(n, What{"the command"});
        if (absl::StripAsciiWhitespace(code).empty()) {
          Error("the command is empty", "Put the command between <run> and </run>");
        }
        action.name = "exec";
        ReserveParams(3);
        action.params["code"] = std::move(code);
        action.params["lang"] = "bash";
        if (has_dir) action.params["cwd"] = std::move(dir);
      }
    }

    void NoContent(const pugi::xml_node& n) {
      bool child = false;
      if (!absl::StripAsciiWhitespace(ElementText(n, &child)).empty() || child) {
        warnings.push_back(absl::StrCat("<", name, "> on line ", line, ": its content was ignored (<", name,
                                        "> takes attributes only)"));
      }
    }
  };

  CmlParseResult* packed_;
  Task scratch_;
  pugi::xml_document& doc_;  // reused across blocks: its first page stays allocated
  std::string& buffer_;      // the block's text, which doc_ parses in place and points into
  absl::string_view text_;
  const Found& found_;
  int* next_task_;
  LineCounter lines_;
  CmlBlock block_;
};

}  // namespace

std::string ErrorType(absl::string_view action, absl::string_view code, const core::Json& data) {
  // Codes the seeds name as they are.
  for (absl::string_view same : {"path_escape", "path_denied", "command_not_allowed", "total_timeout",
                                 "search_not_found", "match_count_mismatch", "permission_denied",
                                 "symlink_not_allowed"}) {
    if (code == same) return std::string(code);
  }
  if (action == "exec") {
    if (code == "exec_timeout" || (data.is_object() && data.value("timed_out", false))) return "exec_timeout";
    return "exec_failed";
  }
  if (code == "not_found") return "file_not_found";
  return "operation_failed";
}

std::string UnescapeCdata(absl::string_view cdata) {
  std::string out;
  out.reserve(cdata.size());
  AppendUnescapedCdata(cdata, &out);
  return out;
}

int CmlParseResult::TaskCount(size_t i) const {
  const CmlBlock& b = blocks[i];
  if (b.counted_tasks() >= 0) return b.counted_tasks();
  int count = static_cast<int>(b.tasks().size() + (PackedEnd(i) - b.packed_begin()));
  for (const CmlError& e : b.errors()) count += e.task_number != 0;
  return count;
}

std::vector<SourceSpan> FindCml(absl::string_view text, const std::vector<LineRange>& skip) {
  std::vector<SourceSpan> out;
  ForEachFound(text, skip, 1, [&out](const Found& f) { out.push_back(f.span); });
  return out;
}

std::vector<FoundSpan> FindCmlSpans(absl::string_view text) {
  std::vector<FoundSpan> out;
  CmlSpanFinder finder(text);
  FoundSpan s;
  while (finder.Next(&s)) out.push_back(s);
  return out;
}

class CmlSpanFinder::Elements : public FoundIterator {
 public:
  explicit Elements(absl::string_view text) : FoundIterator(text, {}, 1) {}
};

CmlSpanFinder::CmlSpanFinder(absl::string_view text) : elements_(std::make_unique<Elements>(text)) {}
CmlSpanFinder::~CmlSpanFinder() = default;

bool CmlSpanFinder::Next(FoundSpan* out) {
  Found f;
  if (!elements_->Next(&f)) return false;
  *out = FoundSpan{f.span, f.closed};
  return true;
}

CmlParseResult ParseCml(absl::string_view text, const std::vector<LineRange>& skip, const ParseOptions& options) {
  CmlParseResult result;
  int next_task = 0;
  std::string buffer;  // each block's text, which `doc` parses in place: declared first, freed last
  pugi::xml_document doc;
  ForEachFound(text, skip, options.first_line, [&](const Found& f) {
    BlockReader reader(text, f, &next_task, doc, buffer, options.pack_actions ? &result : nullptr,
                       options.first_byte);
    result.blocks.push_back(reader.Read());
  });
  result.total_tasks = next_task;
  return result;
}

}  // namespace clada::cml_parser
