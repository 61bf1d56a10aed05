// The per-line operand scan: one read of the lines of op(X) (rows of op(A), columns of op(B)) for each line's largest
// and, where asked, its smallest nonzero magnitude. The scale pass (pack/scan_scales.cpp), the correctly rounded
// driver's line exponents (cr/cr_driver.cpp) and the fill pass (policy/error_model.cpp) all read their operands here.
//
// Magnitudes are compared as integers: with the sign bit cleared, IEEE bit patterns order like the values they
// encode, and every NaN or Inf pattern lies above every finite one. So one unsigned max per line gives both the
// maximum and the non-finite test, a finite pattern turned back into a value is the magnitude itself, and the loops
// (pack/scan_loops.hpp) vectorise without fast-math. The matrix is walked along its contiguous direction whichever
// way the lines run.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <xmmintrin.h>

#include "pack/scan_loops.hpp"

namespace bf16x::pack {

template <typename T>
struct MagnitudeBits;
template <>
struct MagnitudeBits<float> {
  using U = std::uint32_t;
  static constexpr U kInf = 0x7f800000u;
};
template <>
struct MagnitudeBits<double> {
  using U = std::uint64_t;
  static constexpr U kInf = 0x7ff0000000000000ull;
};
template <typename T>
using Bits = typename MagnitudeBits<T>::U;

// Whether a magnitude pattern is a NaN or an Inf.
template <typename T>
bool nonfinite(Bits<T> u) {
  return u >= MagnitudeBits<T>::kInf;
}
// The magnitude a pattern encodes, as FP64 (exact for float).
template <typename T>
double magnitude(Bits<T> u) {
  T x;
  std::memcpy(&x, &u, sizeof x);
  return double(x);
}

inline std::uint32_t line_max(const float* x, std::int64_t len) { return scan_loops().line_max_fp32(x, len); }
inline std::uint64_t line_max(const double* x, std::int64_t len) { return scan_loops().line_max_fp64(x, len); }
inline void lane_max(const float* x, std::int64_t len, std::uint32_t* m) { scan_loops().lane_max_fp32(x, len, m); }
inline void lane_max(const double* x, std::int64_t len, std::uint64_t* m) { scan_loops().lane_max_fp64(x, len, m); }
inline void line_extremes(const float* x, std::int64_t len, std::uint32_t* hi, std::uint32_t* lo) {
  scan_loops().line_extremes_fp32(x, len, hi, lo);
}
inline void line_extremes(const double* x, std::int64_t len, std::uint64_t* hi, std::uint64_t* lo) {
  scan_loops().line_extremes_fp64(x, len, hi, lo);
}
inline void lane_extremes(const float* x, std::int64_t len, std::uint32_t* hi, std::uint32_t* lo) {
  scan_loops().lane_extremes_fp32(x, len, hi, lo);
}
inline void lane_extremes(const double* x, std::int64_t len, std::uint64_t* hi, std::uint64_t* lo) {
  scan_loops().lane_extremes_fp64(x, len, hi, lo);
}

// Lines 0..nr-1 of op(X), each `len` long, on the calling thread: line r, element l at x[r * sr + l * sl], exactly
// one of sr, sl is 1 (sl == 1 is checked first: it also covers ld == 1). hi[r]: the line's largest magnitude
// pattern; lo[r], where lo is not null: its smallest nonzero one, 0 where it has none (the max-only walk is the
// slice modes' hot path, so it stays a loop of its own). Across memory the lines are walked side by side, column by
// column.
template <typename T>
void line_extremes(const T* x, std::int64_t sr, std::int64_t sl, std::int64_t nr, std::int64_t len, Bits<T>* hi,
                   Bits<T>* lo) {
  if (sl == 1) {
    for (std::int64_t r = 0; r < nr; ++r)
      if (lo)
        line_extremes(x + r * sr, len, hi + r, lo + r);
      else
        hi[r] = line_max(x + r * sr, len);
    return;
  }
  std::fill_n(hi, nr, Bits<T>(0));
  if (lo) std::fill_n(lo, nr, Bits<T>(0));
  for (std::int64_t l = 0; l < len; ++l) {
    // Each column is a short run of memory, away from the last: the next one's lines are asked for while this one
    // is walked, which the hardware's prefetchers, starting anew on each run, do not do.
    if (l + 1 < len)
      for (std::int64_t r = 0; r < nr; r += 64 / sizeof(T))
        _mm_prefetch(reinterpret_cast<const char*>(x + (l + 1) * sl + r), _MM_HINT_T0);
    if (lo)
      lane_extremes(x + l * sl, nr, hi, lo);
    else
      lane_max(x + l * sl, nr, hi);
  }
}

// The lines one thread takes at a time across memory (along it, one line).
inline constexpr std::int64_t kScanLines = 1024;

// All `count` lines (as line_extremes above), shared among the threads of the enclosing parallel region: orphaned
// worksharing, no barrier at the end; outside a region, all on the calling thread. done(r, hi, lo) takes line r's
// patterns on the thread that scanned it (lo 0 unless with_min). Returns whether this thread's lines held a NaN or
// Inf. `done` is taken by value, so that what it holds stays in registers across the calls to the loops.
template <typename T, typename Done>
bool scan_lines(const T* x, std::int64_t sr, std::int64_t sl, std::int64_t count, std::int64_t len, bool with_min,
                Done done) {
  using U = Bits<T>;
  U top = 0;  // the largest of this thread's lines: a NaN or Inf lies above every finite pattern
  if (sl == 1) {
#pragma omp for schedule(static) nowait
    for (std::int64_t r = 0; r < count; ++r) {
      U hi, lo = 0;
      if (with_min)
        line_extremes(x + r * sr, len, &hi, &lo);
      else
        hi = line_max(x + r * sr, len);
      top = std::max(top, hi);
      done(r, hi, lo);
    }
  } else {
    const std::int64_t blocks = (count + kScanLines - 1) / kScanLines;
#pragma omp for schedule(static) nowait
    for (std::int64_t b = 0; b < blocks; ++b) {
      alignas(64) U hi[kScanLines], lo[kScanLines];
      const std::int64_t r0 = b * kScanLines, n = std::min(kScanLines, count - r0);
      line_extremes(x + r0 * sr, sr, sl, n, len, hi, with_min ? lo : nullptr);
      for (std::int64_t r = 0; r < n; ++r) {
        top = std::max(top, hi[r]);
        done(r0 + r, hi[r], with_min ? lo[r] : U(0));
      }
    }
  }
  return nonfinite<T>(top);
}

}  // namespace bf16x::pack
