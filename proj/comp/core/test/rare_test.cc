#include "proj/comp/core/src/rare.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace clada::core {
namespace {

struct Details {
  std::string name;
  std::vector<int> values;
};

TEST(Rare, ReadsEmptyMakesOnWriteAndCopies) {
  EXPECT_EQ(sizeof(Rare<Details>), sizeof(void*));
  Rare<Details> none;
  EXPECT_TRUE(none.get().name.empty() && none.get().values.empty());
  Rare<Details> some;
  some.mut().name = "x";
  some.mut().values.push_back(1);
  EXPECT_EQ(some.get().name, "x");
  Rare<Details> copy = some;  // a copy, not a share
  copy.mut().values.push_back(2);
  EXPECT_EQ(some.get().values, std::vector<int>{1});
  EXPECT_EQ(copy.get().values, (std::vector<int>{1, 2}));
  copy = none;
  EXPECT_TRUE(copy.get().values.empty());
  Rare<Details> moved = std::move(some);
  EXPECT_EQ(moved.get().name, "x");
}

}  // namespace
}  // namespace clada::core
