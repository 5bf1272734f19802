#include "proj/comp/sham-parser/src/parse_command.h"

#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_parser {
namespace {

TEST(RunParseCommand, PrintsIndentedJsonAndSucceedsWithoutErrors) {
  const std::string input =
      "#!nesl [@three-char-SHA-256: abc]\nkey = \"v\"\n#!end_abc";
  std::ostringstream out;
  EXPECT_EQ(RunParseCommand(input, out), 0);
  EXPECT_EQ(out.str(), ParseResultToJson(ParseBlocks(input)).dump(2) + "\n");
  EXPECT_NE(out.str().find("\n  \"blocks\": ["), std::string::npos)
      << out.str();
}

TEST(RunParseCommand, FailsWhenTheInputHasSyntaxErrors) {
  std::ostringstream out;
  EXPECT_EQ(
      RunParseCommand(
          "#!nesl [@three-char-SHA-256: abc]\nkey = bare\n#!end_abc", out),
      1);
  const nlohmann::json printed = nlohmann::json::parse(out.str());
  ASSERT_EQ(printed["errors"].size(), 1u);
  EXPECT_EQ(printed["errors"][0]["code"], "INVALID_VALUE");
}

TEST(RunParseCommand, FailsOnInputTooLarge) {
  std::ostringstream out;
  EXPECT_EQ(RunParseCommand(std::string(kMaxInputBytes + 1, ' '), out), 1);
  EXPECT_EQ(nlohmann::json::parse(out.str())["errors"][0]["code"],
            "input_too_large");
}

TEST(RunParseCommand, SucceedsOnTextWithoutBlocks) {
  std::ostringstream out;
  EXPECT_EQ(RunParseCommand("just prose\n", out), 0);
  EXPECT_EQ(out.str(), "{\n  \"blocks\": [],\n  \"errors\": []\n}\n");
}

}  // namespace
}  // namespace clada::sham_parser
