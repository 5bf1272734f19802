// Test-data support: reads `.md` case files and compares JSON by subset.
//
// A case file holds one case:
//   # case name
//   ## Section            (e.g. Setup, Input, Options, Expected, Expected report, Expected files)
//   ### title             (optional: a file path, for Setup / Expected files;
//                          "path (no final newline)" for a file without one)
//   ```lang               (a fence of 3 or more backticks; the body is verbatim,
//   body                   without the final newline before the closing fence)
//   ```
// A `### title` followed by the word `(absent)` instead of a fence records
// an entry whose body is std::nullopt.
#ifndef CLADA_PROJ_TEST_CASE_FILE_H_
#define CLADA_PROJ_TEST_CASE_FILE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace clada::testing {

struct CaseEntry {
  std::string title;                // "" when the section has no ### heading
  std::optional<std::string> body;  // nullopt for `(absent)`
};

struct CaseFile {
  std::string name;
  std::map<std::string, std::vector<CaseEntry>> sections;

  // The first entry's body of `section`, or "" when absent.
  std::string Body(const std::string& section) const;
  bool Has(const std::string& section) const { return sections.count(section) > 0; }
};

CaseFile ParseCaseFile(const std::string& text);
CaseFile LoadCaseFile(const std::string& path);

// A `.cases.md` file holds several cases, each starting at a `# name` line.
std::vector<CaseFile> LoadCasesFile(const std::string& path);

// Every file in `dir` whose name ends with `suffix`, sorted.
std::vector<std::string> ListCaseFiles(const std::string& dir, const std::string& suffix = ".md");

// "" when every key of `expected` is in `actual` with a matching value
// (objects: subset; arrays: same length, element-wise; a string starting
// with "~" matches any string containing the rest). Otherwise the path and
// the difference.
std::string JsonSubsetMismatch(const nlohmann::ordered_json& expected, const nlohmann::ordered_json& actual,
                               const std::string& path = "$");

// "" when every non-empty line of `expected` occurs in `text`, in order.
std::string LinesInOrderMismatch(const std::string& expected, const std::string& text);

}  // namespace clada::testing

#endif  // CLADA_PROJ_TEST_CASE_FILE_H_
