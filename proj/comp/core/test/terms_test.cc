// Schema words marked in a message: said by a dialect, or bare.
#include "proj/comp/core/src/terms.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace clada::core {
namespace {

std::optional<std::string> Csl(absl::string_view name, absl::string_view value) {
  if (name == "old_text") return std::string("the SEARCH text");
  if (name == "count") return absl::StrCat("count=\"", value.empty() ? "N" : value, "\"");
  if (name == "file_replace_text") return std::string("a SEARCH operation");
  return std::nullopt;
}

TEST(Terms, BareIsTheSchemasWord) {
  EXPECT_EQ(BareTerms(absl::StrCat(Term("old_text"), " was not found")), "old_text was not found");
  EXPECT_EQ(BareTerms(absl::StrCat("give ", Term("count", "2"))), "give count = 2");
  EXPECT_EQ(BareTerms(absl::StrCat("with ", TermOr("file_replace_text", "file_replace_lines"))),
            "with file_replace_text (or file_replace_lines)");
  EXPECT_EQ(BareTerms("no term here"), "no term here");
}

TEST(Terms, ADialectSaysWhatItHasWordsFor) {
  const std::string m = absl::StrCat(Term("old_text"), " and ", Term("new_text"), ": give ", Term("count", "2"),
                                     ", or use ", TermOr("file_replace_text", "file_replace_lines"), ".");
  EXPECT_EQ(RenderTerms(m, Csl),
            "the SEARCH text and new_text: give count=\"2\", or use a SEARCH operation.");
}

TEST(Terms, PaddingIsAsWideAsTheWordSaid) {
  // "  file: " lined up with "  old_text: " as each dialect says it.
  const std::string m = absl::StrCat("file: ", TermPadding(Term("old_text"), 4), "x\n", Term("old_text"), ": x");
  EXPECT_EQ(BareTerms(m), "file:     x\nold_text: x");
  EXPECT_EQ(RenderTerms(m, Csl), "file:            x\nthe SEARCH text: x");
  EXPECT_EQ(TermPadding("that part", 4), "     ");
  EXPECT_EQ(TermPadding("abc", 4), "");
}

TEST(Terms, TextThatIsNoTermIsKept) {
  // A lone mark, marks around what is no name, and a mark left open.
  const std::string lone = absl::StrCat("a", std::string(1, kTermMark), "b ", Term("old_text"));
  EXPECT_EQ(RenderTerms(lone, Csl), absl::StrCat("a", std::string(1, kTermMark), "b the SEARCH text"));
  const std::string odd = absl::StrCat(std::string(1, kTermMark), "Not A Name", std::string(1, kTermMark));
  EXPECT_EQ(RenderTerms(odd, Csl), odd);
  const std::string open = absl::StrCat("x ", std::string(1, kTermMark), "old_text");
  EXPECT_EQ(RenderTerms(open, Csl), open);
  EXPECT_EQ(BareTerms(""), "");
}

}  // namespace
}  // namespace clada::core
