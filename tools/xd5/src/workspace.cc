#include "tools/xd5/src/workspace.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tools/xd5/src/build_file.h"
#include "tools/xd5/src/labels.h"

namespace clada::xd5 {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Sub-directories of DIR (not hidden), sorted.
std::vector<std::string> SubDirs(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.empty() && name[0] != '.' && IsDir(it->path())) {
      out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Adds the components under REL/comp/ (REL relative to ROOT), recursively.
void FindComponents(const fs::path& root, const std::string& rel,
                    std::vector<Component>* out) {
  for (const std::string& name : SubDirs(root / rel / "comp")) {
    Component c;
    c.path = absl::StrCat(rel, "/comp/", name);
    c.short_name = name;
    out->push_back(c);
    FindComponents(root, c.path, out);
  }
}

// Collects the dependency keys of RULE into C, following deps on targets of
// the same package. VISITED holds the names of rules already followed.
void CollectDeps(const std::vector<RuleCall>& rules, const RuleCall& rule,
                 const std::string& pkg, std::set<std::string>* visited,
                 std::set<std::string>* keys, Component* c, bool* readable) {
  absl::StatusOr<std::vector<std::string>> deps = StringListAttr(rule, "deps");
  if (!deps.ok()) {
    c->build_problems.push_back(std::string(deps.status().message()));
    *readable = false;
    return;
  }
  for (const std::string& label : *deps) {
    DepRef ref = ClassifyDep(label, pkg);
    if (!ref.local) {
      keys->insert(ref.key);
      c->dep_labels.emplace(ref.key, label);
      continue;
    }
    const RuleCall* local = FindAnyRule(rules, ref.target);
    if (local == nullptr) {
      c->build_problems.push_back(absl::StrCat(
          "line ", rule.line, ": deps of \"", rule.Name(), "\" names \"", label,
          "\", which this file does not define"));
      *readable = false;
    } else if (visited->insert(ref.target).second) {
      CollectDeps(rules, *local, pkg, visited, keys, c, readable);
    }
  }
}

void ReadBuild(const fs::path& root, Component* c) {
  fs::path dir = root / c->path;
  std::string file = IsFile(dir / "BUILD.bazel") ? "BUILD.bazel"
                     : IsFile(dir / "BUILD")     ? "BUILD"
                                                 : "";
  c->build_file =
      absl::StrCat(c->path, "/", file.empty() ? "BUILD.bazel" : file);
  std::string rule_name = c->is_orchestrator ? "orchestrator" : c->short_name;
  c->target = absl::StrCat("//", c->path, ":", rule_name);
  if (file.empty()) {
    c->build_problems.push_back("file missing");
    return;
  }
  std::optional<std::string> text = ReadFile(dir / file);
  if (!text) {
    c->build_problems.push_back("cannot be read");
    return;
  }
  absl::StatusOr<std::vector<RuleCall>> rules = ParseBuildFile(*text);
  if (!rules.ok()) {
    c->build_problems.push_back(std::string(rules.status().message()));
    return;
  }
  const RuleCall* rule = FindRule(*rules, "cc_library", rule_name);
  if (rule == nullptr && c->is_orchestrator) {
    rule = FindRule(*rules, "cc_binary", "clada");
    if (rule != nullptr) c->target = absl::StrCat("//", c->path, ":clada");
  }
  if (rule == nullptr) {
    c->build_problems.push_back(
        c->is_orchestrator
            ? "no cc_library \"orchestrator\" or cc_binary \"clada\""
            : absl::StrCat("no cc_library named \"", rule_name,
                           "\" (a component's main library is named like its "
                           "directory)"));
    return;
  }
  c->rule_found = true;

  absl::StatusOr<std::vector<std::string>> hdrs = StringListAttr(*rule, "hdrs");
  if (hdrs.ok()) {
    std::set<std::string> paths;
    for (const std::string& h : *hdrs) paths.insert(HeaderPath(h, c->path));
    c->hdrs.emplace(paths.begin(), paths.end());
  } else {
    c->build_problems.push_back(std::string(hdrs.status().message()));
  }

  std::set<std::string> visited = {rule->Name()};
  std::set<std::string> keys;
  bool readable = true;
  CollectDeps(*rules, *rule, c->path, &visited, &keys, c, &readable);
  if (readable) c->dep_keys.emplace(keys.begin(), keys.end());
}

void ReadDocs(const fs::path& root, Component* c) {
  for (const char* file : kDocFiles) {
    if (!IsFile(root / c->DocPath(file))) c->missing_docs.push_back(file);
  }
  if (std::optional<std::string> api = ReadFile(root / c->DocPath("API.md"))) {
    c->api = ParseApiDoc(*api);
  }
}

bool HasOrchestrator(const fs::path& root) {
  if (IsDir(root / "proj" / "doc")) return true;
  for (const char* file : {"BUILD.bazel", "BUILD"}) {
    std::optional<std::string> text = ReadFile(root / "proj" / file);
    if (!text) continue;
    absl::StatusOr<std::vector<RuleCall>> rules = ParseBuildFile(*text);
    return rules.ok() && (FindRule(*rules, "cc_library", "orchestrator") ||
                          FindRule(*rules, "cc_binary", "clada"));
  }
  return false;
}

}  // namespace

const Component* Workspace::Find(const std::string& name,
                                 std::vector<std::string>* ambiguous) const {
  std::string want = name;
  while (want.size() > 1 && want.back() == '/') want.pop_back();
  if (want.rfind("./", 0) == 0) want = want.substr(2);
  const Component* found = nullptr;
  std::vector<std::string> matches;
  for (const Component& c : components) {
    if (c.path == want) return &c;
    if (c.short_name == want) {
      found = &c;
      matches.push_back(c.path);
    }
  }
  if (matches.size() > 1) {
    if (ambiguous != nullptr) *ambiguous = matches;
    return nullptr;
  }
  return found;
}

absl::StatusOr<Workspace> LoadWorkspace(const std::string& root) {
  fs::path r(root);
  if (!IsDir(r / "proj")) {
    return absl::NotFoundError(absl::StrCat(
        root,
        " has no proj/ directory; run from the workspace or pass --root"));
  }
  Workspace ws;
  ws.root = root;
  if (HasOrchestrator(r)) {
    Component c;
    c.path = "proj";
    c.short_name = "proj";
    c.is_orchestrator = true;
    ws.components.push_back(c);
  }
  FindComponents(r, "proj", &ws.components);
  for (Component& c : ws.components) {
    ReadDocs(r, &c);
    ReadBuild(r, &c);
  }
  return ws;
}

DepGraph BuildGraph(const Workspace& ws) {
  DepGraph g;
  for (const Component& c : ws.components) g.AddNode(c.path, true);
  for (const Component& c : ws.components) {
    if (c.api && c.api->has_dependencies) {
      for (const std::string& d : c.api->dependencies) g.AddEdge(c.path, d);
    } else if (c.dep_keys) {
      for (const std::string& d : *c.dep_keys) g.AddEdge(c.path, d);
    }
  }
  return g;
}

}  // namespace clada::xd5
