// Test support: plays the cases of a test-data/*.cases.md file against a
// fresh scratch tree. test-data/README.md describes the format.
#ifndef CLADA_PROJ_COMP_CONTEXT_TEST_CASE_RUNNER_H_
#define CLADA_PROJ_COMP_CONTEXT_TEST_CASE_RUNNER_H_

#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace clada::context::testing {

// One fenced block: ```kind args...``` then body.
struct Block {
  std::string kind;
  std::vector<std::string> args;
  std::string body;  // every line with its '\n'; empty for an empty block
  int line = 0;      // of the opening fence
};

// One `## Name` section.
struct Case {
  std::string name;
  std::string file;
  int line = 0;
  std::vector<Block> blocks;
};

// Parses a cases file (path relative to the runfiles root). A malformed file
// aborts the test binary with a message naming the file and line.
std::vector<Case> LoadCases(const std::string& path);

// Runs every step of `c` in a new scratch directory; failures are reported
// through gtest assertions with the case file and line of the step.
void RunCase(const Case& c);

// For INSTANTIATE_TEST_SUITE_P: the case's name.
std::string CaseName(const ::testing::TestParamInfo<Case>& info);

void PrintTo(const Case& c, std::ostream* os);

}  // namespace clada::context::testing

#endif  // CLADA_PROJ_COMP_CONTEXT_TEST_CASE_RUNNER_H_
