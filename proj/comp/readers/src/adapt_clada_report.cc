// clada's own report pasted back into an answer (a results section, from
// `=== CLADA RESULTS ===` at the start of a line to the next `=== END ===`
// at the start of a line): not a dialect, text in which no block starts.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {
namespace {

class ReportReading : public answer::SpanReader {
 public:
  answer::ReadResult Read(const answer::Span&) override { return {}; }
};

class CladaReportReader : public answer::Reader {
 public:
  absl::string_view dialect() const override { return "clada_report"; }
  bool yields_blocks() const override { return false; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    std::vector<answer::Span> spans;
    if (text.find(kCladaResultsMarker) != absl::string_view::npos) {
      const core::LineStarts lines(text);
      std::vector<size_t> ends;  // the END lines, ascending
      for (size_t i = 0; i < lines.size(); ++i) {
        if (lines.Content(i) == kCladaEndMarker) ends.push_back(i);
      }
      for (size_t i = 0; i < lines.size(); ++i) {
        if (lines.Content(i) != kCladaResultsMarker) continue;
        auto end = std::upper_bound(ends.begin(), ends.end(), i);
        if (end == ends.end()) break;  // no END after it: text
        spans.push_back({LineSpan(lines, static_cast<int>(i) + 1, static_cast<int>(*end) + 1), true});
        i = *end;
      }
    }
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view) const override {
    return std::make_unique<ReportReading>();
  }
  std::string Instructions() const override { return ""; }
};

}  // namespace

std::unique_ptr<answer::Reader> MakeCladaReportReader() { return std::make_unique<CladaReportReader>(); }

}  // namespace clada::readers
