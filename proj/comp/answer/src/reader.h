// The answer layer's seam: what every dialect's reader implements, so that
// one segmenter (segment.h) and one registry (proj/comp/readers) find and
// read every block of an answer, the same for run, --dry-run, validate,
// listen and instructions.
#ifndef CLADA_PROJ_COMP_ANSWER_SRC_READER_H_
#define CLADA_PROJ_COMP_ANSWER_SRC_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/packed_actions.h"
#include "proj/comp/core/src/source_span.h"

namespace clada::answer {

// One block of an answer, as its reader found it: bytes [at.begin, at.end)
// of the answer and lines at.first_line..at.last_line (1-based, inclusive).
// `closed`: the block's end is there (its end marker, or every line its
// header counts); an unclosed block may still be arriving, and the
// segmenter cuts it at the next opener of another dialect.
// `complete`: false when the block is unfinished though not cut (a CML
// element whose end tag is missing still holds what follows it): the rest
// may still be arriving, and the listener waits for it as for an unclosed one.
struct Span {
  core::SourceSpan at;
  bool closed = true;
  bool complete = true;
};

// A reader's spans in order of start, one at a time: the segmenter holds
// one pending span per reader, never a reader's whole list.
class SpanStream {
 public:
  virtual ~SpanStream() = default;
  // The next span (at.begin not below the previous one's), or false.
  virtual bool Next(Span* out) = 0;
};

// A SpanStream over spans already found (sorted by the stream).
class VectorSpanStream : public SpanStream {
 public:
  explicit VectorSpanStream(std::vector<Span> spans);
  bool Next(Span* out) override;

 private:
  std::vector<Span> spans_;
  size_t next_ = 0;
};

// A block the reader refused: its label, the code (a word, never
// classified by its text), what is wrong and the fix, phrased by the reader
// in its own dialect.
struct Diagnostic {
  std::string label;
  std::string code;
  std::string message;
  std::string fix;
  int line = 0;
  // The action the refused block names, when it names one.
  std::optional<std::string> action;
  // The refused block's text as reports show it (BlockContent: at most
  // 4 KB; a reader may keep more).
  std::string content;
  // The group the refusal belongs to (an index into ReadResult::groups: it
  // is numbered with that group's actions), or -1: a group of its own.
  int group = -1;
  // It stands in its group as a member that failed, at `line` (an invalid
  // task of a <tasks> block): in a fail-fast group, the members after it do
  // not run.
  bool member = false;
};

// `span` of `text` widened through the next line after it that holds
// more than blanks: what follows a block, so that its reader can say what
// cut it short ("line 6 starts RUN before its END"); a reader drops what
// it finds starting below span.at.last_line.
Span ThroughNextTextLine(absl::string_view text, const Span& span);

// At most the first 4 KB of text[at.begin, at.end): a refused block's
// content (Diagnostic::content).
std::string BlockContent(absl::string_view text, const core::SourceSpan& at);

// How a group of actions runs: each alone; the first failure stops the
// rest (a CML <tasks> block, an apply_patch update with a move); none runs
// when one is invalid, and the first failure stops the rest (a CSL TASKS
// block).
enum class GroupPolicy { kIndependent, kFailFast, kAtomic };

// actions[first, first + count) of a ReadResult.
struct Group {
  GroupPolicy policy = GroupPolicy::kIndependent;
  size_t first = 0;
  size_t count = 0;
  // When set, no action of the group runs, for this reason, phrased by the
  // reader (an atomic group with a refused member).
  std::string not_run;
};

// What one span reads into: the actions (each labelled in
// metadata.block_id, lines counted in the whole answer), the refused
// blocks, the groups the actions run in (every action in exactly one, in
// order) and warnings about the whole span.
struct ReadResult {
  std::vector<core::Action> actions;
  std::vector<Diagnostic> diagnostics;
  std::vector<Group> groups;
  std::vector<std::string> warnings;
  // How many blocks the span held, run or refused (a report's block count).
  int blocks = 0;
  // Actions a reader packed as it read them, following `actions` (group
  // indices count on from actions.size()): a span of very many (an
  // apply_patch envelope of 300,000 operations) is never held as actions.
  // packed_lines[i]: the first line of packed action i.
  core::PackedActions packed;
  std::vector<int32_t> packed_lines;
};

// Reads the spans of one answer the segmenter accepted, in order, and keeps
// what a dialect carries from one block to the next (the numbers of its
// labels, the path a SEARCH/REPLACE block reuses).
class SpanReader {
 public:
  virtual ~SpanReader() = default;
  // `span` lies in the answer Reading was given and follows the one read
  // before: labels and lines are the answer's.
  virtual ReadResult Read(const Span& span) = 0;
  // What the reader says of the answer as a whole once its last span is
  // read (two blocks sharing an ID): warnings.
  virtual std::vector<std::string> Finish() { return {}; }
};

// One dialect. Implementations are stateless and thread-safe.
class Reader {
 public:
  virtual ~Reader() = default;
  // The dialect's name as reports and --json give it ("sham", "cml", ...).
  virtual absl::string_view dialect() const = 0;
  // Every block of `text` in order of start (cheap: where the blocks are,
  // not what they say). `text` outlives the stream.
  virtual std::unique_ptr<SpanStream> Spans(absl::string_view text) const = 0;
  // A reading of `text`'s accepted spans (`text` outlives it).
  virtual std::unique_ptr<SpanReader> Reading(absl::string_view text) const = 0;
  // The system prompt that teaches the dialect (`clada instructions`).
  virtual std::string Instructions() const = 0;
  // False for a reader whose spans are not blocks but text no block may
  // start in (clada's own report pasted back): the segmenter weighs its
  // spans like any other and hands none on.
  virtual bool yields_blocks() const { return true; }
  // How to fix an action's failure of `code` (core::ActionOutcome::code)
  // in this dialect's own words (its markers or tool names), appended to
  // the executor's message, which names no dialect's; none: the message
  // stands alone. `action`: the failed action's name.
  virtual std::optional<std::string> PhraseFix(absl::string_view /*code*/, absl::string_view /*action*/) const {
    return std::nullopt;
  }
  // How this dialect says a schema word a failed action's message names
  // (core::Term: a parameter such as old_text, an action such as
  // file_write; `value`, what the message sets it to, or empty): in its own
  // markers' words ("the SEARCH section", "<write path=\"...\">"). None:
  // the bare word, as SHAM and MCP say it.
  virtual std::optional<std::string> SayTerm(absl::string_view /*name*/, absl::string_view /*value*/) const {
    return std::nullopt;
  }
  // The error type a failed action's error leads with in this dialect's
  // report (the seeds' CML and CSL forms: "search_not_found: ..."), from
  // its code and data; none: the error is shown as the executor gave it.
  virtual std::optional<std::string> ErrorType(absl::string_view /*action*/, absl::string_view /*code*/,
                                               const core::Json& /*data*/) const {
    return std::nullopt;
  }
  // How a failed member of a fail-fast group is named where the members
  // after it are reported not run ("not run: task 3 failed (...)"):
  // `label` its label (empty for a member the reader refused), `number`
  // the number its label ends in.
  virtual std::string FailedMemberName(absl::string_view /*label*/, int number) const {
    return absl::StrCat("task ", number);
  }
  // A parameter besides the schema's primary one that this dialect's text
  // report names an action by, kept (its first line) where a report drops
  // the others; empty: none.
  virtual absl::string_view NamingParam() const { return ""; }
  // True when Instructions() depends on the settings the reader was made
  // with (CSL's delimiters): `clada instructions` then reads them.
  virtual bool instructions_use_settings() const { return false; }
};

}  // namespace clada::answer

#endif  // CLADA_PROJ_COMP_ANSWER_SRC_READER_H_
