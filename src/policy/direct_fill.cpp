#include "policy/direct_fill.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "pack/layout.hpp"
#include "pack/line_scan.hpp"
#include "policy/fill_loops.hpp"
#include "split/slice_fp64.hpp"
#include "util/pow2.hpp"

namespace bf16x::policy {
namespace {

// A line whose smallest nonzero entry lies more than 2^500 below its largest is not bounded here: products of two
// such entries could leave the normal range, round to zero, and the sum would no longer say whether (|A||B|)_ij
// is zero.
constexpr double kLowest = 0x1p-500;

enum class Lines { ok, nonfinite, wide, zero };

// The `count` lines of length k of op(X) (entry l of line r at x[r * xr + l * xl]) scaled by their scale
// exponents, |x| 2^-e, into out[r * rs + l * ls].
template <typename T>
Lines scaled_lines(const T* x, std::int64_t xr, std::int64_t xl, std::int64_t count, std::int64_t k, double* out,
                   std::int64_t rs, std::int64_t ls) {
  thread_local std::vector<pack::Bits<T>> hi, lo;
  if (hi.size() < std::size_t(count)) hi.resize(std::size_t(count)), lo.resize(std::size_t(count));
  pack::line_extremes(x, xr, xl, count, k, hi.data(), lo.data());
  bool any = false;
  for (std::int64_t r = 0; r < count; ++r)
    if (pack::nonfinite<T>(hi[std::size_t(r)])) return Lines::nonfinite;
  for (std::int64_t r = 0; r < count; ++r) {
    const double mx = pack::magnitude<T>(hi[std::size_t(r)]);
    if (mx == 0) {
      for (std::int64_t l = 0; l < k; ++l) out[r * rs + l * ls] = 0;
      continue;
    }
    any = true;
    double f1, f2;
    util::pow2_pair(-split::scale_exponent(mx), f1, f2);
    if ((pack::magnitude<T>(lo[std::size_t(r)]) * f1) * f2 < kLowest) return Lines::wide;
    const T* line = x + r * xr;
    for (std::int64_t l = 0; l < k; ++l) {
      const double v = double(line[l * xl]);
      out[r * rs + l * ls] = ((v < 0 ? -v : v) * f1) * f2;
    }
  }
  return any ? Lines::ok : Lines::zero;
}

}  // namespace

template <typename T>
double direct_fill_ratio(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                         std::int64_t k, bool& nonfinite) {
  nonfinite = false;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // op(A)'s scaled rows (row-major) and op(B)'s scaled columns, stored k x nn row-major (nn: n up to a whole strip,
  // zeros past n), so that the products run along a row of C; kept per thread: no allocation per call.
  const std::int64_t nn = pack::round_up(n, kLeastStrip);
  thread_local std::vector<double> kept;
  const std::size_t size = std::size_t(m * k + k * nn);
  if (kept.size() < size) kept.resize(size);
  double* const va = kept.data();
  double* const vb = va + m * k;
  // NaN or Inf first on either side: the caller hands those calls to the host GEMM. Lines: op(A)'s rows, op(B)'s
  // columns.
  const Lines la = scaled_lines(a.data, a.row_step(), a.col_step(), m, k, va, k, 1);
  const Lines lb = la == Lines::nonfinite ? la : scaled_lines(b.data, b.col_step(), b.row_step(), n, k, vb, 1, nn);
  if (la == Lines::nonfinite || lb == Lines::nonfinite) {
    nonfinite = true;
    return 0;
  }
  if (la == Lines::zero || lb == Lines::zero) return 0;  // C = beta C exactly
  if (la == Lines::wide || lb == Lines::wide) return kInf;
  for (std::int64_t l = 0; l < k; ++l) std::fill(vb + l * nn + n, vb + (l + 1) * nn, 0.0);
  // Every nonzero scaled entry is at least 2^-500, so every product of two is normal: s_ij is zero exactly where
  // (|A||B|)_ij is, and otherwise s_ij <= (1 + gamma_k) (the exact sum): each of the k products and k - 1 additions
  // rounds once.
  const double least = fill_loops().least_sum(va, vb, m, n, nn, k);
  if (least == kInf) return 0;  // no entry with a nonzero product: C = beta C exactly
  // R <= k (1 + gamma_k) / least; 2 (k + 2) u covers gamma_k and the two roundings of the quotient.
  return double(k) * (1 + 2 * (double(k) + 2) * 0x1p-53) / least;
}

template double direct_fill_ratio(const pack::MatrixView<float>&, const pack::MatrixView<float>&, std::int64_t,
                                  std::int64_t, std::int64_t, bool&);
template double direct_fill_ratio(const pack::MatrixView<double>&, const pack::MatrixView<double>&, std::int64_t,
                                  std::int64_t, std::int64_t, bool&);

}  // namespace bf16x::policy
