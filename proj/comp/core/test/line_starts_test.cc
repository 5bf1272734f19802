#include "proj/comp/core/src/line_starts.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace clada::core {
namespace {

std::vector<std::string> Lines(absl::string_view text) {
  LineStarts lines(text);
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines.Raw(i), text.substr(lines.Begin(i), lines.End(i) - lines.Begin(i)));
    absl::string_view content = lines.Raw(i);
    if (absl::EndsWith(content, "\n")) content.remove_suffix(1);
    if (absl::EndsWith(content, "\r")) content.remove_suffix(1);
    EXPECT_EQ(lines.Content(i), content);
    out.emplace_back(lines.Raw(i));
  }
  return out;
}

TEST(LineStarts, EachLineWithItsBreak) {
  EXPECT_TRUE(Lines("").empty());
  EXPECT_EQ(Lines("a"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(Lines("a\n"), (std::vector<std::string>{"a\n"}));
  EXPECT_EQ(Lines("a\r\n\nb"), (std::vector<std::string>{"a\r\n", "\n", "b"}));
  EXPECT_EQ(Lines("\n\n"), (std::vector<std::string>{"\n", "\n"}));
}

TEST(LineStarts, ContentLacksTheBreakAndACarriageReturnBeforeIt) {
  LineStarts lines("a\r\nb\r\rc\n\r");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines.Content(0), "a");
  EXPECT_EQ(lines.Content(1), "b\r\rc");
  EXPECT_EQ(lines.Content(2), "");
}

TEST(LineStarts, AgreesWithASplitOnLongTexts) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += std::string(static_cast<size_t>(i % 37), 'x') + "\n";
  text += "last";
  const std::vector<std::string> got = Lines(text);
  std::vector<std::string> want = absl::StrSplit(text, '\n');
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i + 1 < want.size(); ++i) EXPECT_EQ(got[i], want[i] + "\n");
  EXPECT_EQ(got.back(), "last");
}

}  // namespace
}  // namespace clada::core
