#include "proj/test/case_file.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace clada::testing {

std::string CaseFile::Body(const std::string& section) const {
  auto it = sections.find(section);
  if (it == sections.end() || it->second.empty() || !it->second[0].body) return "";
  return *it->second[0].body;
}

CaseFile ParseCaseFile(const std::string& text) {
  CaseFile c;
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::string section;
  std::optional<std::string> title;  // a ### heading not yet given a body
  // A heading with neither fence nor `(absent)` (e.g. `### dir src`) is an
  // entry without a body.
  auto flush_title = [&]() {
    if (title && !section.empty()) c.sections[section].push_back(CaseEntry{*title, std::nullopt});
    title.reset();
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (absl::StartsWith(line, "### ")) {
      flush_title();
      title = line.substr(4);
    } else if (absl::StartsWith(line, "## ")) {
      flush_title();
      section = line.substr(3);
      c.sections[section];
    } else if (absl::StartsWith(line, "# ") && c.name.empty()) {
      c.name = line.substr(2);
    } else if (line == "(absent)" && !section.empty()) {
      c.sections[section].push_back(CaseEntry{title.value_or(""), std::nullopt});
      title.reset();
    } else if (absl::StartsWith(line, "```") && !section.empty()) {
      size_t ticks = line.find_first_not_of('`');
      if (ticks == std::string::npos) ticks = line.size();
      std::string fence(ticks, '`');
      std::string body;
      bool first = true;
      for (++i; i < lines.size() && lines[i] != fence; ++i) {
        if (!first) body += '\n';
        body += lines[i];
        first = false;
      }
      c.sections[section].push_back(CaseEntry{title.value_or(""), body});
      title.reset();
    }
  }
  flush_title();
  return c;
}

CaseFile LoadCaseFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseCaseFile(ss.str());
}

std::vector<CaseFile> LoadCasesFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<CaseFile> cases;
  std::string current;
  bool in_fence = false;
  std::string fence;
  for (absl::string_view line : absl::StrSplit(ss.str(), '\n')) {
    // A `# ` line inside a fenced block is content, not a new case.
    if (absl::StartsWith(line, "```")) {
      size_t ticks = line.find_first_not_of('`');
      std::string run(ticks == absl::string_view::npos ? line.size() : ticks, '`');
      if (!in_fence) {
        in_fence = true;
        fence = run;
      } else if (line == fence) {
        in_fence = false;
      }
    }
    if (!in_fence && absl::StartsWith(line, "# ")) {
      if (absl::StartsWith(current, "# ")) cases.push_back(ParseCaseFile(current));
      current.clear();  // text before the first case is the file's preamble
    }
    absl::StrAppend(&current, line, "\n");
  }
  if (absl::StartsWith(current, "# ")) cases.push_back(ParseCaseFile(current));
  return cases;
}

std::vector<std::string> ListCaseFiles(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (absl::EndsWith(name, suffix)) out.push_back(absl::StrCat(dir, "/", name));
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string JsonSubsetMismatch(const nlohmann::ordered_json& expected, const nlohmann::ordered_json& actual,
                               const std::string& path) {
  if (expected.is_string() && absl::StartsWith(expected.get<std::string>(), "~")) {
    std::string needle = expected.get<std::string>().substr(1);
    if (actual.is_string() && absl::StrContains(actual.get<std::string>(), needle)) return "";
    return absl::StrCat(path, ": expected a string containing \"", needle, "\", got ", actual.dump());
  }
  if (expected.is_object()) {
    if (!actual.is_object()) return absl::StrCat(path, ": expected an object, got ", actual.dump());
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      std::string sub = absl::StrCat(path, ".", it.key());
      if (!actual.contains(it.key())) return absl::StrCat(sub, ": missing in ", actual.dump());
      std::string m = JsonSubsetMismatch(it.value(), actual.at(it.key()), sub);
      if (!m.empty()) return m;
    }
    return "";
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      return absl::StrCat(path, ": expected ", expected.size(), " items, got ", actual.dump());
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string m = JsonSubsetMismatch(expected[i], actual[i], absl::StrCat(path, "[", i, "]"));
      if (!m.empty()) return m;
    }
    return "";
  }
  if (expected != actual) return absl::StrCat(path, ": expected ", expected.dump(), ", got ", actual.dump());
  return "";
}

std::string LinesInOrderMismatch(const std::string& expected, const std::string& text) {
  size_t pos = 0;
  for (absl::string_view line : absl::StrSplit(expected, '\n')) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    size_t found = text.find(std::string(line), pos);
    if (found == std::string::npos) {
      return absl::StrCat("line not found (in order): \"", line, "\"\n--- full text ---\n", text);
    }
    pos = found + line.size();
  }
  return "";
}

}  // namespace clada::testing
