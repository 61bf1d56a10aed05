#include "policy/error_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "bf16x/bf16x.h"
#include "pack/layout.hpp"
#include "split/slice_fp64.hpp"

namespace bf16x::policy {
namespace {

using Env = FillEnvelope;

// Bin of |x| 2^-E for a finite x of a line with scale exponent E (|x| < 2^E): |v| in [2^(-t-1), 2^-t) and q the
// next two significand bits. Read from the bit pattern, so the pass costs a few integer operations per element.
int bin_of(double x, int E) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  u &= 0x7fffffffffffffffull;
  if (u == 0) return 0;
  int e, q;
  if (const int ef = int(u >> 52); ef != 0) {
    e = ef - 1022;  // x = f 2^e, f in [1/2, 1)
    q = int((u >> 50) & 3u);
  } else {  // FP64 subnormal
    const double f = std::frexp(std::fabs(x), &e);
    q = int((2 * f - 1) * Env::kSubBins);
  }
  const int t = E - e;
  if (t >= Env::kBinades) return 0;
  return 1 + (Env::kBinades - 1 - t) * Env::kSubBins + q;
}

// |x| as an integer: with the sign cleared, IEEE patterns order like the values, NaN and Inf above every finite.
template <typename T>
std::uint64_t abs_bits(T x) {
  const double d = double(x);  // exact for float
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u & 0x7fffffffffffffffull;
}
constexpr std::uint64_t kInfBits = 0x7ff0000000000000ull;

// Lines of op(X): element l of line r sits at data[r * sr + l * sl]. Lines are handled kBlock at a time, walked
// along the contiguous direction: line by line when sl == 1, across the block when sr == 1.
template <typename T>
Env measure(const T* data, std::int64_t sr, std::int64_t sl, std::int64_t count, std::int64_t len) {
  Env env;
  env.len = len;
  constexpr std::int64_t kBlock = 16;
  const std::int64_t blocks = (count + kBlock - 1) / kBlock;
  const bool big = count * len > 65536, along = sl == 1;
  bool nonfinite = false;
  std::int64_t lines = 0;
#pragma omp parallel if (big) reduction(|| : nonfinite) reduction(+ : lines)
  {
    // On the thread's stack: nothing inside a parallel region may throw (an exception there ends the process).
    std::array<std::uint32_t, std::size_t(kBlock * Env::kBins)> hist{};
    std::array<std::int64_t, Env::kBins> worst{};
    int all_below = Env::kBins;  // every line has all its entries in bins below this one
#pragma omp for schedule(static)
    for (std::int64_t blk = 0; blk < blocks; ++blk) {
      const std::int64_t r0 = blk * kBlock, nr = std::min(kBlock, count - r0);
      const T* x = data + r0 * sr;
      std::uint64_t mx[kBlock] = {};
      if (along) {
        for (std::int64_t r = 0; r < nr; ++r)
          for (std::int64_t l = 0; l < len; ++l) mx[r] = std::max(mx[r], abs_bits(x[r * sr + l]));
      } else {
        for (std::int64_t l = 0; l < len; ++l)
          for (std::int64_t r = 0; r < nr; ++r) mx[r] = std::max(mx[r], abs_bits(x[r + l * sl]));
      }
      int scale[kBlock], lo[kBlock], hi[kBlock];
      for (std::int64_t r = 0; r < nr; ++r) {
        nonfinite = nonfinite || mx[r] >= kInfBits;
        double m;
        std::memcpy(&m, &mx[r], sizeof m);
        scale[r] = split::scale_exponent(m);
        lo[r] = Env::kBins;
        hi[r] = 0;
      }
      if (nonfinite) continue;
      auto count_one = [&](std::int64_t r, T v) {
        const int b = bin_of(double(v), scale[r]);
        ++hist[std::size_t(r * Env::kBins + b)];
        lo[r] = std::min(lo[r], b);
        hi[r] = std::max(hi[r], b + 1);
      };
      if (along) {
        for (std::int64_t r = 0; r < nr; ++r)
          for (std::int64_t l = 0; l < len; ++l) count_one(r, x[r * sr + l]);
      } else {
        for (std::int64_t l = 0; l < len; ++l)
          for (std::int64_t r = 0; r < nr; ++r) count_one(r, x[r + l * sl]);
      }
      // Cumulative counts into the envelope: 0 below a line's lowest bin, len from its highest on.
      for (std::int64_t r = 0; r < nr; ++r) {
        std::uint32_t* h = hist.data() + r * Env::kBins;
        if (mx[r] != 0) {  // an all-zero line gives exact zeros
          ++lines;
          all_below = std::min(all_below, hi[r]);
          std::int64_t below = 0;
          for (int b = lo[r]; b < hi[r]; ++b) {
            below += h[b];
            worst[std::size_t(b)] = std::max(worst[std::size_t(b)], below);
          }
        }
        std::fill(h + lo[r], h + std::max(lo[r], hi[r]), 0u);
      }
    }
    for (int b = all_below; b < Env::kBins; ++b) worst[std::size_t(b)] = len;
#pragma omp critical(bf16x_fill_envelope)
    for (int b = 0; b < Env::kBins; ++b)
      env.worst[std::size_t(b)] = std::max(env.worst[std::size_t(b)], worst[std::size_t(b)]);
  }
  env.nonfinite = nonfinite;
  env.lines = lines;
  return env;
}

}  // namespace

double gamma(double n, double u) { return n * u < 1 ? n * u / (1 - n * u) : std::numeric_limits<double>::infinity(); }

double fp64_truncation(int d) {
  double t = 2 * 0x1p-54;
  for (int s = d; s <= 10; ++s) t += std::min(s + 1, 11 - s) * std::ldexp(1.0, -9 * s);
  return t;
}

double FillEnvelope::lower_edge(int bin) {
  if (bin <= 0) return 0;
  const int t = kBinades - 1 - (bin - 1) / kSubBins, q = (bin - 1) % kSubBins;
  return std::ldexp(1.0 + double(q) / kSubBins, -t - 1);
}

template <typename T>
FillEnvelope measure_fill(const pack::MatrixView<T>& x, std::int64_t rows, std::int64_t cols, bool per_row) {
  // Element (i, j) of op(X) is data[i + j*ld], or data[j + i*ld] when trans.
  const std::int64_t si = x.trans ? x.ld : 1, sj = x.trans ? 1 : x.ld;
  return per_row ? measure(x.data, si, sj, rows, cols) : measure(x.data, sj, si, cols, rows);
}

double fill_ratio(const FillEnvelope& a, const FillEnvelope& b) {
  if (a.lines == 0 || b.lines == 0) return 0;
  const std::int64_t k = a.len;
  // Position p of A's envelope (ascending) meets position k-1-p of B's: both are step functions of p, so walk
  // the merged steps. worst[kBins-1] == k, so both searches stop inside the arrays.
  long double sum = 0;
  int ba = 0, bb = FillEnvelope::kBins - 1;
  for (std::int64_t p = 0; p < k;) {
    while (a.worst[std::size_t(ba)] <= p) ++ba;
    const std::int64_t q = k - 1 - p;
    while (bb > 0 && b.worst[std::size_t(bb - 1)] > q) --bb;
    const std::int64_t end = std::min(a.worst[std::size_t(ba)], bb > 0 ? k - b.worst[std::size_t(bb - 1)] : k);
    sum += (long double)(end - p) * FillEnvelope::lower_edge(ba) * FillEnvelope::lower_edge(bb);
    p = end;
  }
  return sum > 0 ? double((long double)k / sum) : std::numeric_limits<double>::infinity();
}

double predicted_escaled(int mode, std::int64_t k, int block_k, double fill_ratio) {
  if (mode == BF16X_MODE_FP32X6) {
    // Blocked FP32 sums of 6 products (two roundings per k pair each), the dropped A1B2 + A2B1 + A2B2, slices
    // below 2^-126 of the line scale read as zero, and the final rounding (tests/test_modes.cpp, check_fp32).
    const double bk = block_k > 0 ? block_k : pack::kBlockKFp32;
    const double n = 2.0 * 6 * bk + std::ceil(double(k) / bk);
    return gamma(n, kUnitRoundoff32) * 1.02 + 3.1 * kUnitRoundoff32 + 0x1p-120 * fill_ratio + kUnitRoundoff32;
  }
  if (mode < BF16X_MODE_FP64X6 || mode > BF16X_MODE_FP64X21) return std::numeric_limits<double>::infinity();
  // Truncation T_d R; the FP64 sum of the exact group sums, whose terms add up to at most
  // sum_l (|v_il| + c)(|w_lj| + c) with sum_s |slice_s| <= |v| + c, c = 2^-8 (1 + 2^-8): gamma_n (1 + (2c + c^2) R);
  // the final scaling by alpha, u, with u of slack for the operations around it.
  const int d = mode - BF16X_MODE_FP64X6 + 3;
  const double bk = block_k > 0 ? block_k : pack::kBlockK;
  const double adds = double(d * (d + 1) / 2) * std::ceil(double(k) / bk);
  const double u = kUnitRoundoff64, c = 0x1p-8 * (1 + 0x1p-8);
  return fp64_truncation(d) * fill_ratio + gamma(adds, u) * (1 + (2 * c + c * c) * fill_ratio) + 2 * u;
}

double native_escaled(bool is_double, std::int64_t k) {
  return gamma(double(k), is_double ? kUnitRoundoff64 : kUnitRoundoff32);
}

int fewest_products(bool is_double, std::int64_t k, int block_k, double fill_ratio, double target) {
  if (!is_double)
    return predicted_escaled(BF16X_MODE_FP32X6, k, block_k, fill_ratio) <= target ? BF16X_MODE_FP32X6
                                                                                  : BF16X_MODE_NATIVE;
  for (int mode = BF16X_MODE_FP64X6; mode <= BF16X_MODE_FP64X21; ++mode)
    if (predicted_escaled(mode, k, block_k, fill_ratio) <= target) return mode;
  return BF16X_MODE_NATIVE;
}

template FillEnvelope measure_fill(const pack::MatrixView<float>&, std::int64_t, std::int64_t, bool);
template FillEnvelope measure_fill(const pack::MatrixView<double>&, std::int64_t, std::int64_t, bool);

}  // namespace bf16x::policy
