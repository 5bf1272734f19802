// One segmenter for every dialect: which spans of an answer are blocks.
#ifndef CLADA_PROJ_COMP_ANSWER_SRC_SEGMENT_H_
#define CLADA_PROJ_COMP_ANSWER_SRC_SEGMENT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proj/comp/answer/src/reader.h"

namespace clada::answer {

// A block of the answer: which reader reads it (an index into the readers
// given) and where it is.
struct Segment {
  size_t reader = 0;
  Span span;
  // Blocks of other readers that start inside this span when it is
  // unfinished though not cut (Span::complete false: a CML element without
  // its end tag holds what follows it): they are its content and do not
  // run, so its reader's error names them. At most kMaxSwallowed, in order.
  struct Swallowed {
    size_t reader = 0;
    int first_line = 0;
  };
  std::vector<Swallowed> swallowed;
};
inline constexpr size_t kMaxSwallowed = 8;

// Merges the readers' span streams (one pending span each) into the
// answer's blocks, in order of start, handed to `sink` as each is decided:
// - the earliest start wins; at the same start, the reader listed first;
// - a span that starts inside an accepted one is content of it, not a block
//   (an example in a heredoc, a CDATA, a REPLACE, an OVERWRITE);
// - except that an unclosed span is cut at the next opener of any dialect,
//   its own too (its end moved to that opener's start): a block never
//   closed does not swallow the blocks after it.
// The spans of a reader that does not yield blocks (Reader::yields_blocks)
// take part and are never handed on.
void SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers,
                   absl::FunctionRef<void(const Segment&)> sink);

// The same, kept in a vector.
std::vector<Segment> SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers);

// Says in `read` (what `segment`'s reader read from it) which blocks the
// unfinished segment holds (Segment::swallowed): appended to its first
// refusal's message, or a warning when its reader refused nothing.
void NameSwallowed(const Segment& segment, absl::Span<const Reader* const> readers, ReadResult* read);

// An answer quoted with '>' as a whole (a Markdown quote, as a chat copies
// it) is read without its quote marks: SegmentAnswer finds the blocks of
// Unquote(text), their spans given in `text`'s bytes and lines.

// True when every line of `text` that holds more than blanks starts (after
// blanks) with '>', and one does.
bool QuotedAsAWhole(absl::string_view text);

// `text` without one level of quote marks: on each line, the blanks before
// its first '>', the '>' and one space after it. Lines keep their numbers.
std::string Unquote(absl::string_view text);

// The answer as the layer reads it: the text the segments' spans count in,
// and what the layer says of the answer as a whole.
struct CheckedAnswer {
  // The answer, or `unquoted` (not to be moved while `text` points in it).
  absl::string_view text;
  // The answer without its quote marks, when it is quoted as a whole.
  std::string unquoted;
  // Warnings about the answer as a whole: it was quoted and read without
  // the quote marks; a block quoted among prose was not run.
  std::vector<std::string> warnings;
};

// SegmentAnswer with the layer's checks of quotes, the same for every
// dialect (doc/ARCH.md, "Quotes"):
// - an answer quoted with '>' as a whole is read without its quote marks,
//   with a warning: `out->text` is Unquote(text), the segments' spans are
//   in it;
// - in an answer not quoted as a whole, a block whose lines are all quoted
//   is taken for an example: it is not handed on, and a warning names its
//   dialect and lines (a quoted block that a reader finds only without its
//   quote marks is named too).
void SegmentCheckedAnswer(absl::string_view text, absl::Span<const Reader* const> readers, CheckedAnswer* out,
                          absl::FunctionRef<void(const Segment&)> sink);

}  // namespace clada::answer

#endif  // CLADA_PROJ_COMP_ANSWER_SRC_SEGMENT_H_
