// The schema: the built-in unified-design.yaml holds exactly the designed
// actions, each with a known executor and known parameter types; and
// ParseActionSchema rejects malformed schemas
// (test-data/parseActionSchema.json).
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/test/test_cases.h"

namespace clada::sham_action_parser {
namespace {

using testing::CaseJson;

TEST(LoadedSchema, EveryActionHasAKnownExecutor) {
  const std::set<std::string> executors = {"fs-ops", "exec", "context",
                                           "git-tx"};
  ASSERT_FALSE(LoadedSchema().actions.empty());
  for (const ActionDefinition& a : LoadedSchema().actions) {
    EXPECT_EQ(executors.count(a.executor), 1u)
        << a.name << " has executor " << a.executor;
  }
}

TEST(LoadedSchema, EveryParameterTypeAndFormatIsKnown) {
  const std::set<std::string> types = {"string", "integer", "boolean", "enum"};
  const std::set<std::string> formats = {"", "path", "multiline_paths",
                                         "line_range"};
  for (const ActionDefinition& a : LoadedSchema().actions) {
    for (const ParameterDef& p : a.parameters) {
      EXPECT_EQ(types.count(std::string(ParamTypeName(p.type))), 1u)
          << a.name << "." << p.name;
      EXPECT_EQ(formats.count(p.format), 1u)
          << a.name << "." << p.name << " format " << p.format;
      EXPECT_EQ(p.type == ParamType::kEnum, !p.values.empty())
          << a.name << "." << p.name;
      EXPECT_FALSE(p.description.empty()) << a.name << "." << p.name;
    }
  }
}

// The designed actions, by executor: an action added to or dropped from the
// YAML must be added to or dropped from an executor too.
TEST(LoadedSchema, HoldsExactlyTheDesignedActions) {
  const std::map<std::string, std::set<std::string>> designed = {
      {"fs-ops",
       {"file_write", "file_append", "file_replace_text",
        "file_replace_all_text", "file_replace_text_range",
        "files_replace_all_text", "file_replace_lines", "file_apply_diff", "file_apply_patch", "file_read_numbered",
        "file_read", "files_read", "file_delete", "file_move", "dir_create",
        "dir_delete", "ls", "grep", "glob"}},
      {"exec", {"exec"}},
      {"context",
       {"context_add", "context_remove", "context_list", "context_prune",
        "context_clear"}},
      {"git-tx", {"undo", "git_step_back", "git_step_forward", "git_squash"}},
  };
  std::map<std::string, std::set<std::string>> actual;
  for (const ActionDefinition& a : LoadedSchema().actions)
    actual[a.executor].insert(a.name);
  EXPECT_EQ(actual, designed);
  EXPECT_EQ(FindAction("files_replace_text_in_parents"), nullptr);
}

TEST(LoadedSchema, AccessibilityFollowsTheExecutor) {
  for (const ActionDefinition& a : LoadedSchema().actions) {
    if (a.executor == "git-tx") {
      EXPECT_TRUE(a.IsUserAccessible() && !a.IsLlmAccessible()) << a.name;
    } else if (a.executor == "context") {
      EXPECT_TRUE(a.IsUserAccessible() && a.IsLlmAccessible()) << a.name;
    } else {
      EXPECT_TRUE(a.IsLlmAccessible() && !a.IsUserAccessible()) << a.name;
    }
  }
}

TEST(LoadedSchema, UserActionsNameTheirCommand) {
  for (const ActionDefinition& a : LoadedSchema().actions) {
    if (!a.IsUserAccessible()) continue;
    EXPECT_TRUE(absl::StartsWith(a.user_command, "clada "))
        << a.name << ": " << a.user_command;
  }
  EXPECT_EQ(FindAction("git_step_back")->user_command, "clada step-back");
}

TEST(LoadedSchema, EveryPathParameterHasAPathFormat) {
  for (const ActionDefinition& a : LoadedSchema().actions) {
    for (const ParameterDef& p : a.parameters) {
      if (p.name == "path" || absl::EndsWith(p.name, "_path") ||
          p.name == "cwd") {
        EXPECT_EQ(p.format, "path") << a.name << "." << p.name;
      }
      if (p.name == "paths") {
        EXPECT_EQ(p.format, "multiline_paths") << a.name;
      }
    }
  }
}

TEST(LoadedSchema, DefaultsAreTyped) {
  EXPECT_EQ(FindAction("file_replace_text_range")
                ->FindParameter("count")
                ->default_value,
            core::Json(1));
  EXPECT_EQ(FindAction("file_read_numbered")
                ->FindParameter("delimiter")
                ->default_value,
            core::Json(": "));
  EXPECT_EQ(FindAction("dir_delete")->FindParameter("recursive")->default_value,
            core::Json(false));
  EXPECT_EQ(FindAction("exec")->FindParameter("return_output")->default_value,
            core::Json(true));
}

TEST(LoadedSchema, SyntaxExampleIsKept) {
  EXPECT_TRUE(absl::StrContains(LoadedSchema().syntax_example,
                                "#!SHAM [@three-char-SHA-256: k7m]"));
}

// The built-in schema is the file at the top of the repository, every field
// of it (the build compiles it in as code).
TEST(LoadedSchema, MatchesUnifiedDesignYaml) {
  std::ifstream in("unified-design.yaml");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ActionSchema> from_file = ParseActionSchema(text.str());
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  ASSERT_EQ(from_file->actions.size(), LoadedSchema().actions.size());
  EXPECT_EQ(from_file->syntax_example, LoadedSchema().syntax_example);
  for (size_t i = 0; i < from_file->actions.size(); ++i) {
    const ActionDefinition& want = from_file->actions[i];
    const ActionDefinition& got = LoadedSchema().actions[i];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.executor, want.executor);
    EXPECT_EQ(got.description, want.description);
    EXPECT_EQ(got.returns, want.returns);
    ASSERT_EQ(got.parameters.size(), want.parameters.size()) << want.name;
    for (size_t k = 0; k < want.parameters.size(); ++k) {
      EXPECT_EQ(got.parameters[k].name, want.parameters[k].name);
      EXPECT_EQ(got.parameters[k].description, want.parameters[k].description);
    }
  }
  EXPECT_EQ(ActionSchemaToJson(LoadedSchema()).dump(1), ActionSchemaToJson(*from_file).dump(1));
}

class ParseActionSchemaCase : public ::testing::TestWithParam<CaseJson> {};

TEST_P(ParseActionSchemaCase, MatchesExpectation) {
  const CaseJson& c = GetParam();
  absl::StatusOr<ActionSchema> got =
      ParseActionSchema(testing::TextFromSpec(c.at("yaml")));
  if (c.contains("expected")) {
    ASSERT_TRUE(got.ok()) << got.status();
    std::vector<std::string> names;
    for (const ActionDefinition& a : got->actions) names.push_back(a.name);
    EXPECT_EQ(names,
              c.at("expected").at("actions").get<std::vector<std::string>>());
  } else {
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(got.status().message()),
              c.at("error").get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(
    TestData, ParseActionSchemaCase,
    ::testing::ValuesIn(testing::LoadCases("parseActionSchema.json")),
    testing::CaseName);

}  // namespace
}  // namespace clada::sham_action_parser
