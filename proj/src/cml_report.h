// The seeds' CML report form (`--report cml`, or `auto` when every block of
// the answer is CML): one line per task, exec output prefixed
// `[task-N:exec]`, and the `<result>` summary with 0-based indices.
//
// Example:
//   if (UsesCmlReport(result)) std::cout << FormatCmlReport(result);
//
//   [task-1] Success: wrote src/app.js
//   [task-2] Error: search_not_found in src/app.js (old_text was not found ...)
//   [task-3] Not run: task 2 failed
//   <result blocks="1" tasks="3" succeeded="1" failed="2">
//     <block index="0" status="failed" tasks="3">
//       <task index="1" status="error">
//         <error type="search_not_found">old_text was not found ...</error>
//       </task>
//       ...
#ifndef CLADA_PROJ_SRC_CML_REPORT_H_
#define CLADA_PROJ_SRC_CML_REPORT_H_

#include <cstdint>
#include <string>

#include "proj/src/clada.h"
#include "proj/src/report.h"

namespace clada {

// True when the report takes the CML form: result.report_form is "cml", or
// "auto" and the answer had at least one block and every one was CML.
bool UsesCmlReport(const ExecutionResult& result);

// The task lines and the <result> summary, without markers or outputs
// (what `clada listen` puts at the top of the file).
// With budget_bytes > 0, within it (the first and the last lines shown, as
// in the report), else every line.
std::string FormatCmlResults(const ExecutionResult& result, int64_t budget_bytes = 0);

// The whole report in the CML form, between clada's section markers. With
// budget_bytes > 0 (report_budget) it stays within it: when the tasks do
// not fit, the first and the last task lines are shown with one line in
// place of the others that counts them by outcome, the <result> header
// keeps the counts of the whole batch, a <block> shown keeps its true task
// count and status (its tasks left out counted in a comment), and one
// comment stands for each run of blocks left out; the outputs that do not
// fit are named. The results a ResultKeeper left out (result.left_out) are
// counted in the same way. 0: every task.
// With ReportOutputs::kWhole the budget is the results section's alone and
// every output kept is shown.
std::string FormatCmlReport(const ExecutionResult& result, int64_t budget_bytes = 0,
                            ReportOutputs what = ReportOutputs::kWithinBudget);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_CML_REPORT_H_
