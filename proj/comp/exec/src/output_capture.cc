#include "proj/comp/exec/src/output_capture.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace clada::exec::internal {
namespace {

constexpr absl::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of `s` without a trailing multi-byte sequence that the cut left
// incomplete.
size_t WithoutIncompleteTail(absl::string_view s) {
  const size_t n = s.size();
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    const unsigned char c = static_cast<unsigned char>(s[n - back]);
    if (IsContinuation(c)) continue;
    size_t need = 1;
    if (c >= 0xC2 && c <= 0xDF)
      need = 2;
    else if (c >= 0xE0 && c <= 0xEF)
      need = 3;
    else if (c >= 0xF0 && c <= 0xF4)
      need = 4;
    return need > back ? n - back : n;
  }
  return n;
}

// Number of continuation bytes (at most 3) that open `s`: the rest of a
// character whose start the cut dropped.
size_t LeadingContinuations(absl::string_view s) {
  size_t i = 0;
  while (i < 3 && i < s.size() && IsContinuation(static_cast<unsigned char>(s[i]))) ++i;
  return i;
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
  if (!truncated()) return SanitizeUtf8(absl::StrCat(head_, tail));
  absl::string_view head(head_);
  head = head.substr(0, WithoutIncompleteTail(head));
  absl::string_view kept_tail(tail);
  kept_tail.remove_prefix(LeadingContinuations(kept_tail));
  const int64_t left_out = total_ - static_cast<int64_t>(head.size()) - static_cast<int64_t>(kept_tail.size());
  return absl::StrCat(SanitizeUtf8(head), "\n[output truncated: ", left_out, " bytes of ", stream_name, " left out]\n",
                      SanitizeUtf8(kept_tail));
}

std::string SanitizeUtf8(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    // Well-formed sequences per Unicode table 3-7: the length and the range
    // allowed for the second byte depend on the first.
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    size_t good = len == 0 ? 0 : 1;
    if (len > 0 && i + 1 < n && s[i + 1] >= lo && s[i + 1] <= hi) {
      good = 2;
      while (good < len && i + good < n && IsContinuation(s[i + good])) ++good;
    }
    if (len > 0 && good == len) {
      out.append(text.data() + i, len);
      i += len;
    } else {
      out.append(kReplacement.data(), kReplacement.size());
      i += std::max<size_t>(good, 1);
    }
  }
  return out;
}

LineEcho::LineEcho(std::string prefix, std::function<void(absl::string_view)> sink)
    : prefix_(std::move(prefix)), sink_(std::move(sink)) {}

void LineEcho::Append(absl::string_view data) {
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
  if (!sink_) return;
  sink_(absl::StrCat(prefix_, line, "\n"));
}

}  // namespace clada::exec::internal
