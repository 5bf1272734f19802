#include "proj/comp/core/src/newlines.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace clada::core {
namespace {

// Every length and alignment, against a byte-at-a-time count: the SSE2
// path, its tail and its per-255-blocks flush all agree with it.
TEST(CountNewlines, EqualsAByteAtATimeCount) {
  std::string text;
  for (int i = 0; i < 5100; ++i) text += (i * 7919) % 5 == 0 ? '\n' : static_cast<char>('a' + i % 26);
  for (size_t begin = 0; begin < 17; ++begin) {
    for (size_t n = 0; begin + n <= 5000; n += n < 64 ? 1 : 37) {
      EXPECT_EQ(CountNewlines(text.data() + begin, n),
                static_cast<size_t>(std::count(text.begin() + begin, text.begin() + begin + n, '\n')))
          << begin << " " << n;
    }
  }
}

TEST(CountNewlines, OnlyLineBreaksPastManyBlocks) {
  const std::string breaks(16 * 255 * 3 + 5, '\n');
  EXPECT_EQ(CountNewlines(breaks), breaks.size());
  EXPECT_EQ(CountNewlines(absl::string_view()), 0u);
}

}  // namespace
}  // namespace clada::core
