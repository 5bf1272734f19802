// Dialect names and reader components stop at the reader layer: the
// executors (fs-ops, exec, context, git-tx) and core neither include a
// reader component, nor depend on one in their libraries' BUILD deps, nor
// name a dialect in their code. What is still left is listed in
// kStillAllowed, and each entry must still be needed: the list only shrinks.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace {

// The components that must not know the dialects: the executors and core,
// and patch-text, the formats (unified diff, patch envelope) that readers
// and executors share.
constexpr const char* kExecutors[] = {"core", "fs-ops", "exec", "context", "git-tx", "patch-text"};

// The reader components and the answer layer.
constexpr const char* kReaders[] = {"sham-parser",     "sham-action-parser", "cml-parser",   "csl-parser",
                                    "aider-reader",    "apply-patch-reader", "udiff-reader", "replacer-reader",
                                    "readers",         "answer"};

// What is left to move (component, reader it still uses): nothing. An entry
// added here must be taken off again once its use has moved.
const std::set<std::pair<std::string, std::string>> kStillAllowed = {};

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The files of a component's `:layering_sources` filegroup (src/** and
// BUILD.bazel), found in the test's runfiles.
std::vector<std::string> SourcesOf(const std::string& component) {
  std::vector<std::string> out;
  const std::string dir = absl::StrCat("proj/comp/", component);
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string path = it->path().string();
    if (absl::StartsWith(path, dir + "/src/") || path == dir + "/BUILD.bazel") {
      if (std::filesystem::is_regular_file(it->path())) out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The file's text without its comments (// to the end of the line and
// /* ... */), string literals kept.
std::string WithoutComments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
    } else {
      out += c;
    }
  }
  return out;
}

// The `//proj/comp/<x>` deps of the cc_library rules of a BUILD file.
std::set<std::string> LibraryDeps(const std::string& build) {
  std::set<std::string> out;
  const std::regex rule_start(R"((^|\n)(\w+)\()");
  std::vector<std::pair<size_t, std::string>> rules;
  for (auto it = std::sregex_iterator(build.begin(), build.end(), rule_start); it != std::sregex_iterator(); ++it) {
    rules.emplace_back(static_cast<size_t>(it->position(0)), (*it)[2].str());
  }
  for (size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].second != "cc_library") continue;
    const size_t end = i + 1 < rules.size() ? rules[i + 1].first : build.size();
    const std::string body = build.substr(rules[i].first, end - rules[i].first);
    if (absl::StrContains(body, "testonly = True")) continue;
    const std::regex dep(R"re("//proj/comp/([a-z0-9-]+))re");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), dep); it != std::sregex_iterator(); ++it) {
      out.insert((*it)[1].str());
    }
  }
  return out;
}

// A dialect named as a string ("cml", "search_replace", ...), or an
// action field named for one.
const std::regex& DialectName() {
  static const std::regex* const dialect = new std::regex(
      R"re("(sham|cml|csl|replacer|search_replace|apply_patch|udiff|aider)"|\.search_replace\b)re");
  return *dialect;
}

bool IsReader(const std::string& name) {
  return std::find(std::begin(kReaders), std::end(kReaders), name) != std::end(kReaders);
}

TEST(Layering, ExecutorsAndCoreKnowNoReaderNorDialect) {
  std::set<std::pair<std::string, std::string>> used;  // allowed exceptions met
  const std::regex include(R"re(#include\s+"proj/comp/([a-z0-9-]+)/)re");
  const std::regex& dialect = DialectName();
  for (const char* component : kExecutors) {
    const std::vector<std::string> files = SourcesOf(component);
    ASSERT_FALSE(files.empty()) << component;
    bool saw_build = false;
    for (const std::string& path : files) {
      const std::string text = Read(path);
      ASSERT_FALSE(text.empty()) << path;
      if (absl::EndsWith(path, "/BUILD.bazel")) {
        saw_build = true;
        for (const std::string& dep : LibraryDeps(text)) {
          if (!IsReader(dep)) continue;
          if (kStillAllowed.count({component, dep}) > 0) {
            used.insert({component, dep});
            continue;
          }
          ADD_FAILURE() << path << ": a library of " << component << " depends on the reader component " << dep;
        }
        continue;
      }
      const std::string code = WithoutComments(text);
      for (auto it = std::sregex_iterator(code.begin(), code.end(), include); it != std::sregex_iterator(); ++it) {
        const std::string dep = (*it)[1].str();
        if (!IsReader(dep)) continue;
        if (kStillAllowed.count({component, dep}) > 0) {
          used.insert({component, dep});
          continue;
        }
        ADD_FAILURE() << path << " includes the reader component " << dep;
      }
      for (auto it = std::sregex_iterator(code.begin(), code.end(), dialect); it != std::sregex_iterator(); ++it) {
        ADD_FAILURE() << path << " names the dialect " << it->str() << ": dialects stop at the readers";
      }
    }
    EXPECT_TRUE(saw_build) << component;
  }
  for (const auto& allowed : kStillAllowed) {
    EXPECT_TRUE(used.count(allowed) > 0) << allowed.first << " no longer uses " << allowed.second
                                         << ": take it off kStillAllowed";
  }
}

// The engine (proj/src/clada.cc and its header) and the CLI (cli.cc and
// its header) ask a reader what its dialect says (answer::Reader) and name
// no dialect themselves: a dialect added is its reader and one registry
// line, never an engine or CLI edit.
TEST(Layering, TheEngineNamesNoDialect) {
  for (const char* path : {"proj/src/clada.cc", "proj/src/clada.h", "proj/src/cli.cc", "proj/src/cli.h"}) {
    const std::string text = Read(path);
    ASSERT_FALSE(text.empty()) << path;
    const std::string code = WithoutComments(text);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), DialectName()); it != std::sregex_iterator();
         ++it) {
      ADD_FAILURE() << path << " names the dialect " << it->str() << ": ask the reader (answer::Reader)";
    }
  }
}

// The scan finds what it looks for (a test that cannot fail proves nothing).
TEST(Layering, TheScanSeesIncludesDepsAndDialectNames) {
  EXPECT_EQ(LibraryDeps("cc_library(\n  name = \"x\",\n  deps = [\"//proj/comp/udiff-reader\"],\n)\n"
                        "cc_test(\n  deps = [\"//proj/comp/cml-parser\"],\n)\n"),
            std::set<std::string>{"udiff-reader"});
  const std::string code = WithoutComments("// \"cml\" in a comment\nx = \"csl\"; /* \"sham\" */ a.search_replace;\n");
  EXPECT_FALSE(absl::StrContains(code, "cml"));
  EXPECT_FALSE(absl::StrContains(code, "sham"));
  EXPECT_TRUE(absl::StrContains(code, "\"csl\""));
  EXPECT_TRUE(absl::StrContains(code, ".search_replace"));
}

}  // namespace
