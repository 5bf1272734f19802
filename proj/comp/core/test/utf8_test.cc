#include "proj/comp/core/src/utf8.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::core {
namespace {

using Json = nlohmann::ordered_json;

TEST(ToValidUtf8, ReplacesEachBadByte) {
  EXPECT_EQ(ToValidUtf8("ok \xc3\xa9"), "ok \xc3\xa9");
  EXPECT_EQ(ToValidUtf8("app\xe2\x82"), "app\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ToValidUtf8("\xff"), "\xEF\xBF\xBD");
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
