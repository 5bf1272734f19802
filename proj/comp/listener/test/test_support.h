// Test-data loading and a temp directory for the listener's tests.
//
// Test-data files are JSON: {"cases": [{"name": "CamelCase", ...}, ...]}.
// A text is either a string or an array of lines (each gets a '\n').
#ifndef CLADA_PROJ_COMP_LISTENER_TEST_TEST_SUPPORT_H_
#define CLADA_PROJ_COMP_LISTENER_TEST_TEST_SUPPORT_H_

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener::testing {

using Json = nlohmann::json;

// The "cases" of proj/comp/listener/test-data/<file>.
std::vector<Json> LoadCases(const std::string& file);

// For INSTANTIATE_TEST_SUITE_P: the case's "name".
std::string CaseName(const ::testing::TestParamInfo<Json>& info);

// A string as is; an array of strings joined, each followed by '\n'.
std::string TextOf(const Json& value);

// How the tests name a block: a SHAM block by the ID in its header ("" when
// it has none readable), any other by its dialect.
std::string BlockId(const ScannedBlock& block);

// The BlockIds of the blocks ScanBlocks finds in `text`.
std::vector<std::string> BlockIds(const std::string& text);

// A fresh directory under $TEST_TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadFileOrEmpty(const std::string& path);
void WriteFileOrDie(const std::string& path, const std::string& text);

}  // namespace clada::listener::testing

#endif  // CLADA_PROJ_COMP_LISTENER_TEST_TEST_SUPPORT_H_
