// The thin adapters that make each reader component an answer::Reader (one
// file each, src/adapt_<dialect>.cc), and what they share.
#ifndef CLADA_PROJ_COMP_READERS_SRC_ADAPTERS_H_
#define CLADA_PROJ_COMP_READERS_SRC_ADAPTERS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proj/comp/answer/src/reader.h"
#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/line_starts.h"
#include "proj/comp/core/src/packed_actions.h"
#include "proj/comp/readers/src/all_readers.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"

namespace clada::readers {

// The markers of clada's report (proj/src/report.h; the listener's copy in
// listener.h): a results section pasted back is no answer.
inline constexpr char kCladaResultsMarker[] = "=== CLADA RESULTS ===";
inline constexpr char kCladaEndMarker[] = "=== END ===";

std::unique_ptr<answer::Reader> MakeCladaReportReader();
std::unique_ptr<answer::Reader> MakeShamReader(const ReaderOptions& options);
std::unique_ptr<answer::Reader> MakeCmlReader();
std::unique_ptr<answer::Reader> MakeCslReader(const ReaderOptions& options);
std::unique_ptr<answer::Reader> MakeReplacerReader();
std::unique_ptr<answer::Reader> MakeSearchReplaceReader();
std::unique_ptr<answer::Reader> MakeApplyPatchReader();
std::unique_ptr<answer::Reader> MakeUdiffReader();

// The actions of one apply_patch file operation, in the order they run:
// file_write (Add), file_delete (Delete), or file_apply_patch (the
// operation's lines without its `*** Move to:`) followed, for a
// move, by file_move. Metadata and the envelope's warnings are the caller's.
// `text` is the answer whose bytes the operation's span counts.
void PatchOpActions(const apply_patch_reader::FileOp& op, absl::string_view text,
                    absl::FunctionRef<void(core::Action&&)> add);

// The actions of one unified diff file section, in the order they run: as
// git apply, a created or deleted file is file_apply_diff of the section; a
// rename is file_move, then file_apply_diff of the hunks on the new path.
// Each carries the section's warnings (the move only when it has no hunks).
// `text` is the answer whose bytes the section's span counts.
void DiffFileActions(const udiff_reader::FilePatch& f, absl::string_view text,
                     absl::FunctionRef<void(core::Action&&)> add);

// What a reader component reads for one span: the span's lines, from the
// start of its first line, and where they stand in the answer (the reader
// is given both, so every line and byte it reports is the answer's).
struct SpanPiece {
  absl::string_view text;
  int first_line = 1;
  size_t first_byte = 0;
};
SpanPiece PieceOf(absl::string_view text, const answer::Span& span);

// True when more than blanks follows `span` in `text`: a block its reader
// runs out of there stops before the rest of the answer (the segmenter cut
// it, or its reader ended it), and says so rather than that the answer ends.
bool More(absl::string_view text, const answer::Span& span);

// `s` with the number of every `prefix<N>` (not preceded by a letter or
// digit) raised by `by`: a reader numbers its labels (task-N, rep-N, ...)
// from 1 in each span; the answer's numbers count the spans read before.
void ShiftNumbers(std::string& s, absl::string_view prefix, int by);

// A SHAM block's lines, 0-based and inclusive, and its ID (at [id, id +
// id_len) of the caller's ids).
struct ShamExtent {
  uint32_t first = 0;
  uint32_t last = 0;
  uint32_t id = 0;
  uint32_t id_len = 0;
  bool closed = false;
};

// The SHAM blocks of `text` as a run finds them: the grammar parser reading
// the text through the run's tolerance of chat noise (one truth: a block's
// lines, and so a listener's key, are what clada will parse). A block quoted
// with '>' is a block whether or not the text is quoted as a whole: the run
// it is passed to runs it or reports it. A header the parser refuses (no
// readable ID) is a block too, so that its error is reported: from the
// header to the next end marker, or unclosed up to the next `#!` line. In
// line order, a refused header's lines never running into the next block;
// each ID appended to `ids`. (The listener's scan uses it too.)
std::vector<ShamExtent> ShamExtents(absl::string_view text, std::string& ids);

// True when the readers read `text` as an answer quoted as a whole (every
// non-blank line starts with '>'): the blocks quoted in it then run. A text
// made of some of an answer's lines (the listener's run text) that is so
// when the answer is not needs a prose line to read as the answer reads.
bool QuotedAsAWhole(absl::string_view text);

// Appends `id` to `ids`: where it starts and its length.
std::pair<uint32_t, uint32_t> AppendId(std::string& ids, absl::string_view id);

// Every label, message, fix and warning of `r` with its `prefix<N>`
// numbers raised by `by` (ShiftNumbers).
void ShiftLabels(answer::ReadResult& r, absl::string_view prefix, int by);

// `packed` with the number of every `prefix<N>` in its labels and warnings
// raised by `by` (ShiftLabels for actions a reader packed).
core::PackedActions ShiftPackedLabels(core::PackedActions packed, absl::string_view prefix, int by);

// A span of more bytes than this is read with its actions packed as the
// reader component reads them (ReadResult::packed): a CML <tasks> or CSL
// TASKS block of 300,000 operations is never held as actions.
inline constexpr size_t kPackSpanBytes = 1 << 20;

// Each of `actions` (from `first` on) a group of its own.
void EachItsOwnGroup(answer::ReadResult& r, size_t first);

// The byte span of lines first..last (1-based) of `text` (`lines` of it).
core::SourceSpan LineSpan(const core::LineStarts& lines, int first, int last);

// One row of a dialect's fixes (answer::Reader::PhraseFix): its words for
// the failure `code`; with `edits_only`, only for an action that edits a
// file that must exist (file_replace_*, file_apply_*).
struct FixPhrase {
  absl::string_view code;
  bool edits_only;
  absl::string_view text;
};
// The text of `table`'s row for `code` and `action`, or none.
std::optional<std::string> LookUpFix(absl::Span<const FixPhrase> table, absl::string_view code,
                                     absl::string_view action);

// One row of a dialect's words for the schema's (answer::Reader::SayTerm):
// how it says the parameter or action `name`; "{value}" in `text` stands
// for the value the message gives (a row with it, given no value, says the
// bare name).
struct TermPhrase {
  absl::string_view name;
  absl::string_view text;
};
// The text of `table`'s row for `name`, its value filled in, or none.
std::optional<std::string> LookUpTerm(absl::Span<const TermPhrase> table, absl::string_view name,
                                      absl::string_view value);

}  // namespace clada::readers

#endif  // CLADA_PROJ_COMP_READERS_SRC_ADAPTERS_H_
