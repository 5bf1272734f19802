// Line numbers within one answer. An answer's line-addressed edits
// (file_replace_lines "12-14") number a file's lines as the model read it,
// before this answer. AnswerLines, one per batch (run and --dry-run alike,
// through ExecContext::answer_lines), records the lines each edit of the
// batch changed in each file, in those original numbers, so that a later
// edit's lines are moved to where they are now; an edit whose lines an
// earlier edit of the same answer changed is refused (the model's numbers
// no longer name what it saw there).
//
// Example:
//   core::AnswerLines lines;
//   // task-1 inserted two lines before line 2:
//   lines.Record("/r/a.txt", "a\nb\nc\n", "a\nx\ny\nb\nc\n", "task-1");
//   core::AnswerLines::Mapped m = lines.Map("/r/a.txt", 3, 3);  // m.ok, m.first == 5
#ifndef CLADA_PROJ_COMP_CORE_SRC_ANSWER_LINES_H_
#define CLADA_PROJ_COMP_CORE_SRC_ANSWER_LINES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace clada::core {

// The lines one edit changed: lines [first, first + old_count) of the text
// before it became `new_count` lines (old_count 0: inserted before `first`).
struct LineChange {
  int64_t first = 1;
  int64_t old_count = 0;
  int64_t new_count = 0;
};

// The one run of lines where `before` and `after` differ (every line
// before it and after it is the same in both), or nullopt when they are
// equal. An edit of several places gives the run from its first change to
// its last. Linear in the texts.
std::optional<LineChange> ChangedLines(absl::string_view before, absl::string_view after);

// A text given as pieces in order, not built whole (an edit's result as
// the file's bytes between the places it replaced and their new text):
// `count` pieces, `piece(i)` the i-th.
struct PiecedText {
  size_t count = 0;
  std::function<absl::string_view(size_t)> piece;
};

// ChangedLines(before, the text `after` joins to), without joining it. A
// piece that is a view of `before`'s own bytes at the same offset (from the
// start, or from the end) is taken as equal without being read, so an edit
// of a few places costs about its places, plus one count of the lines.
std::optional<LineChange> ChangedLines(absl::string_view before, const PiecedText& after);

class AnswerLines {
 public:
  // Where lines [first, last] of a file as it was before the answer are now.
  struct Mapped {
    bool ok = false;
    int64_t first = 0, last = 0;  // ok: the lines now
    // !ok: the earlier edit that changed some of them (its block label) and
    // the lines it changed, in the file's numbers before the answer (for a
    // file the answer created: created, no lines).
    std::string by;
    int64_t changed_first = 0, changed_last = 0;
    bool created = false;
  };

  // Keeps records for `path` (canonical) and the other paths watched only:
  // the engine watches the files its batch's line-addressed actions name,
  // so an answer of many edits and few line edits holds few records. Until
  // the first call every path is kept.
  void Watch(const std::string& path);

  // `path` (canonical) went from `before` to `after` by the action
  // labelled `label`.
  void Record(const std::string& path, absl::string_view before, absl::string_view after, absl::string_view label);
  // The same, `after` given as pieces (the same record).
  void Record(const std::string& path, absl::string_view before, const PiecedText& after, absl::string_view label);
  // `path` was created by the answer: none of its lines are the model's.
  void Created(const std::string& path, absl::string_view label);
  // `path`, or every path below it, was deleted; or moved from `from` to `to`.
  void Forget(const std::string& path);
  void Move(const std::string& from, const std::string& to);

  Mapped Map(const std::string& path, int64_t first, int64_t last) const;
  // The label of the last action of the answer that changed or created
  // `path`, or "" when none did.
  std::string LastChangeBy(const std::string& path) const;

 private:
  // A run of changed lines: [orig_first, orig_first + orig_count) of the
  // file before the answer, now `now_count` lines; the last edit there.
  struct Run {
    int64_t orig_first = 1;
    int64_t orig_count = 0;
    int64_t now_count = 0;
    std::string by;
  };
  struct File {
    std::vector<Run> runs;  // ascending, disjoint
    std::string created_by;  // non-empty: created by the answer
    std::string last_by;     // the last action that changed it
  };
  void Note(const std::string& path, const LineChange& c, absl::string_view label);
  void Apply(File& f, const LineChange& c, absl::string_view label);
  bool Kept(const std::string& path) const { return !limited_ || watched_.count(path) > 0; }

  std::map<std::string, File> files_;
  bool limited_ = false;
  std::set<std::string> watched_;
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_ANSWER_LINES_H_
