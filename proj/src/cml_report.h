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

#include <string>

#include "proj/src/clada.h"

namespace clada {

// True when the report takes the CML form: result.report_form is "cml", or
// "auto" and the answer had at least one block and every one was CML.
bool UsesCmlReport(const ExecutionResult& result);

// The task lines and the <result> summary, without markers or outputs
// (what `clada listen` puts at the top of the file).
std::string FormatCmlResults(const ExecutionResult& result);

// The whole report in the CML form, between clada's section markers.
std::string FormatCmlReport(const ExecutionResult& result);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_CML_REPORT_H_
