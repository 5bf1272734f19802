// The one writer of what reaches a terminal: text an answer chose (a file
// name, a block ID, a command's output, an error quoting them) is shown with
// every byte a terminal could act on, or that would make it read as other
// text, written as a visible escape. An OSC 52 sequence cannot set the
// clipboard, `ESC[2K` + CR cannot forge a line, and a bidirectional
// override cannot make one name display as another.
//
// Escaped, as `\xNN` (`\u00NN` in JSON form): C0 controls (but '\n', '\t'
// and the '\r' of "\r\n" where lines are kept), DEL, and each byte of
// invalid UTF-8. As `\uNNNN` (`\UNNNNNNNN` above U+FFFF; JSON form: a
// surrogate pair): C1 controls (U+0080..U+009F, CSI among them), the line
// and paragraph separators, the bidirectional marks, embeddings, overrides
// and isolates (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069)
// and other invisible format characters (U+00AD, U+180E, U+200B..U+200D,
// U+2060..U+2064, U+206A..U+206F, U+FEFF, U+FFF9..U+FFFB, the tag
// characters U+E0000..U+E007F, the Hangul fillers U+115F, U+1160, U+3164,
// U+FFA0). Everything else, printable ASCII and well-formed UTF-8, is kept
// as it is, so escaped text escaped again is unchanged.
//
// Example:
//   std::cout << core::EscapeForTerminal(name, core::TerminalForm::kOneLine);
//   // "bad\x1b]52;c;Zm9v\x07name", "\u202etxt.exe"
//
//   core::TerminalStream out(std::cout);  // every byte written is escaped
//   out << report;
#ifndef CLADA_PROJ_COMP_CORE_SRC_TERMINAL_TEXT_H_
#define CLADA_PROJ_COMP_CORE_SRC_TERMINAL_TEXT_H_

#include <cstddef>
#include <ostream>
#include <streambuf>
#include <string>

#include "absl/strings/string_view.h"

namespace clada::core {

enum class TerminalForm {
  // Text of many lines: '\n', '\t' and the '\r' of "\r\n" are kept.
  kLines,
  // One line (a name, a commit subject): '\n', '\r' and '\t' are escaped too.
  kOneLine,
  // A JSON document: as kLines, each escape written the way JSON writes it
  // (`\u001b`, `\u202e`, `\udb40\udc41`; an invalid byte as `\ufffd`), so
  // the document still parses to the same strings (but invalid bytes).
  kJson,
};

// `text` with every byte a terminal could act on, or that would hide or
// reorder what it shows, written as a visible escape (see the top of this
// file).
std::string EscapeForTerminal(absl::string_view text, TerminalForm form = TerminalForm::kLines);

// Appends the escaped form of the longest prefix of `text` that is known
// whole to `out` and returns its length in bytes. With `final` false, what
// the next bytes could change is held back: an incomplete UTF-8 sequence at
// the end (up to 3 bytes) and, for kLines and kJson, a final '\r'. With
// `final` true every byte is consumed.
size_t AppendEscapedForTerminal(absl::string_view text, TerminalForm form, bool final, std::string* out);

// Appends the escaped form of the longest prefix of `text` whose escaped
// form takes at most `limit` bytes, cut only between characters (an escape,
// a multi-byte character and a kept "\r\n" are never split), to `out` and
// returns the length of that prefix in bytes. As AppendEscapedForTerminal
// with `final` true otherwise: EscapeForTerminal of the prefix is what is
// appended.
size_t AppendEscapedForTerminalWithin(absl::string_view text, TerminalForm form, size_t limit, std::string* out);

// A stream buffer that writes what it is given to `dest`, escaped
// (AppendEscapedForTerminal), so a command printing through it cannot put a
// raw control sequence on the terminal whatever its parts forgot. Bytes are
// passed on at each flush and when the buffer fills; an incomplete UTF-8
// sequence (or a '\r' that may start "\r\n") waits for the next bytes, and
// is passed on, escaped, when this buffer is destroyed. `dest` must outlive
// it. Not thread-safe.
class TerminalStreamBuf : public std::streambuf {
 public:
  explicit TerminalStreamBuf(std::ostream& dest, TerminalForm form = TerminalForm::kLines);
  TerminalStreamBuf(const TerminalStreamBuf&) = delete;
  TerminalStreamBuf& operator=(const TerminalStreamBuf&) = delete;
  ~TerminalStreamBuf() override;

  // The form of what is written from now on (what is buffered already is
  // passed on first, in the form it was written in).
  void set_form(TerminalForm form);

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;

 private:
  // Escapes the buffered bytes (all of them when `final`) into dest_.
  void Drain(bool final);

  std::ostream& dest_;
  TerminalForm form_;
  std::string held_;  // bytes waiting for the next ones (at most 3)
  std::string escaped_;
  char buffer_[8192];
};

// An ostream over a TerminalStreamBuf (see there): what is written to it
// reaches `dest` escaped. Destroying it passes on what is held.
class TerminalStream : public std::ostream {
 public:
  explicit TerminalStream(std::ostream& dest, TerminalForm form = TerminalForm::kLines);
  ~TerminalStream() override;
  void set_form(TerminalForm form) {
    flush();
    buf_.set_form(form);
  }

 private:
  TerminalStreamBuf buf_;
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_TERMINAL_TEXT_H_
