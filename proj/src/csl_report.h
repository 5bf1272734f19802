// The seed's CSL report form (`--report csl`, or `auto` when every block of
// the answer is CSL): one line per operation, `[task-N] STATUS: OPERATION -
// details`, `[task-N.M]` inside TASKS, statuses SUCCESS, ERROR, SKIP and
// FATAL; command output and file contents after them, each line prefixed
// `[task-N:exec]` / `[task-N:read]`.
//
// Example:
//   if (UsesCslReport(result)) std::cout << FormatCslReport(result);
//
//   [task-1] SUCCESS: WRITE - src/app.js: wrote 3 lines
//   [task-2.1] ERROR: SEARCH - config.json: search_not_found: old_text was not found ...
//   [task-2.2] SKIP: RUN - not run: task-2.1 failed (a TASKS block stops at its first failure)
//   [task-3] ERROR: REPLACE - line 9: stray_marker: <---REPLACE---> on line 9 is not inside a SEARCH
//       fix: write <---SEARCH file="path"--->, ...
#ifndef CLADA_PROJ_SRC_CSL_REPORT_H_
#define CLADA_PROJ_SRC_CSL_REPORT_H_

#include <cstdint>
#include <string>

#include "proj/src/clada.h"
#include "proj/src/report.h"

namespace clada {

// True when the report takes the CSL form: result.report_form is "csl", or
// "auto" and the answer had at least one block and every one was CSL.
bool UsesCslReport(const ExecutionResult& result);

// The status lines and the summary line, without markers or outputs (what
// `clada listen` puts at the top of the file).
// With budget_bytes > 0, within it (the first and the last lines shown, as
// in the report), else every line.
std::string FormatCslResults(const ExecutionResult& result, int64_t budget_bytes = 0);

// The whole report in the CSL form, between clada's section markers. With
// budget_bytes > 0 (report_budget) it stays within it: when the operations
// do not fit, the first and the last status lines are shown with one line
// in place of the others that counts them by outcome, the summary line
// keeps the counts of the whole batch, and the outputs that do not fit are
// named. The results a ResultKeeper left out (result.left_out) are counted
// in the same way. 0: every operation.
// With ReportOutputs::kWhole the budget is the results section's alone and
// every output kept is shown.
std::string FormatCslReport(const ExecutionResult& result, int64_t budget_bytes = 0,
                            ReportOutputs what = ReportOutputs::kWithinBudget);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_CSL_REPORT_H_
