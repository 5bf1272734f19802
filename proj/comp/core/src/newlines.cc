#include "proj/comp/core/src/newlines.h"

#include <algorithm>

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace clada::core {

size_t CountNewlines(const char* p, size_t n) {
  size_t count = 0;
#if defined(__SSE2__) && defined(__x86_64__)
  const __m128i nl = _mm_set1_epi8('\n');
  while (n >= 16) {
    // Per-byte counters (0xFF per match, subtracted), summed before any of
    // them can pass 255.
    const size_t rounds = std::min<size_t>(n / 16, 255);
    __m128i acc = _mm_setzero_si128();
    for (size_t r = 0; r < rounds; ++r, p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
    }
    const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    count += static_cast<size_t>(_mm_cvtsi128_si64(sums)) + static_cast<size_t>(_mm_extract_epi16(sums, 4));
    n -= rounds * 16;
  }
#endif
  return count + static_cast<size_t>(std::count(p, p + n, '\n'));
}

}  // namespace clada::core
