// The gate the listener's scan passes before it reads through the answer
// layer: on every case of scan_blocks.json, the blocks ScanBlocks finds and
// those the segmenter finds over the registry's readers (first and last
// line, closed or not). The cases where they differ today are listed in
// test-data/segmenter_gate.json with why; a listed case that stops
// differing fails too (take it off the list).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/answer/src/segment.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/listener/test/test_support.h"
#include "proj/comp/readers/src/all_readers.h"

namespace clada::listener {
namespace {

using testing::CaseName;
using testing::Json;
using testing::LoadCases;
using testing::TextOf;

Json KnownDifferences() {
  const std::vector<Json> all = LoadCases("segmenter_gate.json");
  Json names = Json::object();
  for (const Json& c : all) names[c.at("name").get<std::string>()] = c.at("why");
  return names;
}

class SegmenterGate : public ::testing::TestWithParam<Json> {};

TEST_P(SegmenterGate, SameBlocksAsTheScan) {
  const Json& c = GetParam();
  const std::string text = TextOf(c.at("text"));
  std::vector<std::string> scanned, segmented;
  for (const ScannedBlock& b : ScanBlocks(text)) {
    scanned.push_back(absl::StrCat(b.start_line, "-", b.end_line, b.closed ? "" : " unclosed"));
  }
  const readers::Registry registry;
  for (const answer::Segment& s : answer::SegmentAnswer(text, registry.readers())) {
    segmented.push_back(absl::StrCat(s.span.at.first_line, "-", s.span.at.last_line, s.span.closed ? "" : " unclosed"));
  }
  const Json known = KnownDifferences();
  const std::string name = c.at("name");
  if (known.contains(name)) {
    EXPECT_NE(segmented, scanned) << name << " agrees now: take it off segmenter_gate.json";
  } else {
    EXPECT_EQ(segmented, scanned) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(ScanBlocks, SegmenterGate, ::testing::ValuesIn(LoadCases("scan_blocks.json")), CaseName);

}  // namespace
}  // namespace clada::listener
