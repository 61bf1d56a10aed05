#include "policy/error_model.hpp"

#include <emmintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "mode/records.hpp"
#include "pack/layout.hpp"
#include "pack/line_scan.hpp"
#include "policy/fill_loops.hpp"
#include "split/slice_fp64.hpp"
#include "util/pow2.hpp"
#include "util/team.hpp"

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

// The fast form of bin_of (fast_bin, policy/fill_loops.hpp) for a line of scale exponent E >= kFastScale, with
// c = bin_offset(E).
static_assert(Env::kSubBins == 4, "fast_bin's key holds two significand bits");
constexpr int kFastScale = Env::kBinades - 1022;
int bin_offset(int E) { return 1 + Env::kSubBins * (Env::kBinades - 1023 - E); }

void count_along(const float* x, std::int64_t len, int c, std::uint32_t* h) {
  fill_loops().count_along_fp32(x, len, c, Env::kBins, h);
}
void count_along(const double* x, std::int64_t len, int c, std::uint32_t* h) {
  fill_loops().count_along_fp64(x, len, c, Env::kBins, h);
}
void count_across(const float* x, std::int64_t sl, int nr, std::int64_t len, const int* c, int shift,
                  std::uint32_t* h) {
  fill_loops().count_across_fp32(x, sl, nr, len, c, shift, h);
}
void count_across(const double* x, std::int64_t sl, int nr, std::int64_t len, const int* c, int shift,
                  std::uint32_t* h) {
  fill_loops().count_across_fp64(x, sl, nr, len, c, shift, h);
}

// Four uint32 counts from p, and whether all four are zero: a graded line's entries leave most bins of its span
// empty, and a test of four at once skips them.
__m128i four(const std::uint32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
bool all_zero(__m128i v) { return _mm_movemask_epi8(_mm_cmpeq_epi32(v, _mm_setzero_si128())) == 0xffff; }

// Lines of op(X): element l of line r sits at data[r * sr + l * sl], walked along the contiguous direction, a block
// of lines at a time. Two passes over a block: its lines' extremes (pack::line_extremes: the scale, and the lowest
// nonzero and the highest bin, since bin_of grows with |x|), then the counts.
// - Along (sl == 1), kAlong lines a block (2048-long FP64 lines: 512 KiB, read again from the L2), line by line,
//   into kAlongCopies counts per bin: most entries of a line lie in its top binades, and equal bins in a row then
//   do not wait for each other's increments.
// - Across (sr == 1), up to kAcross lines side by side, into counts stored bin by bin (line r of bin b at
//   b block + r): the bins most entries fall into take a few KiB. Each column of the block is one run of memory,
//   from another page than the last: 32 FP64 lines made that 256 bytes, on whose loads the extremes pass stalled;
//   256 lines make it 2 KiB. The block shrinks to give every thread one.
//
// exp, where given: each line's scale exponent (split::scale_exponent of its largest magnitude, as the drivers' scan
// gives it), so that a guarded call's driver need not read the operand again to scan it; not meaningful where the
// envelope is nonfinite.
template <typename T>
Env measure(const T* data, std::int64_t sr, std::int64_t sl, std::int64_t count, std::int64_t len, int* exp) {
  Env env;
  env.len = len;
  constexpr std::int64_t kAlong = 32, kAcross = 256;
  const bool big = count * len > util::kTeamElements, along = sl == 1;
  const int team = big ? omp_get_max_threads() : 1;
  const bool one = team == 1;  // one thread measures: its kept counts and the envelope itself, no merge
  int shift = 5;               // across: a block of 2^shift lines, 32 to kAcross, and no fewer blocks than threads
  while ((std::int64_t(1) << shift) < kAcross && (std::int64_t(2) << shift) * team <= count) ++shift;
  const std::int64_t block = along ? kAlong : std::int64_t(1) << shift;
  const std::int64_t blocks = (count + block - 1) / block;
  bool nonfinite = false;
  std::int64_t lines = 0;
  // The counts of each thread, zero between lines: every line takes (and clears) the bins it counted into. So a call
  // on one thread reuses its thread's counts, left all zero by the last call, instead of clearing them anew (74 KiB
  // for a 2 x 2 call: a quarter of its guard's time). Allocated here: nothing inside a parallel region may throw (an
  // exception there ends the process).
  const std::size_t per_thread = std::size_t((along ? kAlongCopies : block) * Env::kBins);
  thread_local std::vector<std::uint32_t> kept;
  std::vector<std::uint32_t> team_counts;
  if (!one)
    team_counts.assign(per_thread * std::size_t(team), 0u);
  else if (kept.size() < per_thread)
    kept.resize(per_thread, 0u);
  std::uint32_t* const counts = one ? kept.data() : team_counts.data();
  // A share of the work: its worksharing constructs are orphaned here (util/team.hpp).
  //
  // Each line's count of the bins 0..b, F(b), grows with b, so the envelope W(b) = max over lines of F(b) is the
  // running maximum over b of M(s), the largest F(s) of any line at a bin s where its count steps (bin 0 and its
  // nonzero bins): each line takes only its nonzero bins (a graded line of 64 entries spans hundreds of bins, most
  // empty), and the running maximum is taken once per share.
  const auto share = [&](bool& nonfinite, std::int64_t& lines) {
    std::uint32_t* h = counts + per_thread * std::size_t(omp_get_thread_num());
    // M of this share's lines: the envelope's own where one thread measures, else the thread's copy, merged at the
    // end.
    std::array<std::int64_t, Env::kBins> own;
    std::int64_t* const worst = one ? env.worst.data() : own.data();
    if (!one) own.fill(0);
    int top = 0;              // every line of the share has all its entries in bins below this one
    int bottom = Env::kBins;  // and none in bins 1..bottom-1
    // Each walk below adds, at a bin b where a line's count steps, that line's F(b) to M(b); each takes (and
    // clears) the counts of the bins it walks, four bins (along) or four lines (across) at a time, and skips the
    // fours whose counts are all zero.
#pragma omp for schedule(static)
    for (std::int64_t blk = 0; blk < blocks; ++blk) {
      const std::int64_t r0 = blk * block, nr = std::min(block, count - r0);
      const T* x = data + r0 * sr;
      alignas(64) pack::Bits<T> top_bits[kAcross], least[kAcross];
      pack::line_extremes(x, sr, sl, nr, len, top_bits, least);
      for (std::int64_t r = 0; r < nr; ++r) nonfinite = nonfinite || pack::nonfinite<T>(top_bits[r]);
      if (nonfinite) continue;
      double mx[kAcross];
      int scale[kAcross], lo[kAcross], hi[kAcross], offset[kAcross];
      bool fast = true;
      for (std::int64_t r = 0; r < nr; ++r) {
        mx[r] = pack::magnitude<T>(top_bits[r]);
        scale[r] = split::scale_exponent(mx[r]);
        if (exp) exp[r0 + r] = scale[r];
        lo[r] = len == 0 ? Env::kBins : mx[r] == 0 ? 0 : bin_of(pack::magnitude<T>(least[r]), scale[r]);
        hi[r] = len > 0 ? bin_of(mx[r], scale[r]) + 1 : 0;
        offset[r] = bin_offset(scale[r]);
        fast = fast && scale[r] >= kFastScale;
        if (mx[r] != 0) ++lines, top = std::max(top, hi[r]), bottom = std::min(bottom, std::max(lo[r], 1));
      }
      if (along) {
        static_assert(kAlongCopies == 4);
        std::uint32_t* const h1 = h + Env::kBins;
        std::uint32_t* const h2 = h + 2 * Env::kBins;
        std::uint32_t* const h3 = h + 3 * Env::kBins;
        for (std::int64_t r = 0; r < nr; ++r) {
          const T* line = x + r * sr;
          const int c = offset[r], e = scale[r];
          if (fast)
            count_along(line, len, c, h);
          else
            for (std::int64_t l = 0; l < len; ++l) ++h[bin_of(double(line[l]), e)];
          // The line's counts are read bin by bin and cleared at the end, bins 0 and lo..hi-1 of each copy, in
          // runs of stores.
          const auto sum = [&](int b) { return h[b] + h1[b] + h2[b] + h3[b]; };
          const int from = std::max(lo[r], 1);
          std::int64_t below = sum(0);  // an all-zero line has all its entries there, and gives exact zeros
          h[0] = h1[0] = h2[0] = h3[0] = 0;
          if (mx[r] == 0) continue;
          worst[0] = std::max(worst[0], below);
          int b = from;
          // Fours tested only where the line has fewer entries than bins to walk: else most bins hold some.
          for (; b + 4 <= hi[r] && hi[r] - b > len; b += 4) {
            if (all_zero(
                    _mm_or_si128(_mm_or_si128(four(h + b), four(h1 + b)), _mm_or_si128(four(h2 + b), four(h3 + b)))))
              continue;
            for (int q = b; q < b + 4; ++q) {
              below += sum(q);
              worst[q] = std::max(worst[q], below);
            }
          }
          for (; b < hi[r]; ++b) {
            below += sum(b);
            worst[b] = std::max(worst[b], below);
          }
          for (std::uint32_t* copy : {h, h1, h2, h3}) std::fill(copy + from, copy + hi[r], 0u);
        }
      } else {
        if (fast) {
          count_across(x, sl, int(nr), len, offset, shift, h);
        } else {
          for (std::int64_t l = 0; l < len; ++l)
            for (std::int64_t r = 0; r < nr; ++r) ++h[bin_of(double(x[r + l * sl]), scale[r]) * block + r];
        }
        // Four lines at a time (block is a multiple of four; the lines from nr on have no counts): each bin's max of
        // their F(b) (a line walked below its lo has F(b) = F(0), past its hi len: both values of F).
        for (std::int64_t r = 0; r < nr; r += 4) {
          std::int64_t below[4];
          int from = Env::kBins, to = 0;
          for (int q = 0; q < 4; ++q) {
            below[q] = std::exchange(h[r + q], 0u);
            if (r + q < nr && mx[r + q] != 0) {
              from = std::min(from, std::max(lo[r + q], 1)), to = std::max(to, hi[r + q]);
              worst[0] = std::max(worst[0], below[q]);
            } else {
              below[q] = 0;  // no line, or an all-zero one: every count in bin 0
            }
          }
          for (int b = from; b < to; ++b) {
            std::uint32_t* const p = h + b * block + r;
            if (all_zero(four(p))) continue;
            std::int64_t most = 0;
            for (int q = 0; q < 4; ++q) most = std::max(most, below[q] += std::exchange(p[q], 0u));
            worst[b] = std::max(worst[b], most);
          }
        }
      }
    }
    if (lines == 0) return;  // no nonzero line in this share (`lines` counts this thread's)
    // The running maximum of M up to the top bin (no line steps between bins 0 and bottom); from there every line
    // has counted all its entries.
    std::fill(worst + 1, worst + bottom, worst[0]);
    for (int b = bottom; b < top; ++b) worst[b] = std::max(worst[b], worst[b - 1]);
    if (one) {
      std::fill(worst + top, worst + Env::kBins, len);
      return;
    }
#pragma omp critical(bf16x_fill_envelope)
    {
      for (int b = 0; b < top; ++b) env.worst[std::size_t(b)] = std::max(env.worst[std::size_t(b)], worst[b]);
      for (int b = top; b < Env::kBins; ++b) env.worst[std::size_t(b)] = len;
    }
  };
  if (!util::team_needed(team)) {
    share(nonfinite, lines);
  } else {
#pragma omp parallel num_threads(team) reduction(|| : nonfinite) reduction(+ : lines)
    share(nonfinite, lines);
  }
  env.nonfinite = nonfinite;
  env.lines = lines;
  return env;
}

}  // namespace

const FillLoops& fill_loops() {
  static const FillLoops& loops = cpu::by_level(kFillLoopsGeneric, kFillLoopsAvx2, kFillLoopsAvx512);
  return loops;
}

double gamma(double n, double u) { return n * u < 1 ? n * u / (1 - n * u) : std::numeric_limits<double>::infinity(); }

double fp64_truncation(int d) {
  // Once per d (every guarded call asks): d = 0..11, the products i + j < d of six slices.
  static const std::array<double, 12> table = [] {
    std::array<double, 12> t{};
    for (int e = 0; e < 12; ++e) {
      t[std::size_t(e)] = 2 * 0x1p-54;
      for (int s = e; s <= 10; ++s) t[std::size_t(e)] += std::min(s + 1, 11 - s) * std::ldexp(1.0, -9 * s);
    }
    return t;
  }();
  return table[std::size_t(std::clamp(d, 0, 11))];
}

double FillEnvelope::lower_edge(int bin) {
  if (bin <= 0) return 0;
  const int t = kBinades - 1 - (bin - 1) / kSubBins, q = (bin - 1) % kSubBins;
  return (1.0 + double(q) / kSubBins) * util::pow2(-t - 1);  // exact: 2^(-t-1) >= 2^-128, ldexp without the call
}

template <typename T>
FillEnvelope measure_fill(const pack::MatrixView<T>& x, std::int64_t rows, std::int64_t cols, bool per_row, int* exp) {
  // Element (i, j) of op(X) is data[i + j*ld], or data[j + i*ld] when trans.
  const std::int64_t si = x.row_step(), sj = x.col_step();
  return per_row ? measure(x.data, si, sj, rows, cols, exp) : measure(x.data, sj, si, cols, rows, exp);
}

double fill_ratio(const FillEnvelope& a, const FillEnvelope& b) {
  if (a.lines == 0 || b.lines == 0) return 0;
  const std::int64_t k = a.len;
  // Position p of A's envelope (ascending) meets position k-1-p of B's: both are step functions of p, so walk
  // the merged steps. worst[kBins-1] == k, so both searches stop inside the arrays.
  long double sum = 0;
  int ba = 0, bb = FillEnvelope::kBins - 1;
  // Both arrays grow with the bin: a binary search finds the next step (most bins of a short line are empty).
  const auto first_above = [](const FillEnvelope& e, int from, int to, std::int64_t v) {
    return int(std::upper_bound(e.worst.begin() + from, e.worst.begin() + to, v) - e.worst.begin());
  };
  for (std::int64_t p = 0; p < k;) {
    ba = first_above(a, ba, FillEnvelope::kBins, p);
    const std::int64_t q = k - 1 - p;
    bb = first_above(b, 0, bb, q);
    const std::int64_t end = std::min(a.worst[std::size_t(ba)], bb > 0 ? k - b.worst[std::size_t(bb - 1)] : k);
    sum += (long double)(end - p) * FillEnvelope::lower_edge(ba) * FillEnvelope::lower_edge(bb);
    p = end;
  }
  return sum > 0 ? double((long double)k / sum) : std::numeric_limits<double>::infinity();
}

int fp64_slice_diagonals(int mode) {
  const mode::Record* r = mode::record(mode);
  return r && r->method == mode::Method::slices && r->precision == mode::Precision::fp64 ? r->diagonals : 0;
}

double predicted_escaled(int mode, std::int64_t k, int block_k, double fill_ratio) {
  const mode::Record* r = mode::record(mode);
  if (r && r->method == mode::Method::slices && r->precision == mode::Precision::fp32) {
    // Blocked FP32 sums of the products (two roundings per k pair each), the dropped terms, slices below 2^-126 of
    // the line scale read as zero, and the final rounding (tests/test_modes.cpp, check_fp32). Dropped: fp32x6's
    // three slices hold each value exactly, so only A1B2 + A2B1 + A2B2; fp32x3's two leave a residual of at most
    // 2^-16 |x| (each slice rounded to 8 bits), on either factor, besides A1B1.
    const double dropped = r->slices >= 3 ? 3.1 * kUnitRoundoff32 : 3.1 * 0x1p-16;
    const double bk = block_k > 0 ? block_k : pack::kBlockKFp32;
    const double n = 2.0 * r->products * bk + std::ceil(double(k) / bk);
    return gamma(n, kUnitRoundoff32) * 1.02 + dropped + 0x1p-120 * fill_ratio + kUnitRoundoff32;
  }
  const int d = fp64_slice_diagonals(mode);
  if (d == 0) return std::numeric_limits<double>::infinity();
  // Truncation T_d R; the FP64 sum of the exact group sums, whose terms add up to at most
  // sum_l (|v_il| + c)(|w_lj| + c) with sum_s |slice_s| <= |v| + c, c = 2^-8 (1 + 2^-8): gamma_n (1 + (2c + c^2) R);
  // the final scaling by alpha, u, with u of slack for the operations around it.
  const double bk = block_k > 0 ? block_k : pack::kBlockK;
  const double adds = double(d * (d + 1) / 2) * std::ceil(double(k) / bk);
  const double u = kUnitRoundoff64, c = 0x1p-8 * (1 + 0x1p-8);
  return fp64_truncation(d) * fill_ratio + gamma(adds, u) * (1 + (2 * c + c * c) * fill_ratio) + 2 * u;
}

double native_escaled(bool is_double, std::int64_t k) {
  return gamma(double(k), is_double ? kUnitRoundoff64 : kUnitRoundoff32);
}

int fewest_products(bool is_double, std::int64_t k, int block_k, double fill_ratio, double target) {
  // The slice modes of the precision, fewest products first (the mode records' order).
  for (const mode::Record& r : mode::records())
    if (r.method == mode::Method::slices && mode::fits(r.id, is_double) &&
        predicted_escaled(r.id, k, block_k, fill_ratio) <= target)
      return r.id;
  return BF16X_MODE_NATIVE;
}

template FillEnvelope measure_fill(const pack::MatrixView<float>&, std::int64_t, std::int64_t, bool, int*);
template FillEnvelope measure_fill(const pack::MatrixView<double>&, std::int64_t, std::int64_t, bool, int*);

}  // namespace bf16x::policy
