// Every case of ../shared/peers/apply_patch.jsonl (Codex's apply-patch
// scenarios): the patch is read, each file operation applied to an
// in-memory tree, and the tree compared with Codex's. Deliberate
// differences (../apply-patch-reader/doc/ARCH.md) are checked as such, not skipped.
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/patch-text/src/envelope_format.h"
#include "proj/comp/patch-text/test/envelope_memory_apply.h"

namespace clada::patch_text {
namespace {

using nlohmann::json;
using testing::ApplyFileOp;
using testing::FileMap;

std::vector<json> LoadCases() {
  std::ifstream in("external/peers/apply_patch.jsonl");
  EXPECT_TRUE(in.good()) << "cannot open external/peers/apply_patch.jsonl";
  std::vector<json> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) cases.push_back(json::parse(line));
  }
  return cases;
}

// The warning clada adds where Codex silently overwrites (cases 010, 011).
const std::map<std::string, std::string>& ExpectedWarnings() {
  static const auto* m = new std::map<std::string, std::string>{
      {"scenario/010_move_overwrites_existing_destination",
       "*** Move to: renamed/dir/name.txt replaced the existing file (1 lines)"},
      {"scenario/011_add_overwrites_existing_file", "*** Add File: duplicate.txt replaced the existing file (1 lines)"},
  };
  return *m;
}

std::string TestName(const ::testing::TestParamInfo<json>& info) {
  std::string name = info.param.at("name").get<std::string>();
  std::string out;
  for (char c : name) out += isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

class PeerCases : public ::testing::TestWithParam<json> {};

TEST_P(PeerCases, MatchesCodex) {
  const json& c = GetParam();
  const std::string name = c.at("name").get<std::string>();
  FileMap files = c.at("files_before").get<FileMap>();
  std::vector<Patch> patches = ParsePatches(c.at("patch").get<std::string>());
  ASSERT_EQ(patches.size(), 1u) << "one envelope per case";
  bool ok = true;
  std::vector<std::string> errors, warnings = patches[0].warnings;
  for (const PatchError& e : patches[0].errors) {
    ok = false;
    errors.push_back(absl::StrCat("line ", e.line, ": ", e.code, ": ", e.message, " (", e.fix, ")"));
  }
  for (const FileOp& op : patches[0].ops) {
    testing::OpOutcome r = ApplyFileOp(op, &files);
    warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
    if (!r.ok) {
      ok = false;
      errors.push_back(r.error);
    }
  }
  const std::string expect = c.at("expect").get<std::string>();
  EXPECT_EQ(ok, expect == "ok") << "errors:\n" << absl::StrJoin(errors, "\n");
  EXPECT_EQ(files, c.at("files_after").get<FileMap>());
  if (expect == "error") {
    EXPECT_FALSE(errors.empty());
    for (const std::string& e : errors) EXPECT_FALSE(e.empty());
  }
  auto w = ExpectedWarnings().find(name);
  if (w != ExpectedWarnings().end()) {
    EXPECT_NE(std::find(warnings.begin(), warnings.end(), w->second), warnings.end()) << "warnings:\n"
                                                                                      << absl::StrJoin(warnings, "\n");
  } else if (expect == "ok") {
    EXPECT_TRUE(warnings.empty()) << absl::StrJoin(warnings, "\n");
  }
}

INSTANTIATE_TEST_SUITE_P(Codex, PeerCases, ::testing::ValuesIn(LoadCases()), TestName);

TEST(PeerCases, AllTwentyFiveAreThere) { EXPECT_EQ(LoadCases().size(), 25u); }

}  // namespace
}  // namespace clada::patch_text
