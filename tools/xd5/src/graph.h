// The component dependency graph: nodes are API.md dependency keys
// ("proj/comp/core", "external/abseil", "proj" for the orchestrator), edges
// point from a component to what it depends on.
//
// Example:
//   DepGraph g;
//   g.AddNode("proj/comp/core", true);
//   g.AddEdge("proj/comp/core", "external/abseil");
//   g.Order();  // {"external/abseil", "proj/comp/core"}: dependencies first

#ifndef CLADA_TOOLS_XD5_SRC_GRAPH_H_
#define CLADA_TOOLS_XD5_SRC_GRAPH_H_

#include <map>
#include <set>
#include <string>
#include <vector>

namespace clada::xd5 {

class DepGraph {
 public:
  // Adds node N. A node is a component when the workspace has it; external
  // libraries and paths that name no component are not.
  void AddNode(const std::string& n, bool is_component);
  // Adds an edge, adding either end as a non-component node if it is new.
  void AddEdge(const std::string& from, const std::string& to);

  bool Has(const std::string& n) const { return nodes_.count(n) > 0; }
  bool IsComponent(const std::string& n) const;
  // The direct dependencies of N, sorted; empty for an unknown node.
  const std::set<std::string>& DepsOf(const std::string& n) const;

  // Every node, each after all of its dependencies. Among nodes that are
  // ready at the same time the smallest name comes first; the members of a
  // cycle come together, by name, once all the cycle depends on is out.
  // Deterministic for a given graph.
  std::vector<std::string> Order() const;
  // One entry per strongly connected component that has a cycle: the
  // shortest cycle through its smallest node, as a path that starts and ends
  // there ({"a", "b", "a"}; a self-loop is {"a", "a"}). Sorted.
  std::vector<std::vector<std::string>> Cycles() const;
  // ROOT and everything it reaches, in Order().
  std::vector<std::string> Closure(const std::string& root) const;

  // One line per component in Order(): "name -> dep, dep" ("-> (none)").
  std::string Text() const;
  // Graphviz DOT: components as boxes, other nodes as dashed ellipses.
  std::string Dot() const;

 private:
  // Strongly connected components, each after those it depends on.
  std::vector<std::set<std::string>> Sccs() const;

  struct Node {
    bool is_component = false;
    std::set<std::string> deps;
  };
  std::map<std::string, Node> nodes_;
};

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_GRAPH_H_
