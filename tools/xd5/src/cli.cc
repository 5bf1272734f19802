#include "tools/xd5/src/cli.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "tools/xd5/src/check.h"
#include "tools/xd5/src/context.h"
#include "tools/xd5/src/graph.h"
#include "tools/xd5/src/workspace.h"

namespace clada::xd5 {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    R"(usage: xd5 [--root DIR] <command> [args]

Commands:
  check [NAME...]      compare each component's doc/API.md with its BUILD.bazel
                       (dependencies and exports.headers, both ways), report
                       missing docs and dependency cycles; one line per problem,
                       naming the file to fix; exit 1 if there is any
  graph [--dot]        the component graph, dependencies first (text, or
                       Graphviz DOT with --dot)
  context NAME [--absolute]
                       ABSTRACT.md, API.md and ARCH.md of NAME and of all it
                       depends on, dependencies first, ready for an LLM
  help                 this text

NAME is a component path (proj/comp/fs-ops, proj) or its directory name.
The workspace is --root DIR, else $BUILD_WORKSPACE_DIRECTORY (set by bazel run),
else the nearest directory at or above the current one with a WORKSPACE file.
Exit codes: 0 ok, 1 check found problems, 2 usage or workspace error.
)";

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

std::string ResolveRoot(const std::string& flag) {
  std::error_code ec;
  if (!flag.empty()) {
    fs::path p(flag);
    if (p.is_relative()) {
      const char* base = Env("BUILD_WORKING_DIRECTORY");
      p = (base != nullptr ? fs::path(base) : fs::current_path(ec)) / p;
    }
    return p.lexically_normal().string();
  }
  if (const char* ws = Env("BUILD_WORKSPACE_DIRECTORY")) return ws;
  fs::path cwd = fs::current_path(ec);
  for (fs::path p = cwd; !p.empty(); p = p.parent_path()) {
    for (const char* marker :
         {"WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel"}) {
      if (fs::exists(p / marker, ec)) return p.string();
    }
    if (p == p.parent_path()) break;
  }
  return cwd.string();
}

int Usage(std::ostream& err, const std::string& problem) {
  err << "xd5: " << problem << "\n" << kUsage;
  return 2;
}

// Resolves NAME to a component path, or explains on ERR why not.
const Component* Resolve(const Workspace& ws, const std::string& name,
                         std::ostream& err) {
  std::vector<std::string> ambiguous;
  const Component* c = ws.Find(name, &ambiguous);
  if (c != nullptr) return c;
  if (!ambiguous.empty()) {
    err << "xd5: \"" << name
        << "\" is ambiguous: " << absl::StrJoin(ambiguous, ", ") << "\n";
    return nullptr;
  }
  std::vector<std::string> known;
  for (const Component& k : ws.components) known.push_back(k.path);
  err << "xd5: no component \"" << name << "\" in " << ws.root
      << "; known: " << (known.empty() ? "(none)" : absl::StrJoin(known, ", "))
      << "\n";
  return nullptr;
}

}  // namespace

int RunXd5(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  std::string root_flag;
  bool dot = false;
  bool absolute = false;
  std::vector<std::string> words;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--root") {
      if (i + 1 == args.size()) return Usage(err, "--root needs a directory");
      root_flag = args[++i];
    } else if (absl::StartsWith(a, "--root=")) {
      root_flag = a.substr(7);
    } else if (a == "--dot") {
      dot = true;
    } else if (a == "--absolute") {
      absolute = true;
    } else if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    } else if (absl::StartsWith(a, "-") && a != "-") {
      return Usage(err, "unknown flag " + a);
    } else {
      words.push_back(a);
    }
  }
  if (words.empty()) return Usage(err, "missing command");
  const std::string command = words[0];
  std::vector<std::string> operands(words.begin() + 1, words.end());
  if (command == "help") {
    out << kUsage;
    return 0;
  }
  if (command != "check" && command != "graph" && command != "context") {
    return Usage(err, "unknown command \"" + command + "\"");
  }
  if (dot && command != "graph") return Usage(err, "--dot is for graph");
  if (absolute && command != "context") {
    return Usage(err, "--absolute is for context");
  }
  if (command == "graph" && !operands.empty()) {
    return Usage(err, "graph takes no operands");
  }
  if (command == "context" && operands.size() != 1) {
    return Usage(err, "context takes exactly one component NAME");
  }

  absl::StatusOr<Workspace> ws = LoadWorkspace(ResolveRoot(root_flag));
  if (!ws.ok()) {
    err << "xd5: " << ws.status().message() << "\n";
    return 2;
  }

  if (command == "graph") {
    DepGraph graph = BuildGraph(*ws);
    out << (dot ? graph.Dot() : graph.Text());
    return 0;
  }
  if (command == "context") {
    const Component* c = Resolve(*ws, operands[0], err);
    if (c == nullptr) return 2;
    std::vector<std::string> missing;
    out << AssembleContext(*ws, *c, absolute, &missing);
    for (const std::string& m : missing) {
      err << "xd5: note: " << m << " is missing; left out\n";
    }
    return 0;
  }
  std::set<std::string> only;
  for (const std::string& name : operands) {
    const Component* c = Resolve(*ws, name, err);
    if (c == nullptr) return 2;
    only.insert(c->path);
  }
  std::vector<std::string> problems = CheckWorkspace(*ws, only);
  for (const std::string& p : problems) out << p << "\n";
  if (problems.empty()) {
    out << CheckSummary(*ws, only) << "\n";
    return 0;
  }
  err << "xd5 check: " << problems.size()
      << (problems.size() == 1 ? " problem" : " problems") << "\n";
  return 1;
}

}  // namespace clada::xd5
