#include "tools/xd5/src/api_doc.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "yaml-cpp/yaml.h"

namespace clada::xd5 {
namespace {

struct YamlBlock {
  int first_line;  // 1-based line of the first line inside the fence
  std::string text;
};

// The ```yaml / ```yml blocks of MARKDOWN. Other fenced blocks are skipped
// whole, so YAML quoted inside them is not read.
std::vector<YamlBlock> FindYamlBlocks(absl::string_view markdown,
                                      std::vector<std::string>* problems) {
  std::vector<YamlBlock> blocks;
  std::vector<absl::string_view> lines = absl::StrSplit(markdown, '\n');
  size_t fence_len = 0;  // backticks of the open fence, 0 outside
  int fence_line = 0;
  bool is_yaml = false;
  YamlBlock current;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
    size_t ticks = 0;
    while (ticks < line.size() && line[ticks] == '`') ++ticks;
    if (fence_len == 0) {
      if (ticks >= 3) {
        std::string info = absl::AsciiStrToLower(
            absl::StripAsciiWhitespace(line.substr(ticks)));
        fence_len = ticks;
        fence_line = static_cast<int>(i) + 1;
        is_yaml = info == "yaml" || info == "yml";
        current = YamlBlock{static_cast<int>(i) + 2, ""};
      }
    } else if (ticks >= fence_len && ticks == line.size()) {
      if (is_yaml) blocks.push_back(current);
      fence_len = 0;
    } else if (is_yaml) {
      absl::StrAppend(&current.text, lines[i], "\n");
    }
  }
  if (fence_len != 0) {
    problems->push_back(
        absl::StrCat("line ", fence_line, ": code fence is never closed"));
  }
  return blocks;
}

void ReadDependencies(const YAML::Node& deps, int base, int line, ApiDoc* doc) {
  doc->has_dependencies = true;
  if (deps.IsNull()) return;  // `dependencies:` with nothing under it
  if (!deps.IsMap()) {
    doc->problems.push_back(absl::StrCat(
        "line ", line, ": dependencies must map each path to what is used"));
    return;
  }
  std::set<std::string> seen;
  for (const auto& kv : deps) {
    if (!kv.first.IsScalar()) {
      doc->problems.push_back(absl::StrCat(
          "line ", line, ": a key under dependencies is not a path"));
      continue;
    }
    std::string key = kv.first.as<std::string>();
    if (!seen.insert(key).second) {
      doc->problems.push_back(absl::StrCat("line ", base + kv.first.Mark().line,
                                           ": dependencies lists ", key,
                                           " twice"));
      continue;
    }
    doc->dependencies.push_back(key);
  }
}

void ReadExports(const YAML::Node& exports, int base, int line, ApiDoc* doc) {
  doc->has_exports = true;
  if (exports.IsNull()) return;
  if (!exports.IsMap()) {
    doc->problems.push_back(
        absl::StrCat("line ", line, ": exports must be a mapping"));
    return;
  }
  YAML::Node headers = exports["headers"];
  if (!headers || headers.IsNull()) return;
  bool ok = headers.IsSequence();
  if (ok) {
    for (const YAML::Node& h : headers) ok = ok && h.IsScalar();
  }
  if (!ok) {
    doc->problems.push_back(absl::StrCat(
        "line ", base + headers.Mark().line,
        ": exports.headers must be a list of paths, e.g. [src/foo.h]"));
    return;
  }
  for (const YAML::Node& h : headers) {
    doc->export_headers.push_back(h.as<std::string>());
  }
}

}  // namespace

ApiDoc ParseApiDoc(absl::string_view markdown) {
  ApiDoc doc;
  int deps_line = 0;
  int exports_line = 0;
  bool yaml_error = false;
  for (const YamlBlock& block : FindYamlBlocks(markdown, &doc.problems)) {
    YAML::Node root;
    try {
      root = YAML::Load(block.text);
    } catch (const YAML::Exception& e) {
      doc.problems.push_back(absl::StrCat(
          "line ", block.first_line + e.mark.line, ": YAML error: ", e.msg));
      yaml_error = true;
      continue;
    }
    if (!root.IsMap()) continue;
    try {
      for (const auto& kv : root) {
        if (!kv.first.IsScalar()) continue;
        std::string key = kv.first.as<std::string>();
        int line = block.first_line + kv.first.Mark().line;
        int* first = key == "dependencies" ? &deps_line
                     : key == "exports"    ? &exports_line
                                           : nullptr;
        if (first == nullptr) continue;
        if (*first != 0) {
          doc.problems.push_back(absl::StrCat("line ", line, ": a second ", key,
                                              " block (the first is on line ",
                                              *first, "); keep one"));
          continue;
        }
        *first = line;
        if (key == "dependencies") {
          ReadDependencies(kv.second, block.first_line, line, &doc);
        } else {
          ReadExports(kv.second, block.first_line, line, &doc);
        }
      }
    } catch (const YAML::Exception& e) {
      doc.problems.push_back(
          absl::StrCat("line ", block.first_line, ": YAML error: ", e.msg));
      yaml_error = true;
    }
  }
  // A block that failed to parse may well be the missing one: say only that.
  if (yaml_error) return doc;
  if (!doc.has_dependencies) {
    doc.problems.push_back(
        "no ```yaml block with `dependencies:` (list every Bazel dep of the "
        "main library there; `dependencies: {}` if none)");
  }
  if (!doc.has_exports) {
    doc.problems.push_back(
        "no ```yaml block with `exports:` (its `headers:` must list the main "
        "library's hdrs)");
  }
  return doc;
}

}  // namespace clada::xd5
