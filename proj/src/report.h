// What clada prints after a run: the report an LLM reads next turn, the
// same result as JSON, and the one-line summary for the person at the
// terminal.
//
// Example:
//   ExecutionResult result = clada.Execute(answer);
//   std::cout << FormatReport(result, settings.report_budget_bytes);
//   std::cerr << FormatSummaryLine(result) << "\n";
#ifndef CLADA_PROJ_SRC_REPORT_H_
#define CLADA_PROJ_SRC_REPORT_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/src/clada.h"

namespace clada {

// Section markers a listener can find in a file.
inline constexpr char kResultsMarker[] = "=== CLADA RESULTS ===";
inline constexpr char kOutputsMarker[] = "=== OUTPUTS ===";
inline constexpr char kEndMarker[] = "=== END ===";

// What a report's budget covers. kWithinBudget: the results and the
// outputs together (the report `clada run` prints). kWhole: the results
// only; every output kept is shown (the outputs were bounded when they were
// kept: `clada listen`'s output file). kLeftOut: the results only, no
// outputs.
enum class ReportOutputs { kWithinBudget, kWhole, kLeftOut };

// The plain-text report: results (one line per action and per skipped
// block), then the outputs of read actions and exec, as an OutputBudget
// kept them. With budget_bytes > 0 (report_budget) the whole report stays
// within it: the results take at most a quarter when they are longer (head
// and tail kept, the cut marked with the batch's counts), and the outputs
// of actions that no longer fit are named, not shown. 0: no cap (the
// outputs are bounded by the budget they were kept with). With
// ReportOutputs::kWhole the budget is the results section's alone and every
// output is shown; with kLeftOut, no output is. Control
// characters other than newline and tab (and the CR of a CRLF), invalid
// UTF-8, and bidirectional and invisible format characters are shown
// escaped (\x1b, \u009b, \u202e: core::EscapeForTerminal): nothing an
// action read or ran reaches the terminal raw.
std::string FormatReport(const ExecutionResult& result, int64_t budget_bytes,
                         ReportOutputs outputs = ReportOutputs::kWithinBudget);

// Whether the text report of `result` takes the seeds' form `form` ("cml",
// "csl"): the report setting names it, or it is "auto", no result was left
// out, and every action and parse error came from that dialect (at least
// one).
bool UsesDialectReport(const ExecutionResult& result, absl::string_view form);

// The text report `clada run` prints: the CSL or CML form when
// UsesDialectReport says so, else FormatReport(result, budget_bytes).
std::string FormatTextReport(const ExecutionResult& result, int64_t budget_bytes,
                             ReportOutputs outputs = ReportOutputs::kWithinBudget);

// The results section of FormatTextReport's form for `result` (clada's,
// CML's or CSL's), without its markers and without the outputs, within
// `budget_bytes` as FormatReport(result, budget_bytes, kWhole) shows it
// (the first and the last lines, one line counting the others); 0: every
// line. What `clada listen` puts at the top of the file.
std::string FormatTextResults(const ExecutionResult& result, int64_t budget_bytes);

// For the seeds' report forms within a budget: how many of their entries
// (sizes in report order) are shown at the head and at the tail, the cut
// between them. The head takes up to half of `share` bytes and the tail
// the rest (the head then what the tail left), the head at most `head_max`
// entries and the tail at most `tail_max` (the results a ResultKeeper left
// out lie between them).
struct ShownEnds {
  size_t head = 0;
  size_t tail = 0;
};
ShownEnds ChooseShownEnds(const std::vector<int64_t>& sizes, size_t head_max, size_t tail_max, int64_t share);

// A report in a seeds' form (cml_report.cc, csl_report.cc) in two parts:
// the results section (its lines, the notes and the summary) and the
// outputs, measured as the whole report they make.
struct DialectReportParts {
  std::string results;
  std::string outputs;
  int64_t ReportSize() const {
    return static_cast<int64_t>(results.size() + outputs.size() + sizeof kResultsMarker + sizeof kEndMarker +
                                (outputs.empty() ? 0 : sizeof kOutputsMarker));
  }
  // What a budget covers (ReportOutputs): the whole report, or the results.
  int64_t BudgetedSize(ReportOutputs what) const {
    return what == ReportOutputs::kWithinBudget
               ? ReportSize()
               : static_cast<int64_t>(results.size() + sizeof kResultsMarker + sizeof kEndMarker);
  }
  // Room kept for the line that names the outputs left out.
  static constexpr int64_t kOutputsLineBytes = 400;

  // The results section's line for the refused SHAM blocks a batch
  // counted but did not keep (LeftOutSkipped), "" for none.
  static std::string RefusedBlocksLine(int refused) {
    if (refused <= 0) return "";
    return absl::StrCat("[results truncated: ", refused, refused == 1 ? " refused block" : " refused blocks",
                        " left out (their errors counted, not kept); --json shows them all]\n");
  }

  // Appends the outputs of entries at(0) .. at(n - 1) (each with `label`,
  // `output`, `shown`), in order: of those shown, as many as fit what
  // `budget_bytes` leaves (> 0; else all); the others, and those of the
  // results a ResultKeeper left out (counted at `gap.after`), named in one
  // line, as `noun` ("task", "operation") N of them.
  template <typename At>
  void AppendOutputs(size_t n, At at, const LeftOutResults& gap, int64_t budget_bytes, absl::string_view noun) {
    const int64_t room = budget_bytes > 0 ? budget_bytes - ReportSize() - static_cast<int64_t>(sizeof kOutputsMarker) -
                                                kOutputsLineBytes
                                          : -1;
    int left_out = 0;
    std::vector<std::string> left_out_ids;
    auto name = [&](const std::string& id) {
      if (left_out_ids.size() < 10) left_out_ids.push_back(id);
    };
    for (size_t i = 0; i <= n; ++i) {
      if (gap.count > 0 && i == gap.after) {
        left_out += gap.stream_outputs;
        for (const std::string& id : gap.stream_output_ids) name(id);
      }
      if (i == n) break;
      const auto& e = *at(i);
      if (e.output.empty()) continue;
      if (!e.shown || (room >= 0 && static_cast<int64_t>(outputs.size() + e.output.size()) > room)) {
        ++left_out;
        name(e.label);
        continue;
      }
      outputs += e.output;
    }
    if (left_out > 0) {
      absl::StrAppend(&outputs, "[output truncated: the outputs of ", left_out, " ", noun, left_out == 1 ? "" : "s",
                      " (", absl::StrJoin(left_out_ids, ", "), left_out > 10 ? ", ..." : "",
                      ") left out: the report budget is spent; read them in a later answer]\n");
    }
  }
};

// The report of a seeds' form within `budget_bytes`: every entry when that
// fits, else the head and the tail that fit (ChooseShownEnds over `sizes`,
// at most `head_max` and `tail_max`), the outputs taking at most three
// quarters (with ReportOutputs::kWhole or kLeftOut the budget is the
// results section's alone). `render(budget)` renders the entries marked
// shown (budget: what the outputs may fill; 0: no cap); `show(i, on)`
// marks entry i (an entry that can never be shown ignores it).
template <typename Render, typename Show>
DialectReportParts FitDialectReport(const std::vector<int64_t>& sizes, int64_t outputs_total, bool has_gap,
                                    size_t head_max, size_t tail_max, int64_t budget_bytes, ReportOutputs what,
                                    Render render, Show show) {
  const size_t n = sizes.size();
  const bool with_outputs = what == ReportOutputs::kWithinBudget;
  const int64_t render_budget = with_outputs ? budget_bytes : 0;
  if (!with_outputs) outputs_total = 0;
  int64_t sizes_total = 0;
  for (int64_t s : sizes) sizes_total += s;
  // Every entry, when that fits.
  if (!has_gap && sizes_total + outputs_total <= 4 * budget_bytes) {
    DialectReportParts whole = render(0);
    if (whole.BudgetedSize(what) <= budget_bytes) return whole;
  }
  for (size_t i = 0; i < n; ++i) show(i, false);
  const int64_t bare = render(render_budget).BudgetedSize(what);
  int64_t share = budget_bytes - bare - std::min(outputs_total, budget_bytes * 3 / 4) - 512;
  while (true) {
    const ShownEnds ends = ChooseShownEnds(sizes, head_max, tail_max, std::max<int64_t>(share, 0));
    for (size_t i = 0; i < n; ++i) show(i, i < ends.head || i >= n - ends.tail);
    DialectReportParts parts = render(render_budget);
    const int64_t size = parts.BudgetedSize(what);
    if (size <= budget_bytes || share <= 0) return parts;
    share = std::min(share / 2, share - (size - budget_bytes));
  }
}

// How much of the actions' outputs a batch keeps in memory, spent action
// by action as each finishes (Clada::Execute calls Fit on every result).
// Each action gets what is left divided by the actions that may still
// produce an output, at most `per_output_bytes`; a small output leaves the
// rest to later ones. An output over its share keeps its head and tail,
// cut at line ends, with a marker line in its place saying how many lines
// and bytes were left out and what shows them: file_read_numbered with the
// path and the exact `lines` range for a file, the code run again with its
// output redirected for exec, a narrower path or pattern for a listing
// (whose left-out elements are counted in data["<key>_left_out"]).
//
// A write's output is its diff, usually a few lines: writes do not divide
// the budget with the reads, but each write still to come keeps a small
// reserve (kWriteReserveBytes, at most half of what is left), so a big read
// early in a batch of edits keeps nearly all of its share and the diffs
// after it are still shown. A write may take what a read would. Actions
// with no output take no share.
class OutputBudget {
 public:
  static constexpr int64_t kWriteReserveBytes = 2048;
  // `outputs`: how many actions of the batch may produce an output other
  // than a diff (ProducesOutput and not ShowsChange); `writes`: how many
  // show a diff (ShowsChange).
  OutputBudget(int64_t total_bytes, int64_t per_output_bytes, int outputs, int writes = 0);
  void Fit(ActionResult& result);

 private:
  int64_t Reserved() const;
  int64_t left_;
  int64_t per_output_;
  int outputs_left_;
  int writes_left_;
};

// How many refused blocks keep their errors whole at each end of an
// answer (sham_action_parser::ErrorKeeping::keep_blocks) for a text report
// of `budget_bytes`: enough to fill the head and the tail of the results
// section FormatReport keeps, so the report is the one every error gives.
size_t SkippedBlocksKept(int64_t budget_bytes);

// The lines and bytes a refused block's errors take in the results section
// (escaped), for LeftOutSkipped.
std::pair<int64_t, int64_t> SkippedEntrySize(const std::vector<sham_action_parser::ActionParseError>& errors,
                                             const std::string& error_detail);

// Collects a batch's results as they finish (Clada::Execute for a text
// report in any form), keeping what FormatReport(result, budget_bytes)
// shows: every result until their results-section entries fill the head
// FormatReport keeps and either their outputs take more than the whole
// budget or their entries eight times that head (results without outputs
// are not all kept, waiting for outputs that never come); then the last
// ones, whose entries fill the tail it keeps. The results between are
// counted into ExecutionResult::left_out (succeeded and not run, their
// entries' lines and bytes, their outputs and the first ten ids, their
// groups and dialects), so the report is the one every result would give,
// except that a middle action's output is always named as left out (with
// every result kept, a small one could still fill a gap). The seeds' forms
// (FormatCmlReport, FormatCslReport) show at most as much of the head and
// tail as their own entries, larger than clada's, fit in the budget.
// budget_bytes 0: keeps every result.
class ResultKeeper {
 public:
  explicit ResultKeeper(int64_t budget_bytes);
  // Writes every result to `file` (an empty temporary file) as it is added,
  // instead of keeping it: MoveInto then fills ExecutionResult::spilled.
  void SpillTo(std::shared_ptr<std::FILE> file);
  // The groups that have a parse error (ExecutionResult::parse_error_groups):
  // such a group counts as failed in LeftOutResults::failed_groups.
  void NoteParseErrorGroups(std::vector<int> groups);
  void Add(ActionResult r);
  // Moves the kept results and the count of the others into `result`.
  void MoveInto(ExecutionResult& result) &&;

 private:
  struct Kept {
    ActionResult result;
    int64_t entry_bytes = 0;
    int64_t entry_lines = 0;
    bool has_output = false;
  };
  // Counts a result the keeper leaves out into left_out_.
  void CountLeftOut(const Kept& k);

  int64_t budget_;
  int64_t keep_;
  std::vector<ActionResult> head_;
  int64_t head_entry_bytes_ = 0;
  int64_t head_output_bytes_ = 0;
  std::deque<Kept> tail_;
  int64_t tail_entry_bytes_ = 0;
  LeftOutResults left_out_;
  std::vector<int> parse_error_groups_;  // sorted, each once
  bool group_failed_ = false;            // left_out_.last_group's
  SpilledResults spilled_;
  bool spill_failed_ = false;
};

// Whether the schema's action `action_name` returns an output the report
// shows (reads, listings, searches, exec, context listings, and the writes
// whose output is what they changed).
bool ProducesOutput(absl::string_view action_name);

// Whether `action_name`'s output is what it changed in a file (a diff):
// file_write, file_append and the replace actions.
bool ShowsChange(absl::string_view action_name);

// Only the results section (no outputs), for summaries.
// With budget_bytes > 0, within it: the first and the last entries, one
// line in place of the others that counts them.
std::string FormatResultsSection(const ExecutionResult& result, int64_t budget_bytes = 0);

// {success, totalBlocks, executedActions, results, parseErrors, warnings, git, fatalError?}
core::Json ExecutionResultToJson(const ExecutionResult& result);

// One element of the JSON document's "results" array.
core::Json ActionResultToJson(const ActionResult& r);

// `element` as ExecutionResultToJson(...).dump(2) prints an element of one
// of the document's arrays: four spaces more on every line (invalid UTF-8
// replaced).
std::string DocumentArrayElement(const core::Json& element);

// One element of its "parseErrors" array.
core::Json ParseErrorToJson(const sham_action_parser::ActionParseError& error, absl::string_view dialect);

// Prints ExecutionResultToJson(result).dump(2), the results and parse
// errors written to their files (ExecutionResult::spilled,
// LeftOutSkipped::file) included where they belong, without holding them
// in memory.
void WriteExecutionResultJson(const ExecutionResult& result, std::ostream& out);

// "N succeeded, M failed, K skipped (T ms)".
std::string FormatSummaryLine(const ExecutionResult& result);

// Number of blocks skipped for syntax or validation errors.
int CountSkippedBlocks(const ExecutionResult& result);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_REPORT_H_
