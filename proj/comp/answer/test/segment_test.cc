// The segmenter's rules on answers of toy dialects (test-data/segment.json):
// a dialect X's block opens at a line `X{` and closes at a line `}X`; one
// never closed runs to the end of the text, unclosed. A reader listed in a
// case's `tolerant` also finds them quoted (`> X{`), as the SHAM and
// SEARCH/REPLACE readers do; the others only unquoted.
#include "proj/comp/answer/src/segment.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::answer {
namespace {

class MarkerReader : public Reader {
 public:
  MarkerReader(std::string name, bool hidden, bool tolerant, bool headed, bool incomplete)
      : name_(std::move(name)), hidden_(hidden), tolerant_(tolerant), headed_(headed), incomplete_(incomplete) {}
  bool yields_blocks() const override { return !hidden_; }
  absl::string_view dialect() const override { return name_; }
  std::unique_ptr<SpanStream> Spans(absl::string_view text) const override {
    if (headed_) return HeadedSpans(text);
    std::vector<Span> out;
    const std::string open = name_ + "{", close = "}" + name_;
    std::optional<Span> at;
    size_t pos = 0;
    int line = 0;
    while (pos < text.size()) {
      const size_t nl = text.find('\n', pos);
      const size_t end = nl == absl::string_view::npos ? text.size() : nl + 1;
      absl::string_view content = text.substr(pos, (nl == absl::string_view::npos ? text.size() : nl) - pos);
      if (tolerant_ && absl::ConsumePrefix(&content, ">")) absl::ConsumePrefix(&content, " ");
      ++line;
      if (!at.has_value() && content == open) {
        at = Span{{pos, 0, line, 0}, false};
      } else if (at.has_value() && content == close) {
        at->at.end = end;
        at->at.last_line = line;
        at->closed = true;
        out.push_back(*at);
        at.reset();
      }
      pos = end;
    }
    if (at.has_value()) {
      at->at.end = text.size();
      at->at.last_line = line;
      // An `incomplete` dialect's unfinished block holds what follows it
      // (as a CML element without its end tag): not cut, not complete.
      if (incomplete_) {
        at->closed = true;
        at->complete = false;
      }
      out.push_back(*at);
    }
    return std::make_unique<VectorSpanStream>(std::move(out));
  }
  // A `headed` dialect X, as SEARCH/REPLACE: a line `X:` right before
  // `X{` (its path) starts the block; an unclosed block runs through the
  // line before the next `X{`, its path line included (so the spans overlap).
  std::unique_ptr<SpanStream> HeadedSpans(absl::string_view text) const {
    std::vector<size_t> starts;
    std::vector<std::string> lines;
    for (size_t pos = 0; pos < text.size();) {
      const size_t nl = text.find('\n', pos);
      const size_t end = nl == absl::string_view::npos ? text.size() : nl + 1;
      starts.push_back(pos);
      lines.emplace_back(text.substr(pos, (nl == absl::string_view::npos ? text.size() : nl) - pos));
      pos = end;
    }
    starts.push_back(text.size());
    std::vector<Span> out;
    const std::string open = name_ + "{", close = "}" + name_, head = name_ + ":";
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i] != open) continue;
      const size_t first = i > 0 && lines[i - 1] == head ? i - 1 : i;
      size_t k = i + 1;
      while (k < lines.size() && lines[k] != close && lines[k] != open) ++k;
      const bool closed = k < lines.size() && lines[k] == close;
      const size_t last = closed ? k : k - 1;
      out.push_back({{starts[first], starts[last + 1], static_cast<int>(first) + 1, static_cast<int>(last) + 1}, closed});
    }
    return std::make_unique<VectorSpanStream>(std::move(out));
  }
  std::unique_ptr<SpanReader> Reading(absl::string_view) const override { return nullptr; }
  std::string Instructions() const override { return ""; }

 private:
  std::string name_;
  bool hidden_;
  bool tolerant_;
  bool headed_;
  bool incomplete_;
};

class SegmentCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(SegmentCase, Segments) {
  const nlohmann::json& c = GetParam();
  std::vector<std::unique_ptr<MarkerReader>> owned;
  std::vector<const Reader*> readers;
  for (const auto& name : c["readers"]) {
    const nlohmann::json hidden_list = c.value("hidden", nlohmann::json::array());
    const bool hidden = std::find(hidden_list.begin(), hidden_list.end(), name) != hidden_list.end();
    const nlohmann::json tolerant_list = c.value("tolerant", nlohmann::json::array());
    const bool tolerant = std::find(tolerant_list.begin(), tolerant_list.end(), name) != tolerant_list.end();
    const nlohmann::json headed_list = c.value("headed", nlohmann::json::array());
    const bool headed = std::find(headed_list.begin(), headed_list.end(), name) != headed_list.end();
    const nlohmann::json incomplete_list = c.value("incomplete", nlohmann::json::array());
    const bool incomplete = std::find(incomplete_list.begin(), incomplete_list.end(), name) != incomplete_list.end();
    owned.push_back(std::make_unique<MarkerReader>(name.get<std::string>(), hidden, tolerant, headed, incomplete));
    readers.push_back(owned.back().get());
  }
  const std::string text = absl::StrJoin(c["lines"].get<std::vector<std::string>>(), "\n") + "\n";
  // `checked`: the layer's checks of quotes (SegmentCheckedAnswer), whose
  // spans count in the text it reads; else SegmentAnswer.
  const bool checked = c.value("checked", false);
  CheckedAnswer answer;
  std::vector<Segment> segments;
  if (checked) {
    SegmentCheckedAnswer(text, readers, &answer, [&segments](const Segment& s) { segments.push_back(s); });
  } else {
    segments = SegmentAnswer(text, readers);
    answer.text = text;
  }
  std::vector<std::string> got;
  for (const Segment& s : segments) {
    // The bytes and the lines agree.
    const absl::string_view body = answer.text.substr(s.span.at.begin, s.span.at.end - s.span.at.begin);
    int lines = 0;
    for (char ch : body) lines += ch == '\n';
    EXPECT_EQ(s.span.at.last_line - s.span.at.first_line + 1, lines) << body;
    std::string holds;
    for (const Segment::Swallowed& w : s.swallowed) absl::StrAppend(&holds, " ", readers[w.reader]->dialect(), w.first_line);
    got.push_back(absl::StrCat(readers[s.reader]->dialect(), " ", s.span.at.first_line, "-", s.span.at.last_line,
                               s.span.closed ? "" : " unclosed", s.span.complete ? "" : " incomplete",
                               holds.empty() ? "" : " holds", holds));
  }
  EXPECT_EQ(got, c["segments"].get<std::vector<std::string>>()) << c["note"];
  EXPECT_EQ(answer.warnings, c.value("warnings", std::vector<std::string>())) << c["note"];
  if (c.contains("read")) EXPECT_EQ(std::string(answer.text), c["read"].get<std::string>());
}

std::vector<nlohmann::json> Cases() {
  std::ifstream in("proj/comp/answer/test-data/segment.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(Data, SegmentCase, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param["name"].template get<std::string>(); });

}  // namespace
}  // namespace clada::answer
