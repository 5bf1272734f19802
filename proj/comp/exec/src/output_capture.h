// Bounded capture of a child's output and the live echo of its lines.
//
// Example:
//   clada::exec::internal::HeadTailBuffer out(10 << 20);
//   out.Append(chunk);                       // as chunks arrive
//   std::string text = out.Finish("stdout");  // head + marker + tail past the cap
#ifndef CLADA_PROJ_COMP_EXEC_SRC_OUTPUT_CAPTURE_H_
#define CLADA_PROJ_COMP_EXEC_SRC_OUTPUT_CAPTURE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"

namespace clada::exec::internal {

// Keeps at most `cap` bytes of a stream: everything while it fits, else the
// first cap/2 and the last cap - cap/2 bytes. Memory stays O(cap) however
// much is appended. A negative cap keeps everything. The cap holds for the
// text Finish returns (besides the marker line) as it is shown: invalid
// bytes become U+FFFD (three bytes each), and each character counts the
// bytes it takes where it is shown widest, escaped for a terminal or in
// JSON: a control character other than newline and tab 6 (`\u001b`; `\b`,
// `\f`, `\r` and DEL 4, as `\x0d`), a C1 or layout control 6 (`\u009b`).
// Ordinary text counts as it is (not JSON's `\"` or `\n`).
class HeadTailBuffer {
 public:
  explicit HeadTailBuffer(int64_t cap);

  void Append(absl::string_view data);

  int64_t total_bytes() const { return total_; }
  bool truncated() const { return cap_ >= 0 && total_ > cap_; }

  // The kept text as valid UTF-8 (invalid bytes become U+FFFD). When that
  // is over the cap as shown it is head + "\n[output truncated: N bytes of
  // <stream_name> left out]\n" + tail, head at most cap/2 bytes and tail at
  // most cap - cap/2 bytes as shown, both cut at character boundaries;
  // N counts every byte of the original stream that is not in head or tail.
  std::string Finish(absl::string_view stream_name) const;

 private:
  int64_t cap_;
  int64_t head_cap_;
  int64_t tail_cap_;
  int64_t total_ = 0;
  std::string head_;
  std::string ring_;     // the last bytes after the head; circular once full
  size_t ring_pos_ = 0;  // oldest byte of ring_ once it is full
};

// Cuts a chunked stream into lines and hands each one, escaped by core's
// terminal writer (core::EscapeForTerminal, kLines: a line holds no '\n',
// so every '\r' is escaped too), prefixed and ending in '\n', to `sink`. A line longer
// than kMaxLine is passed on in pieces so a stream without newlines is still
// echoed as it arrives. Past `cap` bytes written (prefixes, escapes and
// line ends counted; negative: no cap) one line says the live echo of
// `stream_name` stops there, and the rest is dropped.
class LineEcho {
 public:
  static constexpr size_t kMaxLine = 64 * 1024;

  LineEcho(std::string prefix, std::function<void(absl::string_view)> sink, int64_t cap = -1,
           std::string stream_name = "output");

  void Append(absl::string_view data);
  // Emits a last line that had no newline.
  void Flush();

 private:
  void Emit(absl::string_view line);

  std::string prefix_;
  std::function<void(absl::string_view)> sink_;
  int64_t cap_;
  std::string stream_name_;
  int64_t echoed_ = 0;
  bool stopped_ = false;
  std::string partial_;
};

}  // namespace clada::exec::internal

#endif  // CLADA_PROJ_COMP_EXEC_SRC_OUTPUT_CAPTURE_H_
