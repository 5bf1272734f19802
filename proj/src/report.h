// What clada prints after a run: the report an LLM reads next turn, the
// same result as JSON, and the one-line summary for the person at the
// terminal.
//
// Example:
//   ExecutionResult result = clada.Execute(answer);
//   std::cout << FormatReport(result, settings.max_output_bytes);
//   std::cerr << FormatSummaryLine(result) << "\n";
#ifndef CLADA_PROJ_SRC_REPORT_H_
#define CLADA_PROJ_SRC_REPORT_H_

#include <cstdint>
#include <string>

#include "proj/comp/core/src/action.h"
#include "proj/src/clada.h"

namespace clada {

// Section markers a listener can find in a file.
inline constexpr char kResultsMarker[] = "=== CLADA RESULTS ===";
inline constexpr char kOutputsMarker[] = "=== OUTPUTS ===";
inline constexpr char kEndMarker[] = "=== END ===";

// The plain-text report: results (one line per action and per skipped
// block), then the outputs of read actions and exec. Each output is cut at
// `max_output_bytes`, marked `[output truncated]`.
std::string FormatReport(const ExecutionResult& result, int64_t max_output_bytes);

// Only the results section (no outputs), for summaries.
std::string FormatResultsSection(const ExecutionResult& result);

// {success, totalBlocks, executedActions, results, parseErrors, warnings, git, fatalError?}
core::Json ExecutionResultToJson(const ExecutionResult& result);

// "N succeeded, M failed, K skipped (T ms)".
std::string FormatSummaryLine(const ExecutionResult& result);

// Number of blocks skipped for syntax or validation errors.
int CountSkippedBlocks(const ExecutionResult& result);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_REPORT_H_
