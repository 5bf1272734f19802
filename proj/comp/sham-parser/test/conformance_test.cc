// Runs every case of the shared conformance corpus through ParseBlocks and
// compares the whole JSON result (blocks and errors, every field) with what
// the reference parser returned.
//
// The corpus is found through $CLADA_CONFORMANCE_DIR (a directory of .jsonl
// files) or, by default, in the runfiles of @conformance//:nesl.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "proj/comp/sham-parser/src/parse_command.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/src/sham_parser.h"
#include "proj/comp/sham-parser/test/pieces.h"

namespace clada::sham_parser {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// The corpus held 125 cases when this test was written; it may only grow.
constexpr size_t kMinimumCases = 125;

struct Case {
  std::string
      name;  // as in the corpus, e.g. "sham/integration/005-duplicate-key"
  std::string test_name;  // CamelCase for googletest
  std::string input;
  Json expected;
};

std::string CorpusDir() {
  if (const char* dir = std::getenv("CLADA_CONFORMANCE_DIR");
      dir != nullptr && *dir != '\0')
    return dir;
  std::vector<std::string> candidates = {"external/conformance/nesl",
                                         "../conformance/nesl"};
  if (const char* srcdir = std::getenv("TEST_SRCDIR"); srcdir != nullptr) {
    candidates.push_back(std::string(srcdir) + "/conformance/nesl");
    candidates.push_back(std::string(srcdir) +
                         "/clada/external/conformance/nesl");
  }
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (fs::is_directory(c, ec)) return c;
  }
  return "";
}

// "sham/integration/005-duplicate-key" -> "ShamIntegration005DuplicateKey".
std::string TestName(const std::string& name) {
  std::string out;
  bool upper = true;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out.push_back(
          upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                : c);
      upper = false;
    } else {
      upper = true;
    }
  }
  return out;
}

std::vector<Case> LoadCases() {
  std::vector<Case> cases;
  const std::string dir = CorpusDir();
  if (dir.empty()) return cases;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const Json c = Json::parse(line);
      cases.push_back({c["name"].get<std::string>(),
                       TestName(c["name"].get<std::string>()),
                       c["input"].get<std::string>(), c["expected"]});
    }
  }
  return cases;
}

const std::vector<Case>& AllCases() {
  static const std::vector<Case>* cases = new std::vector<Case>(LoadCases());
  return *cases;
}

TEST(ConformanceCorpus, LoadsEveryCaseUnderAUniqueName) {
  ASSERT_FALSE(CorpusDir().empty())
      << "conformance corpus not found; set CLADA_CONFORMANCE_DIR";
  EXPECT_GE(AllCases().size(), kMinimumCases);
  std::set<std::string> names;
  for (const Case& c : AllCases())
    EXPECT_TRUE(names.insert(c.test_name).second) << c.name;
}

// Failure messages name the case instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ConformanceCase : public ::testing::TestWithParam<Case> {};

TEST_P(ConformanceCase, MatchesReference) {
  const Case& c = GetParam();
  const Json got = ParseResultToJson(ParseBlocks(c.input));
  // Dumps compare key order too and print a readable diff.
  EXPECT_EQ(got.dump(2), c.expected.dump(2)) << "case " << c.name;
  // `clada parse` writes the same JSON text without building the tree.
  EXPECT_EQ(ParseResultToJsonText(ParseBlocks(c.input)), c.expected.dump(2)) << "case " << c.name;
}

// A piece of the case's input read with its line base reads as the piece
// after as many empty lines as come before it (test/pieces.h).
TEST_P(ConformanceCase, ReadsAPieceWithItsBaseAsPadded) {
  ExpectPiecesReadAsPadded(GetParam().input);
}

INSTANTIATE_TEST_SUITE_P(Corpus, ConformanceCase,
                         ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.test_name;
                         });

}  // namespace
}  // namespace clada::sham_parser
