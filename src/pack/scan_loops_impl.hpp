// The bodies of pack/scan_loops.hpp, included once by each variant's translation unit; internal linkage, so the
// linker never merges a copy built for one ISA into another.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "pack/scan_loops.hpp"

namespace bf16x::pack {
namespace {

template <typename U>
constexpr U kMagnitude = ~U(0) >> 1;  // all but the sign bit

template <typename U, typename T>
U magnitude_bits(T x) {
  U u;
  std::memcpy(&u, &x, sizeof u);
  return u & kMagnitude<U>;
}

template <typename U, typename T>
U line_max_loop(const T* x, std::int64_t len) {
  U m = 0;
  for (std::int64_t l = 0; l < len; ++l) {
    const U u = magnitude_bits<U>(x[l]);
    m = u > m ? u : m;
  }
  return m;
}

template <typename U, typename T>
void lane_max_loop(const T* x, std::int64_t len, U* m) {
  for (std::int64_t i = 0; i < len; ++i) {
    const U u = magnitude_bits<U>(x[i]);
    m[i] = u > m[i] ? u : m[i];
  }
}

// The smallest nonzero magnitude as a plain minimum, with no compare against zero: of |x| - 1, where a zero wraps
// to the top, plus 1 (a line with no nonzero entry wraps back to 0).
//
// Along a line each minimum and maximum waits on the one before, so the line loop takes the form whose compare is
// one instruction at every level: |x| - 1 with the sign cleared (a zero to the top of the magnitudes) and both
// compared as signed integers, which they fit (AVX2 has a signed 64-bit compare but no unsigned one). Across the
// lines nothing waits, and the unsigned form takes the fewest operations. The max-only loops above keep theirs.
template <typename U, typename T>
void line_extremes_loop(const T* x, std::int64_t len, U* hi, U* lo) {
  using S = std::make_signed_t<U>;
  S m = 0, n = S(kMagnitude<U>);
  for (std::int64_t l = 0; l < len; ++l) {
    const U u = magnitude_bits<U>(x[l]);
    const S v = S((u - 1) & kMagnitude<U>);
    m = S(u) > m ? S(u) : m;
    n = v < n ? v : n;
  }
  *hi = U(m);
  *lo = (U(n) + 1) & kMagnitude<U>;
}

template <typename U, typename T>
void lane_extremes_loop(const T* x, std::int64_t len, U* hi, U* lo) {
  for (std::int64_t i = 0; i < len; ++i) {
    const U u = magnitude_bits<U>(x[i]), v = u - 1, w = lo[i] - 1;
    hi[i] = u > hi[i] ? u : hi[i];
    lo[i] = (v < w ? v : w) + 1;
  }
}

constexpr ScanLoops make_scan_loops() {
  return {line_max_loop<std::uint32_t, float>,      line_max_loop<std::uint64_t, double>,
          lane_max_loop<std::uint32_t, float>,      lane_max_loop<std::uint64_t, double>,
          line_extremes_loop<std::uint32_t, float>, line_extremes_loop<std::uint64_t, double>,
          lane_extremes_loop<std::uint32_t, float>, lane_extremes_loop<std::uint64_t, double>};
}

}  // namespace
}  // namespace bf16x::pack
