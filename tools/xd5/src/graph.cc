#include "tools/xd5/src/graph.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace clada::xd5 {
namespace {

std::string Quote(const std::string& s) {
  return absl::StrCat(
      "\"", absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}}), "\"");
}

}  // namespace

void DepGraph::AddNode(const std::string& n, bool is_component) {
  nodes_[n].is_component = nodes_[n].is_component || is_component;
}

void DepGraph::AddEdge(const std::string& from, const std::string& to) {
  nodes_[to];
  nodes_[from].deps.insert(to);
}

bool DepGraph::IsComponent(const std::string& n) const {
  auto it = nodes_.find(n);
  return it != nodes_.end() && it->second.is_component;
}

const std::set<std::string>& DepGraph::DepsOf(const std::string& n) const {
  static const std::set<std::string> kNone;
  auto it = nodes_.find(n);
  return it == nodes_.end() ? kNone : it->second.deps;
}

std::vector<std::set<std::string>> DepGraph::Sccs() const {
  // Tarjan's algorithm; each component comes after those it depends on.
  std::map<std::string, int> index, low;
  std::set<std::string> on_stack;
  std::vector<std::string> stack;
  std::vector<std::set<std::string>> sccs;
  int counter = 0;
  std::function<void(const std::string&)> visit = [&](const std::string& v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on_stack.insert(v);
    for (const std::string& w : DepsOf(v)) {
      if (!index.count(w)) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on_stack.count(w)) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] == index[v]) {
      std::set<std::string> scc;
      std::string w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack.erase(w);
        scc.insert(w);
      } while (w != v);
      sccs.push_back(std::move(scc));
    }
  };
  for (const auto& [name, node] : nodes_) {
    if (!index.count(name)) visit(name);
  }
  return sccs;
}

std::vector<std::string> DepGraph::Order() const {
  // Kahn's algorithm on the graph of strongly connected components, so that
  // a cycle is emitted as one block (its members by name) once everything
  // it depends on is out.
  std::vector<std::set<std::string>> sccs = Sccs();
  std::map<std::string, size_t> scc_of;
  for (size_t i = 0; i < sccs.size(); ++i) {
    for (const std::string& n : sccs[i]) scc_of[n] = i;
  }
  std::vector<size_t> waiting(sccs.size(), 0);
  std::vector<std::set<size_t>> users(sccs.size());
  for (size_t i = 0; i < sccs.size(); ++i) {
    std::set<size_t> deps;
    for (const std::string& n : sccs[i]) {
      for (const std::string& d : DepsOf(n)) {
        if (scc_of[d] != i) deps.insert(scc_of[d]);
      }
    }
    waiting[i] = deps.size();
    for (size_t d : deps) users[d].insert(i);
  }
  std::set<std::pair<std::string, size_t>> ready;  // by smallest member
  for (size_t i = 0; i < sccs.size(); ++i) {
    if (waiting[i] == 0) ready.insert({*sccs[i].begin(), i});
  }
  std::vector<std::string> order;
  while (!ready.empty()) {
    size_t i = ready.begin()->second;
    ready.erase(ready.begin());
    order.insert(order.end(), sccs[i].begin(), sccs[i].end());
    for (size_t u : users[i]) {
      if (--waiting[u] == 0) ready.insert({*sccs[u].begin(), u});
    }
  }
  return order;
}

std::vector<std::vector<std::string>> DepGraph::Cycles() const {
  std::vector<std::vector<std::string>> cycles;
  for (const std::set<std::string>& scc : Sccs()) {
    const std::string& start = *scc.begin();
    if (scc.size() == 1 && !DepsOf(start).count(start)) continue;
    // Breadth-first search back to START inside the SCC.
    std::map<std::string, std::string> parent;
    std::deque<std::string> queue = {start};
    std::string last;
    while (!queue.empty() && last.empty()) {
      std::string v = queue.front();
      queue.pop_front();
      for (const std::string& w : DepsOf(v)) {
        if (w == start) {
          last = v;
          break;
        }
        if (scc.count(w) && !parent.count(w)) {
          parent[w] = v;
          queue.push_back(w);
        }
      }
    }
    std::vector<std::string> path = {start};
    for (std::string v = last; v != start; v = parent[v]) path.push_back(v);
    std::reverse(path.begin() + 1, path.end());
    path.push_back(start);
    cycles.push_back(std::move(path));
  }
  std::sort(cycles.begin(), cycles.end());
  return cycles;
}

std::vector<std::string> DepGraph::Closure(const std::string& root) const {
  std::set<std::string> seen;
  std::vector<std::string> todo = {root};
  while (!todo.empty()) {
    std::string v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    for (const std::string& d : DepsOf(v)) todo.push_back(d);
  }
  std::vector<std::string> out;
  for (const std::string& n : Order()) {
    if (seen.count(n)) out.push_back(n);
  }
  return out;
}

std::string DepGraph::Text() const {
  std::string out;
  for (const std::string& n : Order()) {
    if (!IsComponent(n)) continue;
    const std::set<std::string>& deps = DepsOf(n);
    absl::StrAppend(&out, n, " -> ",
                    deps.empty() ? "(none)" : absl::StrJoin(deps, ", "), "\n");
  }
  return out;
}

std::string DepGraph::Dot() const {
  std::string out = "digraph xd5 {\n  rankdir=LR;\n  node [shape=box];\n";
  std::vector<std::string> order = Order();
  for (const std::string& n : order) {
    absl::StrAppend(&out, "  ", Quote(n),
                    IsComponent(n) ? "" : " [shape=ellipse, style=dashed]",
                    ";\n");
  }
  for (const std::string& n : order) {
    for (const std::string& d : DepsOf(n)) {
      absl::StrAppend(&out, "  ", Quote(n), " -> ", Quote(d), ";\n");
    }
  }
  out += "}\n";
  return out;
}

}  // namespace clada::xd5
