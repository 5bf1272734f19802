// Dependency order, cycles, closures and rendering of the graphs in
// test-data/graph_cases.json.

#include "tools/xd5/src/graph.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::xd5 {
namespace {

std::string Lines(const nlohmann::json& lines) {
  std::string out;
  for (const auto& l : lines) out += l.get<std::string>() + "\n";
  return out;
}

class GraphCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(GraphCase, MatchesExpectation) {
  const nlohmann::json& c = GetParam();
  DepGraph g;
  for (const auto& n : c["components"]) g.AddNode(n.get<std::string>(), true);
  for (const auto& e : c["edges"]) {
    g.AddEdge(e[0].get<std::string>(), e[1].get<std::string>());
  }
  EXPECT_EQ(g.Order(), c["order"].get<std::vector<std::string>>());
  EXPECT_EQ(g.Cycles(),
            c["cycles"].get<std::vector<std::vector<std::string>>>());
  if (c.contains("closure")) {
    for (const auto& [root, want] : c["closure"].items()) {
      EXPECT_EQ(g.Closure(root), want.get<std::vector<std::string>>()) << root;
    }
  }
  if (c.contains("text")) {
    EXPECT_EQ(g.Text(), Lines(c["text"]));
  }
  if (c.contains("dot")) {
    EXPECT_EQ(g.Dot(), Lines(c["dot"]));
  }
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in("tools/xd5/test-data/graph_cases.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(
    TestData, GraphCase, ::testing::ValuesIn(LoadCases()),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return info.param["name"].get<std::string>();
    });

TEST(DepGraph, OrderIsIndependentOfInsertionOrder) {
  DepGraph forward, backward;
  std::vector<std::pair<std::string, std::string>> edges = {
      {"proj", "proj/comp/b"},
      {"proj/comp/b", "proj/comp/a"},
      {"proj", "proj/comp/a"},
      {"proj/comp/a", "external/abseil"}};
  for (const auto& [from, to] : edges) forward.AddEdge(from, to);
  for (auto it = edges.rbegin(); it != edges.rend(); ++it) {
    backward.AddEdge(it->first, it->second);
  }
  EXPECT_EQ(forward.Order(), backward.Order());
  EXPECT_EQ(absl::StrJoin(forward.Order(), " "),
            "external/abseil proj/comp/a proj/comp/b proj");
}

}  // namespace
}  // namespace clada::xd5
