// One validation for MCP and SHAM: for every action the LLM may call and a
// set of parameter sets (valid, each required one missing, each one of the
// wrong type, an enum value not listed, an unknown parameter), the MCP
// tool's argument check (ArgumentsToParams) and the same parameters written
// as a SHAM block accept and refuse the same sets, and an accepted set is
// the same typed parameters.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "proj/src/mcp_adapter.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"

namespace clada {
namespace {

using sham_action_parser::ActionDefinition;
using sham_action_parser::ParameterDef;
using sham_action_parser::ParamType;

core::Json ValidValue(const ParameterDef& p) {
  switch (p.type) {
    case ParamType::kString: return p.format == "line_range" ? "1" : "a.txt";
    case ParamType::kInteger: return 1;
    case ParamType::kBoolean: return true;
    case ParamType::kEnum: return p.values.empty() ? core::Json("") : core::Json(p.values.front());
  }
  return nullptr;
}

// A value of another type than `p`'s (one a SHAM value can spell too).
core::Json WrongValue(const ParameterDef& p) {
  switch (p.type) {
    case ParamType::kString: return 5;
    case ParamType::kInteger: return "five";
    case ParamType::kBoolean: return "maybe";
    case ParamType::kEnum: return "no-such-value";
  }
  return nullptr;
}

// The parameters as a SHAM block: every value is a quoted string (JSON's
// escapes are SHAM's), a number or boolean its text.
std::string AsSham(const std::string& action, const core::Json& args) {
  std::string block = absl::StrCat("#!SHAM [@three-char-SHA-256: v01]\naction = \"", action, "\"\n");
  for (auto it = args.begin(); it != args.end(); ++it) {
    const core::Json text = it.value().is_string() ? it.value() : core::Json(it.value().dump());
    absl::StrAppend(&block, it.key(), " = ", text.dump(), "\n");
  }
  return block + "#!END_SHAM_v01\n";
}

struct Variant {
  std::string name;
  core::Json args;
};

std::vector<Variant> Variants(const ActionDefinition& def) {
  core::Json valid = core::Json::object();
  for (const ParameterDef& p : def.parameters) {
    if (p.required) valid[p.name] = ValidValue(p);
  }
  std::vector<Variant> out = {{"valid", valid}};
  core::Json all = valid;
  for (const ParameterDef& p : def.parameters) all[p.name] = ValidValue(p);
  out.push_back({"every parameter", all});
  for (const ParameterDef& p : def.parameters) {
    if (p.required) {
      core::Json missing = valid;
      missing.erase(p.name);
      out.push_back({absl::StrCat("without ", p.name), missing});
    }
    // Every SHAM value is text: a string parameter cannot be given another
    // type there.
    if (p.type != ParamType::kString) {
      core::Json wrong = valid;
      wrong[p.name] = WrongValue(p);
      out.push_back({absl::StrCat(p.name, " of the wrong type"), wrong});
    }
    for (const char* bad : {"", "5-2", "0", "   "}) {
      if (p.type != ParamType::kString || p.format.empty()) continue;
      core::Json b = valid;
      b[p.name] = bad;
      out.push_back({absl::StrCat(p.name, " = '", bad, "'"), b});
    }
  }
  return out;
}

TEST(McpAndSham, AcceptAndRefuseTheSameParameters) {
  int compared = 0;
  std::vector<std::string> disagree;
  for (const ActionDefinition& def : sham_action_parser::LoadedSchema().actions) {
    if (!def.IsLlmAccessible()) continue;
    for (const Variant& v : Variants(def)) {
      core::Json params;
      const std::string mcp = ArgumentsToParams(def, v.args, &params);
      const sham_action_parser::ActionParseResult sham = sham_action_parser::ParseShamResponse(AsSham(def.name, v.args));
      ++compared;
      const bool mcp_ok = mcp.empty();
      const bool sham_ok = sham.errors.empty() && sham.actions.size() == 1;
      if (mcp_ok != sham_ok) {
        disagree.push_back(absl::StrCat(def.name, " ", v.name, " ", v.args.dump(), ": MCP ",
                                        mcp_ok ? "accepts" : absl::StrCat("refuses (", mcp, ")"), ", SHAM ",
                                        sham_ok ? "accepts"
                                                : absl::StrCat("refuses (", sham.errors.empty() ? "" : sham.errors[0].message, ")")));
      } else if (mcp_ok && params != sham.actions[0].params) {
        disagree.push_back(absl::StrCat(def.name, " ", v.name, ": MCP gives ", params.dump(), ", SHAM ",
                                        sham.actions[0].params.dump()));
      }
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_TRUE(disagree.empty()) << disagree.size() << " of " << compared << " disagree:\n"
                                << absl::StrJoin(disagree, "\n");
}

// The one difference, on purpose: a SHAM block's unknown key is ignored
// with a warning (a chat model's stray key costs no edit); an MCP client's
// is refused, as the tool's input schema (additionalProperties: false) says.
TEST(McpAndSham, AnUnknownParameterIsRefusedByMcpAndIgnoredWithAWarningBySham) {
  const ActionDefinition* def = sham_action_parser::FindAction("file_read");
  ASSERT_NE(def, nullptr);
  core::Json args = {{"path", "a.txt"}, {"no_such_parameter", "x"}};
  core::Json params;
  EXPECT_NE(ArgumentsToParams(*def, args, &params), "");
  const sham_action_parser::ActionParseResult sham = sham_action_parser::ParseShamResponse(AsSham("file_read", args));
  ASSERT_EQ(sham.actions.size(), 1u);
  EXPECT_FALSE(sham.actions[0].warnings.empty());
}

}  // namespace
}  // namespace clada
