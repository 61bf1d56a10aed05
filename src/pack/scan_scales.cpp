// Scale pass: one read of each operand to find per-row (A) / per-column (B) maxima, and any NaN/Inf.
#include <cmath>

#include "pack/panels.hpp"
#include "split/slice_fp64.hpp"

namespace bf16x::pack {
namespace {

template <typename T>
ScaleScan scan(const MatrixView<T>& x, std::int64_t rows, std::int64_t cols, bool per_row, bool scaled,
               std::vector<int>& exp) {
  const std::int64_t count = per_row ? rows : cols;
  const std::int64_t len = per_row ? cols : rows;
  exp.assign(std::size_t(count), 0);
  bool nonfinite = false;
#pragma omp parallel for schedule(static) reduction(|| : nonfinite) if (count * len > 65536)
  for (std::int64_t r = 0; r < count; ++r) {
    double mx = 0.0;
    bool bad = false;
    for (std::int64_t l = 0; l < len; ++l) {
      const double v = std::fabs(double(per_row ? x(r, l) : x(l, r)));
      bad |= !(v < HUGE_VAL);  // NaN or Inf
      mx = v > mx ? v : mx;
    }
    nonfinite = nonfinite || bad;
    exp[std::size_t(r)] = scaled ? split::scale_exponent(mx) : 0;
  }
  return {nonfinite};
}

}  // namespace

template <typename T>
ScaleScan scan_scales_a(const MatrixView<T>& a, std::int64_t m, std::int64_t k, bool scaled, std::vector<int>& exp) {
  return scan(a, m, k, true, scaled, exp);
}
template <typename T>
ScaleScan scan_scales_b(const MatrixView<T>& b, std::int64_t k, std::int64_t n, bool scaled, std::vector<int>& exp) {
  return scan(b, k, n, false, scaled, exp);
}

template ScaleScan scan_scales_a(const MatrixView<float>&, std::int64_t, std::int64_t, bool, std::vector<int>&);
template ScaleScan scan_scales_a(const MatrixView<double>&, std::int64_t, std::int64_t, bool, std::vector<int>&);
template ScaleScan scan_scales_b(const MatrixView<float>&, std::int64_t, std::int64_t, bool, std::vector<int>&);
template ScaleScan scan_scales_b(const MatrixView<double>&, std::int64_t, std::int64_t, bool, std::vector<int>&);

}  // namespace bf16x::pack
