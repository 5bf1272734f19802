#include "proj/comp/core/src/utf8.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::core {
namespace {

using Json = nlohmann::ordered_json;

TEST(Utf8WithoutIncompleteTail, DropsOnlyACutLastCharacter) {
  EXPECT_EQ(Utf8WithoutIncompleteTail(""), 0u);
  EXPECT_EQ(Utf8WithoutIncompleteTail("abc"), 3u);
  EXPECT_EQ(Utf8WithoutIncompleteTail("a\xc3\xa9"), 3u);          // whole
  EXPECT_EQ(Utf8WithoutIncompleteTail("a\xc3"), 1u);              // 2-byte cut after 1
  EXPECT_EQ(Utf8WithoutIncompleteTail("a\xe2\x82"), 1u);          // 3-byte cut after 2
  EXPECT_EQ(Utf8WithoutIncompleteTail("a\xf0\x9f\x98"), 1u);      // 4-byte cut after 3
  EXPECT_EQ(Utf8WithoutIncompleteTail("a\xf0\x9f\x98\x80"), 5u);  // whole
  EXPECT_EQ(Utf8WithoutIncompleteTail("a\xff"), 2u);              // not a lead byte: kept
  EXPECT_EQ(Utf8WithoutIncompleteTail("\x80\x80\x80\x80"), 4u);  // no lead byte in reach
}

TEST(Utf8LeadingContinuations, CountsAtMostThree) {
  EXPECT_EQ(Utf8LeadingContinuations(""), 0u);
  EXPECT_EQ(Utf8LeadingContinuations("abc"), 0u);
  EXPECT_EQ(Utf8LeadingContinuations("\x82\xacx"), 2u);
  EXPECT_EQ(Utf8LeadingContinuations("\x80\x80\x80\x80\x80"), 3u);
  EXPECT_EQ(Utf8LeadingContinuations("\xc3\xa9"), 0u);
}

TEST(Utf8Bom, OnlyALeadingMarkIsDropped) {
  EXPECT_EQ(WithoutUtf8Bom("\xEF\xBB\xBF#!SHAM"), "#!SHAM");
  EXPECT_EQ(WithoutUtf8Bom("\xEF\xBB\xBF\xEF\xBB\xBFx"), "\xEF\xBB\xBFx");  // one mark only
  EXPECT_EQ(WithoutUtf8Bom("a\xEF\xBB\xBF"), "a\xEF\xBB\xBF");
  EXPECT_EQ(WithoutUtf8Bom("\xEF\xBB"), "\xEF\xBB");
  std::string text = "\xEF\xBB\xBFline\n";
  EXPECT_TRUE(DropUtf8Bom(&text));
  EXPECT_EQ(text, "line\n");
  EXPECT_FALSE(DropUtf8Bom(&text));
  EXPECT_EQ(text, "line\n");
}

TEST(ToValidUtf8, ReplacesEachBadByte) {
  EXPECT_EQ(ToValidUtf8("ok \xc3\xa9"), "ok \xc3\xa9");
  EXPECT_EQ(ToValidUtf8("app\xe2\x82"), "app\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ToValidUtf8("\xff"), "\xEF\xBF\xBD");
}

TEST(Utf8SequenceLength, IsTheWellFormedSequenceOrZero) {
  const std::string text = "a\xc3\xa9\xe2\x80\xae\xf0\x9f\x98\x80\xc0\xaf\xed\xa0\x80\x80\xe2\x82";
  EXPECT_EQ(Utf8SequenceLength(text, 0), 1u);
  EXPECT_EQ(Utf8SequenceLength(text, 1), 2u);
  EXPECT_EQ(Utf8SequenceLength(text, 3), 3u);
  EXPECT_EQ(Utf8SequenceLength(text, 6), 4u);
  EXPECT_EQ(Utf8SequenceLength(text, 10), 0u);  // overlong
  EXPECT_EQ(Utf8SequenceLength(text, 12), 0u);  // surrogate
  EXPECT_EQ(Utf8SequenceLength(text, 15), 0u);  // lone continuation
  EXPECT_EQ(Utf8SequenceLength(text, 16), 0u);  // cut by the end
  // Stepping by it (one byte where it is 0) gives ToValidUtf8's repair.
  std::string rebuilt;
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceLength(text, i);
    rebuilt += n == 0 ? std::string("\xEF\xBF\xBD") : text.substr(i, n);
    i += n == 0 ? 1 : n;
  }
  EXPECT_EQ(rebuilt, ToValidUtf8(text));
}

// An answer's block ID ending inside a character (E2 82) once made
// dump() throw type_error 316 and `clada run --json` abort.
TEST(MakeJsonValidUtf8, RepairsStringsAndKeysSoDumpCannotThrow) {
  Json doc = {{"label", "app\xe2\x82"},
              {"list", {"fine", "\x80", 3}},
              {"params", {{"pa\xffth", "x"}, {"good", "y\xc3"}}}};
  EXPECT_THROW(doc.dump(), nlohmann::json::type_error);
  EXPECT_EQ(MakeJsonValidUtf8(&doc), 4u);
  EXPECT_EQ(doc["label"], "app\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(doc["list"][0], "fine");
  EXPECT_EQ(doc["list"][1], "\xEF\xBF\xBD");
  EXPECT_EQ(doc["list"][2], 3);
  EXPECT_EQ(doc["params"]["pa\xEF\xBF\xBDth"], "x");
  EXPECT_EQ(doc["params"]["good"], "y\xEF\xBF\xBD");
  EXPECT_EQ(doc["params"].begin().key(), "pa\xEF\xBF\xBDth") << "the keys keep their order";
  EXPECT_NO_THROW(doc.dump());
  EXPECT_EQ(MakeJsonValidUtf8(&doc), 0u);
}

// The walk is a loop: nesting costs no stack.
TEST(MakeJsonValidUtf8, ReachesTheDeepestString) {
  Json doc = "\xff";
  for (int i = 0; i < 1000; ++i) doc = Json::array({std::move(doc)});
  EXPECT_EQ(MakeJsonValidUtf8(&doc), 1u);
  const Json* v = &doc;
  while (v->is_array()) v = &(*v)[0];
  EXPECT_EQ(*v, "\xEF\xBF\xBD");
}

}  // namespace
}  // namespace clada::core
