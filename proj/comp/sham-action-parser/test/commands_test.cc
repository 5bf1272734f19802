// `clada validate`, `clada instructions` and `clada schema`: the validate
// output and exit code per case in test-data/runValidateCommand.json; the
// instructions cover every LLM action and their examples are valid blocks.
#include "proj/comp/sham-action-parser/src/commands.h"

#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/test/test_cases.h"

namespace clada::sham_action_parser {
namespace {

using testing::CaseJson;

class RunValidateCommandCase : public ::testing::TestWithParam<CaseJson> {};

TEST_P(RunValidateCommandCase, MatchesExpectation) {
  const CaseJson& c = GetParam();
  std::ostringstream out;
  const bool json = c.value("json", false);
  const int code =
      RunValidateCommand(testing::TextFromSpec(c.at("input")), json, out);
  EXPECT_EQ(code, c.at("exitCode").get<int>());
  if (c.contains("output")) {
    EXPECT_EQ(out.str(), testing::TextFromSpec(c.at("output")));
  }
  if (c.contains("outputJson")) {
    CaseJson got;
    ASSERT_NO_THROW(got = CaseJson::parse(out.str())) << out.str();
    EXPECT_EQ(got.dump(2), c.at("outputJson").dump(2));
  }
}

INSTANTIATE_TEST_SUITE_P(
    TestData, RunValidateCommandCase,
    ::testing::ValuesIn(testing::LoadCases("runValidateCommand.json")),
    testing::CaseName);

TEST(RenderInstructions, ListsEveryLlmActionWithItsParameters) {
  const std::string text = RenderInstructions();
  for (const ActionDefinition& a : LoadedSchema().actions) {
    const std::string heading = absl::StrCat("\n### ", a.name, "\n");
    if (!a.IsLlmAccessible()) {
      EXPECT_FALSE(absl::StrContains(text, heading))
          << a.name << " is user-only";
      continue;
    }
    ASSERT_TRUE(absl::StrContains(text, heading)) << a.name;
    const std::string section = text.substr(text.find(heading));
    EXPECT_TRUE(absl::StrContains(section, a.description)) << a.name;
    for (const ParameterDef& p : a.parameters) {
      EXPECT_TRUE(
          absl::StrContains(section, absl::StrCat("\n- ", p.name, " (")))
          << a.name << "." << p.name;
    }
  }
}

// What the rules say about quoting; parseShamResponse.json's "quoted values
// decode JSON escapes" and "regular expression backslash in a quoted value"
// cases check that the parser does what they say.
TEST(RenderInstructions, ExplainsHeredocsAndQuoting) {
  const std::string text = RenderInstructions();
  EXPECT_TRUE(absl::StrContains(text, "<<'EOT_SHAM_k7m'"));
  EXPECT_TRUE(absl::StrContains(text, "read as a JSON string"));
  EXPECT_TRUE(absl::StrContains(
      text, "\\\" for a double quote and \\\\ for a backslash"));
  EXPECT_TRUE(
      absl::StrContains(text, "(so \"C:\\new\" holds a line break)"));
  EXPECT_TRUE(absl::StrContains(
      text, "as in \"\\d+\" or \"C:\\Users\", makes the block invalid"));
  EXPECT_TRUE(absl::StrContains(
      text, "For text with line breaks, backslashes (regular expressions"));
  EXPECT_FALSE(absl::StrContains(text, "nothing else is escaped"));
  EXPECT_TRUE(absl::StrContains(text, "\"true\" or \"false\""));
  EXPECT_TRUE(absl::StrContains(text, "relative"));
  EXPECT_TRUE(absl::StrContains(
      text, "- lang (one of bash, sh, python, javascript, ruby, required)"));
}

// The examples the LLM learns from must themselves be valid blocks.
TEST(RenderInstructions, ExamplesAreValidBlocks) {
  const ActionParseResult r = ParseShamResponse(RenderInstructions());
  for (const ActionParseError& e : r.errors)
    ADD_FAILURE() << ActionParseErrorToJson(e).dump(2);
  ASSERT_EQ(r.actions.size(), 3u);
  EXPECT_EQ(r.actions[0].name, "file_write");
  EXPECT_EQ(r.actions[1].name, "file_replace_text");
  EXPECT_EQ(r.actions[2].name, "exec");
  EXPECT_TRUE(r.warnings.empty());
}

TEST(SchemaToJson, HasEveryActionInTheYamlShape) {
  const core::Json schema = SchemaToJson();
  ASSERT_TRUE(schema.contains("tools"));
  EXPECT_EQ(schema.at("tools").size(), LoadedSchema().actions.size());
  EXPECT_EQ(schema.at("SHAM_syntax_example"), LoadedSchema().syntax_example);
  const core::Json& exec = schema.at("tools").at("exec");
  EXPECT_EQ(exec.at("executor"), "exec");
  EXPECT_EQ(exec.at("accessibility"), core::Json::array({"llm"}));
  EXPECT_EQ(exec.at("output_display"), "conditional");
  EXPECT_EQ(exec.at("primary_param"), "lang");
  EXPECT_EQ(exec.at("parameters").at("lang").at("values"),
            core::Json::array({"bash", "sh", "python", "javascript", "ruby"}));
  EXPECT_EQ(exec.at("parameters").at("return_output").at("default"), true);
  EXPECT_EQ(exec.at("parameters").at("timeout").at("type"), "integer");
  EXPECT_EQ(schema.at("tools").at("undo").at("accessibility"),
            core::Json::array({"user"}));
  EXPECT_EQ(schema.at("tools").at("undo").at("user_command"), "clada undo");
  EXPECT_FALSE(exec.contains("user_command"));
  EXPECT_FALSE(schema.at("tools").at("context_list").contains("primary_param"));
  EXPECT_NO_THROW(schema.dump());
}

}  // namespace
}  // namespace clada::sham_action_parser
