#include "driver/block_ops.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/features.hpp"
#include "driver/block_loops.hpp"
#include "driver/write_block_avx512.hpp"
#include "pack/layout.hpp"
#include "util/pow2.hpp"

namespace bf16x::driver {
namespace {

using util::pow2;

constexpr int kMinExp = -1022, kMaxExp = 1023;

void write_column(float* col, const float* acc, int ld, int rows, double alpha, double beta, const double* s) {
  block_loops().write_column_fp32(col, acc, ld, rows, alpha, beta, s);
}
void write_column(double* col, const double* acc, int ld, int rows, double alpha, double beta, const double* s) {
  block_loops().write_column_fp64(col, acc, ld, rows, alpha, beta, s);
}

}  // namespace

const BlockLoops& block_loops() {
  static const BlockLoops& loops = cpu::by_level(kBlockLoopsGeneric, kBlockLoopsAvx2, kBlockLoopsAvx512);
  return loops;
}

void add_tile_fp32(float* dst, int ld, const float* part) { block_loops().add_tile_fp32(dst, ld, part); }

void add_groups_fp64(double* dst, int ld, const float* const* src, int n, bool first) {
  block_loops().add_groups_fp64(dst, ld, src, n, first);
}

template <typename T, typename Acc>
void write_block(T* c, std::int64_t ldc, const Acc* acc, int ld, int rows, int cols, double alpha, double beta,
                 const int* ea, const int* eb) {
  // alpha = m * 2^e_alpha with m in [0.5, 1): the power of two joins the row/column exponents, so that
  // m * acc * 2^(ea + eb + e_alpha) rounds once in m * acc and once more only if the result itself leaves the
  // normal range (no intermediate 2^(ea + eb) * acc that overflows or underflows before alpha brings it back).
  int e_alpha = 0;
  const double m_alpha = std::isfinite(alpha) ? std::frexp(alpha, &e_alpha) : alpha;
  int ra[pack::kBlockM], rb[pack::kBlockN];
  for (int r = 0; r < rows; ++r) ra[r] = (ea ? ea[r] : 0) + e_alpha;
  for (int j = 0; j < cols; ++j) rb[j] = eb ? eb[j] : 0;
  // Exact power-of-two factors when every 2^ra, 2^rb and 2^(ra + rb) of the block is a normal double.
  const int amin = *std::min_element(ra, ra + rows), amax = *std::max_element(ra, ra + rows);
  const int bmin = *std::min_element(rb, rb + cols), bmax = *std::max_element(rb, rb + cols);
  const bool exact = std::max({amax, bmax, amax + bmax}) <= kMaxExp && std::min({amin, bmin, amin + bmin}) >= kMinExp;
  double sa[pack::kBlockM], sb[pack::kBlockN], s[pack::kBlockM];
  if (exact) {
    for (int r = 0; r < rows; ++r) sa[r] = pow2(ra[r]);
    for (int j = 0; j < cols; ++j) sb[j] = pow2(rb[j]);
    if (cpu::vector_level() == cpu::Level::avx512) {
      write_block_avx512(c, ldc, acc, ld, rows, cols, m_alpha, beta, sa, sb);
      return;
    }
  }
  for (int j = 0; j < cols; ++j) {
    T* col = c + std::int64_t(j) * ldc;
    if (exact) {
      for (int r = 0; r < rows; ++r) s[r] = sa[r] * sb[j];
      write_column(col, acc + j, ld, rows, m_alpha, beta, s);
    } else {
      // ldexp rounds once, correctly, where 2^(ra + rb) is not a normal double.
      for (int r = 0; r < rows; ++r) {
        const double v = std::ldexp(m_alpha * double(acc[std::int64_t(r) * ld + j]), ra[r] + rb[j]);
        const double w = beta == 0.0 ? 0.0 : beta * double(col[r]);
        col[r] = T(beta == 0.0 ? v : v + w);
      }
    }
  }
}

template void write_block(float*, std::int64_t, const float*, int, int, int, double, double, const int*, const int*);
template void write_block(double*, std::int64_t, const double*, int, int, int, double, double, const int*, const int*);

}  // namespace bf16x::driver
