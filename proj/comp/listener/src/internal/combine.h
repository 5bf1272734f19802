// Several runs' results written back as one: when FILE was saved while a run
// went, the run that follows shows that run's results again, before its own,
// since nobody could have seen them in between (ARCH.md, "Results nobody
// could see are carried to the next write-back").
//
// Example:
//   std::vector<ShownRun> runs = {{"10:00:01: ran 1 block, 1 succeeded, 0 failed, 0 skipped", s1, r1},
//                                 {"10:00:05: ran 2 blocks, 2 succeeded, 0 failed, 0 skipped", s2, r2}};
//   std::string section = FormatSummarySection(first_line, CombineSummaries(runs, 0));
//   std::string output = CombineFullReports(runs, 0);
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_COMBINE_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_COMBINE_H_

#include <cstddef>
#include <string>
#include <vector>

namespace clada::listener::internal {

// One run's results as the listener writes them back.
struct ShownRun {
  std::string heading;      // "10:00:01: ran 1 block, 1 succeeded, 0 failed, 0 skipped" (one line)
  std::string summary;      // RunReport::summary
  std::string full_report;  // RunReport::full_report
};

// The body of the summary section for `runs`, earlier first (at least one),
// `left_out` older runs having been dropped (kMaxRunsShown). One run, none
// left out: its summary as it is. Otherwise "(results of N older runs left
// out: ...)" when some were, then for each run the line
// "--- run I of N, <heading> ---" and its summary's body (SummaryBody: its
// own markers dropped, so the whole stays one section). For
// FormatSummarySection, which escapes what needs it.
std::string CombineSummaries(const std::vector<ShownRun>& runs, size_t left_out);

// The output file's and the clipboard's text for `runs`, as
// CombineSummaries: one run, none left out: its full report as it is.
// Otherwise the note on those left out, then each run's heading line and its
// full report unchanged, an empty line between two runs.
std::string CombineFullReports(const std::vector<ShownRun>& runs, size_t left_out);

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_COMBINE_H_
