#include "proj/comp/listener/src/internal/combine.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "proj/comp/listener/src/internal/scan.h"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener::internal {
namespace {

std::string LeftOutNote(size_t left_out) {
  return absl::StrCat("(results of ", left_out, left_out == 1 ? " older run" : " older runs", " left out: at most ",
                      kMaxRunsShown, " runs are shown together)\n");
}

// One line, whatever the heading holds (a fatal error's message may span lines).
std::string RunHeading(size_t i, size_t n, absl::string_view heading) {
  std::string line = absl::StrCat("--- run ", i + 1, " of ", n, ", ", heading, " ---\n");
  std::replace(line.begin(), line.end() - 1, '\n', ' ');
  std::replace(line.begin(), line.end() - 1, '\r', ' ');
  return line;
}

void AppendWithNewline(std::string* out, absl::string_view text) {
  absl::StrAppend(out, text);
  if (!text.empty() && text.back() != '\n') out->push_back('\n');
}

}  // namespace

std::string CombineSummaries(const std::vector<ShownRun>& runs, size_t left_out) {
  if (runs.size() == 1 && left_out == 0) return runs.front().summary;
  std::string out = left_out > 0 ? LeftOutNote(left_out) : "";
  for (size_t i = 0; i < runs.size(); ++i) {
    absl::StrAppend(&out, RunHeading(i, runs.size(), runs[i].heading));
    AppendWithNewline(&out, SummaryBody(runs[i].summary));
  }
  return out;
}

std::string CombineFullReports(const std::vector<ShownRun>& runs, size_t left_out) {
  if (runs.size() == 1 && left_out == 0) return runs.front().full_report;
  std::string out = left_out > 0 ? absl::StrCat(LeftOutNote(left_out), "\n") : "";
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i > 0) out.push_back('\n');
    absl::StrAppend(&out, RunHeading(i, runs.size(), runs[i].heading));
    AppendWithNewline(&out, runs[i].full_report);
  }
  return out;
}

}  // namespace clada::listener::internal
