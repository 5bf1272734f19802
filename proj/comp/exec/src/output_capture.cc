#include "proj/comp/exec/src/output_capture.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/terminal_text.h"
#include "proj/comp/core/src/utf8.h"

namespace clada::exec::internal {
namespace {

// One step of decoding at text[i]: `raw` bytes read, `shown` bytes they
// take in the result as shown (a well-formed sequence stays, or is escaped
// by core's terminal writer; an ill-formed byte is one U+FFFD).
struct Unit {
  size_t raw;
  size_t shown;
};

// The bytes one ASCII control character takes where it is shown widest:
// escaped for a terminal (the text report, the listener's file and the
// echo: `\x1b`, `\x7f`) or in JSON (`--json`: `\u001b`). Ordinary text,
// newline and tab included, counts as it is (JSON's `\n`, `\t`, `\"` and
// `\\` are not counted), so a cap of text keeps whole lines.
size_t AsciiShownWidth(unsigned char c) {
  if (c == '\n' || c == '\t') return 1;
  if (c == '\b' || c == '\f' || c == '\r' || c == 0x7F) return 4;
  if (c < 0x20) return 6;
  return 1;
}

Unit NextUnit(absl::string_view text, size_t i) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return {1, AsciiShownWidth(c)};
  const size_t len = core::Utf8SequenceLength(text, i);
  if (len == 0) return {1, 3};  // U+FFFD (core::ToValidUtf8)
  // C1 controls, bidi and other invisible characters are escaped for a
  // terminal (`\u009b`, `\u202e`), widest in JSON form.
  return {len, core::EscapeForTerminal(text.substr(i, len), core::TerminalForm::kJson).size()};
}

// Bytes `text` takes as shown, once made valid UTF-8.
size_t ShownSize(absl::string_view text) {
  size_t out = 0;
  for (size_t i = 0; i < text.size();) {
    const Unit u = NextUnit(text, i);
    out += u.shown;
    i += u.raw;
  }
  return out;
}

// The longest prefix of `text`, whole characters, that takes at most `limit`
// bytes as shown.
absl::string_view PrefixWithin(absl::string_view text, size_t limit) {
  size_t out = 0, i = 0;
  while (i < text.size()) {
    const Unit u = NextUnit(text, i);
    if (out + u.shown > limit) break;
    out += u.shown;
    i += u.raw;
  }
  return text.substr(0, i);
}

// The longest suffix of `text`, starting at a character as decoded from the
// start of `text`, that takes at most `limit` bytes as shown.
absl::string_view SuffixWithin(absl::string_view text, size_t limit) {
  size_t remaining = ShownSize(text), i = 0;
  while (remaining > limit && i < text.size()) {
    const Unit u = NextUnit(text, i);
    remaining -= u.shown;
    i += u.raw;
  }
  return text.substr(i);
}

}  // namespace

HeadTailBuffer::HeadTailBuffer(int64_t cap)
    : cap_(cap), head_cap_(cap < 0 ? 0 : cap / 2), tail_cap_(cap < 0 ? 0 : cap - cap / 2) {}

void HeadTailBuffer::Append(absl::string_view data) {
  total_ += static_cast<int64_t>(data.size());
  if (cap_ < 0) {
    head_.append(data.data(), data.size());
    return;
  }
  const size_t head_cap = static_cast<size_t>(head_cap_);
  const size_t tail_cap = static_cast<size_t>(tail_cap_);
  if (head_.size() < head_cap) {
    const size_t n = std::min(head_cap - head_.size(), data.size());
    head_.append(data.data(), n);
    data.remove_prefix(n);
  }
  if (data.empty() || tail_cap == 0) return;
  if (data.size() >= tail_cap) {
    ring_.assign(data.data() + data.size() - tail_cap, tail_cap);
    ring_pos_ = 0;
    return;
  }
  if (ring_.size() < tail_cap) {
    const size_t n = std::min(tail_cap - ring_.size(), data.size());
    ring_.append(data.data(), n);
    data.remove_prefix(n);
  }
  // The ring is full: overwrite its oldest bytes.
  while (!data.empty()) {
    const size_t n = std::min(tail_cap - ring_pos_, data.size());
    ring_.replace(ring_pos_, n, data.data(), n);
    ring_pos_ = (ring_pos_ + n) % tail_cap;
    data.remove_prefix(n);
  }
}

std::string HeadTailBuffer::Finish(absl::string_view stream_name) const {
  std::string tail =
      absl::StrCat(absl::string_view(ring_).substr(ring_pos_), absl::string_view(ring_).substr(0, ring_pos_));
  const size_t head_cap = static_cast<size_t>(head_cap_), tail_cap = static_cast<size_t>(tail_cap_);
  std::string whole;
  absl::string_view head, kept_tail;
  if (!truncated()) {
    whole = absl::StrCat(head_, tail);
    // Every byte fits, but invalid bytes take three once they are U+FFFD,
    // and a control character up to six once it is escaped: the cap counts
    // the result as shown.
    if (cap_ < 0 || ShownSize(whole) <= static_cast<size_t>(cap_)) return core::ToValidUtf8(whole);
    head = PrefixWithin(whole, head_cap);
    kept_tail = SuffixWithin(absl::string_view(whole).substr(head.size()), tail_cap);
  } else {
    head = absl::string_view(head_);
    head = PrefixWithin(head.substr(0, core::Utf8WithoutIncompleteTail(head)), head_cap);
    kept_tail = absl::string_view(tail);
    kept_tail.remove_prefix(core::Utf8LeadingContinuations(kept_tail));
    kept_tail = SuffixWithin(kept_tail, tail_cap);
  }
  const int64_t left_out = total_ - static_cast<int64_t>(head.size()) - static_cast<int64_t>(kept_tail.size());
  return absl::StrCat(core::ToValidUtf8(head), "\n[output truncated: ", left_out, " bytes of ", stream_name, " left out]\n",
                      core::ToValidUtf8(kept_tail));
}

LineEcho::LineEcho(std::string prefix, std::function<void(absl::string_view)> sink, int64_t cap,
                   std::string stream_name)
    : prefix_(std::move(prefix)), sink_(std::move(sink)), cap_(cap), stream_name_(std::move(stream_name)) {}

void LineEcho::Append(absl::string_view data) {
  if (stopped_) return;
  while (!data.empty()) {
    const size_t nl = data.find('\n');
    if (nl == absl::string_view::npos) {
      partial_.append(data.data(), data.size());
      while (partial_.size() >= kMaxLine) {
        Emit(absl::string_view(partial_).substr(0, kMaxLine));
        partial_.erase(0, kMaxLine);
      }
      return;
    }
    if (partial_.empty()) {
      Emit(data.substr(0, nl));
    } else {
      partial_.append(data.data(), nl);
      Emit(partial_);
      partial_.clear();
    }
    data.remove_prefix(nl + 1);
  }
}

void LineEcho::Flush() {
  if (partial_.empty()) return;
  Emit(partial_);
  partial_.clear();
}

void LineEcho::Emit(absl::string_view line) {
  if (!sink_ || stopped_) return;
  if (cap_ < 0) {
    sink_(absl::StrCat(prefix_, core::EscapeForTerminal(line), "\n"));
    return;
  }
  // The cap counts what reaches the terminal: the prefix and the line end
  // too, so a flood of empty lines stops as well.
  const int64_t overhead = static_cast<int64_t>(prefix_.size()) + 1;
  const bool fits = echoed_ + overhead <= cap_;
  size_t consumed = 0;
  std::string text;
  if (fits) {
    consumed = core::AppendEscapedForTerminalWithin(line, core::TerminalForm::kLines,
                                                    static_cast<size_t>(cap_ - echoed_ - overhead), &text);
    echoed_ += overhead + static_cast<int64_t>(text.size());
    if (consumed == line.size()) {
      sink_(absl::StrCat(prefix_, text, "\n"));
      return;
    }
    if (!text.empty()) sink_(absl::StrCat(prefix_, text, "\n"));
  }
  sink_(absl::StrCat(prefix_, "[live ", stream_name_, " stops here, at the output cap of ", cap_,
                     " bytes; the result keeps the head and the tail]\n"));
  stopped_ = true;
  partial_.clear();
}

}  // namespace clada::exec::internal
