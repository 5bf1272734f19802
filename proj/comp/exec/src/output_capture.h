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
// much is appended. A negative cap keeps everything.
class HeadTailBuffer {
 public:
  explicit HeadTailBuffer(int64_t cap);

  void Append(absl::string_view data);

  int64_t total_bytes() const { return total_; }
  bool truncated() const { return cap_ >= 0 && total_ > cap_; }

  // The kept text as valid UTF-8 (invalid bytes become U+FFFD). Past the cap
  // it is head + "\n[output truncated: N bytes of <stream_name> left out]\n" + tail,
  // with both cuts moved to character boundaries; N counts every byte of the
  // original stream that is not in head or tail.
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

// Replaces every byte that is not part of a well-formed UTF-8 sequence
// (overlongs, surrogates and code points past U+10FFFF included) with U+FFFD,
// so the text can go into a JSON document.
std::string SanitizeUtf8(absl::string_view text);

// Cuts a chunked stream into lines and hands each one, prefixed and ending
// in '\n', to `sink`. A line longer than kMaxLine is passed on in pieces so a
// stream without newlines is still echoed as it arrives.
class LineEcho {
 public:
  static constexpr size_t kMaxLine = 64 * 1024;

  LineEcho(std::string prefix, std::function<void(absl::string_view)> sink);

  void Append(absl::string_view data);
  // Emits a last line that had no newline.
  void Flush();

 private:
  void Emit(absl::string_view line);

  std::string prefix_;
  std::function<void(absl::string_view)> sink_;
  std::string partial_;
};

}  // namespace clada::exec::internal

#endif  // CLADA_PROJ_COMP_EXEC_SRC_OUTPUT_CAPTURE_H_
