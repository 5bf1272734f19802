#include "proj/comp/core/src/terminal_text.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace clada::core {
namespace {

struct Case {
  std::string in;
  std::string lines;     // TerminalForm::kLines
  std::string one_line;  // TerminalForm::kOneLine
  std::string json;      // TerminalForm::kJson
};

const std::vector<Case>& Cases() {
  static const auto* const kCases = new std::vector<Case>{
      {"plain name.txt", "plain name.txt", "plain name.txt", "plain name.txt"},
      {"caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80",
       "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80"},
      // OSC 52 (sets the clipboard), a line erased and overwritten.
      {"a\x1b]52;c;Zm9v\x07z", "a\\x1b]52;c;Zm9v\\x07z", "a\\x1b]52;c;Zm9v\\x07z", "a\\u001b]52;c;Zm9v\\u0007z"},
      {"x\x1b[2K\rforged", "x\\x1b[2K\\x0dforged", "x\\x1b[2K\\x0dforged", "x\\u001b[2K\\u000dforged"},
      {"l1\nl2\tt\r\nl3", "l1\nl2\tt\r\nl3", "l1\\x0al2\\x09t\\x0d\\x0al3", "l1\nl2\tt\r\nl3"},
      {"del\x7f nul", std::string("del\\x7f nul"), "del\\x7f nul", "del\\u007f nul"},
      {std::string("a\0b", 3), "a\\x00b", "a\\x00b", "a\\u0000b"},
      // C1: CSI (U+009B) and NEL (U+0085).
      {"csi \xC2\x9B" "31m \xC2\x85", "csi \\u009b31m \\u0085", "csi \\u009b31m \\u0085", "csi \\u009b31m \\u0085"},
      // Bidi overrides and isolates, marks, zero-width and BOM, ALM.
      {"\xE2\x80\xAEtxt.exe", "\\u202etxt.exe", "\\u202etxt.exe", "\\u202etxt.exe"},
      {"\xE2\x81\xA6" "a\xE2\x81\xA9" "b\xE2\x80\x8F", "\\u2066a\\u2069b\\u200f", "\\u2066a\\u2069b\\u200f",
       "\\u2066a\\u2069b\\u200f"},
      {"z\xE2\x80\x8Bw\xEF\xBB\xBF\xD8\x9C", "z\\u200bw\\ufeff\\u061c", "z\\u200bw\\ufeff\\u061c",
       "z\\u200bw\\ufeff\\u061c"},
      {"sep\xE2\x80\xA8", "sep\\u2028", "sep\\u2028", "sep\\u2028"},
      {"soft\xC2\xADhy", "soft\\u00adhy", "soft\\u00adhy", "soft\\u00adhy"},
      // A tag character (invisible text) takes the long form, or a JSON pair.
      {"t\xF3\xA0\x81\x81", "t\\U000e0041", "t\\U000e0041", "t\\udb40\\udc41"},
      // Invalid UTF-8: a lone continuation, an overlong form, a surrogate,
      // a cut sequence at the end.
      {"\x80" "a\xC0\xAF" "b\xED\xA0\x80" "c\xE2\x80", "\\x80a\\xc0\\xafb\\xed\\xa0\\x80c\\xe2\\x80",
       "\\x80a\\xc0\\xafb\\xed\\xa0\\x80c\\xe2\\x80", "\\ufffda\\ufffd\\ufffdb\\ufffd\\ufffd\\ufffdc\\ufffd\\ufffd"},
      // A lone CR at the end is no line end.
      {"end\r", "end\\x0d", "end\\x0d", "end\\u000d"},
  };
  return *kCases;
}

TEST(EscapeForTerminal, EscapesWhatATerminalWouldActOnOrHide) {
  for (const Case& c : Cases()) {
    EXPECT_EQ(EscapeForTerminal(c.in), c.lines) << c.in;
    EXPECT_EQ(EscapeForTerminal(c.in, TerminalForm::kOneLine), c.one_line) << c.in;
    EXPECT_EQ(EscapeForTerminal(c.in, TerminalForm::kJson), c.json) << c.in;
  }
}

TEST(EscapeForTerminal, EscapedTextIsUnchangedWhenEscapedAgain) {
  for (const Case& c : Cases()) {
    for (TerminalForm form : {TerminalForm::kLines, TerminalForm::kOneLine, TerminalForm::kJson}) {
      const std::string once = EscapeForTerminal(c.in, form);
      EXPECT_EQ(EscapeForTerminal(once, form), once) << c.in;
    }
  }
}

TEST(EscapeForTerminal, NoEscapeOrBidiOrC1ByteSurvivesAnyByte) {
  // Every byte alone and after each lead byte: nothing raw is left that a
  // terminal acts on.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; b += (a >= 0xC2 ? 1 : 255)) {
      std::string in{static_cast<char>(a), static_cast<char>(b), '\x9b'};
      for (TerminalForm form : {TerminalForm::kLines, TerminalForm::kOneLine, TerminalForm::kJson}) {
        const std::string out = EscapeForTerminal(in, form);
        for (size_t i = 0; i < out.size(); ++i) {
          const unsigned char c = static_cast<unsigned char>(out[i]);
          ASSERT_TRUE(c >= 0x20 || c == '\n' || c == '\t' || (c == '\r' && i + 1 < out.size() && out[i + 1] == '\n'))
              << a << " " << b;
          ASSERT_NE(c, 0x7F);
          ASSERT_FALSE(c == 0xC2 && i + 1 < out.size() && static_cast<unsigned char>(out[i + 1]) < 0xA0) << a << " " << b;
          ASSERT_FALSE(c == 0xE2 && i + 2 < out.size() && out[i + 1] == '\x80' &&
                       static_cast<unsigned char>(out[i + 2]) >= 0xAA && static_cast<unsigned char>(out[i + 2]) <= 0xAE);
        }
      }
    }
  }
}

TEST(AppendEscapedForTerminalWithin, AppendsTheEscapeOfTheLongestPrefixThatFits) {
  for (const Case& c : Cases()) {
    for (TerminalForm form : {TerminalForm::kLines, TerminalForm::kOneLine, TerminalForm::kJson}) {
      const std::string whole = EscapeForTerminal(c.in, form);
      size_t last = 0;
      for (size_t limit = 0; limit <= whole.size() + 1; ++limit) {
        std::string out = "kept";
        const size_t used = AppendEscapedForTerminalWithin(c.in, form, limit, &out);
        ASSERT_LE(used, c.in.size());
        const std::string prefix_escaped = EscapeForTerminal(c.in.substr(0, used), form);
        EXPECT_EQ(out, "kept" + prefix_escaped) << c.in << " " << limit;
        EXPECT_LE(prefix_escaped.size(), limit) << c.in;
        EXPECT_GE(used, last) << c.in << " " << limit;
        last = used;
      }
      std::string out;
      EXPECT_EQ(AppendEscapedForTerminalWithin(c.in, form, whole.size(), &out), c.in.size()) << c.in;
      EXPECT_EQ(out, whole);
    }
  }
}

TEST(AppendEscapedForTerminalWithin, NeverSplitsAnEscapeACharacterOrALineEnd) {
  std::string out;
  EXPECT_EQ(AppendEscapedForTerminalWithin("ab\x1b" "c", TerminalForm::kLines, 5, &out), 2u);
  EXPECT_EQ(out, "ab");
  out.clear();
  EXPECT_EQ(AppendEscapedForTerminalWithin("ab\x1b" "c", TerminalForm::kLines, 6, &out), 3u);
  EXPECT_EQ(out, "ab\\x1b");
  out.clear();
  EXPECT_EQ(AppendEscapedForTerminalWithin("a\r\nb", TerminalForm::kLines, 2, &out), 1u);
  EXPECT_EQ(out, "a");
  out.clear();
  EXPECT_EQ(AppendEscapedForTerminalWithin("a\xC3\xA9", TerminalForm::kLines, 2, &out), 1u);
  EXPECT_EQ(out, "a");
  out.clear();
  EXPECT_EQ(AppendEscapedForTerminalWithin("\xE2\x80\xAEz", TerminalForm::kLines, 5, &out), 0u);
  EXPECT_EQ(out, "");
  out.clear();
  EXPECT_EQ(AppendEscapedForTerminalWithin("plain text", TerminalForm::kLines, 5, &out), 5u);
  EXPECT_EQ(out, "plain");
}

TEST(TerminalStream, WritesWhatItIsGivenEscapedHoweverItIsCut) {
  // The stream sees the text in pieces cut anywhere, flushed between them:
  // what reaches the destination is the text escaped whole.
  std::string all;
  for (const Case& c : Cases()) absl::StrAppend(&all, c.in, "\n");
  all += "\r";
  all += "\n";
  all += std::string(20000, 'x') + "\xE2\x80\xAE";
  for (TerminalForm form : {TerminalForm::kLines, TerminalForm::kOneLine, TerminalForm::kJson}) {
    for (size_t step : {1, 2, 3, 5, 7, 4096, 9000}) {
      std::ostringstream dest;
      {
        TerminalStream out(dest, form);
        for (size_t i = 0; i < all.size(); i += step) {
          out << all.substr(i, step);
          if (i % 3 == 0) out.flush();
        }
      }
      EXPECT_EQ(dest.str(), EscapeForTerminal(all, form)) << step;
    }
  }
}

TEST(TerminalStream, PassesOnAHeldBackPieceWhenDestroyed) {
  std::ostringstream dest;
  {
    TerminalStream out(dest);
    out << "cut \xE2\x80" << std::flush;
    EXPECT_EQ(dest.str(), "cut ");
    out << "end\r" << std::flush;
  }
  EXPECT_EQ(dest.str(), "cut \\xe2\\x80end\\x0d");
}

TEST(TerminalStream, ChangesFormAfterWhatWasWritten) {
  std::ostringstream dest;
  {
    TerminalStream out(dest);
    out << "a\x7f\n";
    out.set_form(TerminalForm::kJson);
    out << "b\x7f\n";
  }
  EXPECT_EQ(dest.str(), "a\\x7f\nb\\u007f\n");
}

}  // namespace
}  // namespace clada::core
