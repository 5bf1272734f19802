#include "tools/xd5/src/check.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/xd5/src/graph.h"

namespace clada::xd5 {
namespace {

std::string Count(size_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

bool Selected(const Component& c, const std::set<std::string>& only) {
  return only.empty() || only.count(c.path) > 0;
}

void CompareDependencies(const Component& c, std::vector<std::string>* out) {
  const std::string api = c.DocPath("API.md");
  std::set<std::string> declared(c.api->dependencies.begin(),
                                 c.api->dependencies.end());
  std::set<std::string> actual(c.dep_keys->begin(), c.dep_keys->end());
  for (const std::string& key : actual) {
    if (declared.count(key)) continue;
    out->push_back(absl::StrCat(api, ": dependencies: add ", key, " (deps of ",
                                c.target, " has \"", c.dep_labels.at(key),
                                "\")"));
  }
  for (const std::string& key : c.api->dependencies) {
    if (actual.count(key)) continue;
    out->push_back(absl::StrCat(api, ": dependencies: remove ", key,
                                " (not in deps of ", c.target, " in ",
                                c.build_file, ")"));
  }
}

void CompareHeaders(const Component& c, std::vector<std::string>* out) {
  const std::string api = c.DocPath("API.md");
  std::set<std::string> declared(c.api->export_headers.begin(),
                                 c.api->export_headers.end());
  std::set<std::string> actual(c.hdrs->begin(), c.hdrs->end());
  for (const std::string& h : actual) {
    if (declared.count(h)) continue;
    out->push_back(absl::StrCat(api, ": exports.headers: add ", h,
                                " (in hdrs of ", c.target, ")"));
  }
  for (const std::string& h : c.api->export_headers) {
    if (actual.count(h)) continue;
    out->push_back(absl::StrCat(api, ": exports.headers: remove ", h,
                                " (not in hdrs of ", c.target, ")"));
  }
}

}  // namespace

std::vector<std::string> CheckWorkspace(const Workspace& ws,
                                        const std::set<std::string>& only) {
  std::vector<std::string> out;
  for (const Component& c : ws.components) {
    if (!Selected(c, only)) continue;
    for (const std::string& p : c.build_problems) {
      out.push_back(absl::StrCat(c.build_file, ": ", p));
    }
    for (const std::string& f : c.missing_docs) {
      out.push_back(absl::StrCat(c.DocPath(f), ": file missing"));
    }
    if (!c.api) continue;
    for (const std::string& p : c.api->problems) {
      out.push_back(absl::StrCat(c.DocPath("API.md"), ": ", p));
    }
    if (c.api->has_dependencies && c.dep_keys) CompareDependencies(c, &out);
    if (c.api->has_exports && c.hdrs) CompareHeaders(c, &out);
  }
  for (const std::vector<std::string>& cycle : BuildGraph(ws).Cycles()) {
    bool relevant = only.empty();
    for (const std::string& n : cycle) relevant = relevant || only.count(n);
    if (!relevant) continue;
    const Component* first = ws.Find(cycle.front());
    std::string file =
        first != nullptr ? first->DocPath("API.md") : cycle.front();
    out.push_back(absl::StrCat(
        file, ": dependency cycle: ", absl::StrJoin(cycle, " -> ")));
  }
  return out;
}

std::string CheckSummary(const Workspace& ws,
                         const std::set<std::string>& only) {
  size_t components = 0, deps = 0, headers = 0;
  for (const Component& c : ws.components) {
    if (!Selected(c, only)) continue;
    ++components;
    if (c.dep_keys) deps += c.dep_keys->size();
    if (c.hdrs) headers += c.hdrs->size();
  }
  return absl::StrCat(
      "xd5 check: OK (", Count(components, "component", "components"), ", ",
      Count(deps, "dependency", "dependencies"), ", ",
      Count(headers, "exported header", "exported headers"), ")");
}

}  // namespace clada::xd5
