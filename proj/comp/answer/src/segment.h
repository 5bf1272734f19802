// One segmenter for every dialect: which spans of an answer are blocks.
#ifndef CLADA_PROJ_COMP_ANSWER_SRC_SEGMENT_H_
#define CLADA_PROJ_COMP_ANSWER_SRC_SEGMENT_H_

#include <cstddef>
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
};

// Merges the readers' span streams (one pending span each) into the
// answer's blocks, in order of start, handed to `sink` as each is decided:
// - the earliest start wins; at the same start, the reader listed first;
// - a span that starts inside an accepted one is content of it, not a block
//   (an example in a heredoc, a CDATA, a REPLACE, an OVERWRITE);
// - except that an unclosed span is cut at the next opener of another
//   dialect (its end moved to that opener's line start): a block never
//   closed does not swallow the blocks after it.
// The spans of a reader that does not yield blocks (Reader::yields_blocks)
// take part and are never handed on.
void SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers,
                   absl::FunctionRef<void(const Segment&)> sink);

// The same, kept in a vector.
std::vector<Segment> SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers);

}  // namespace clada::answer

#endif  // CLADA_PROJ_COMP_ANSWER_SRC_SEGMENT_H_
