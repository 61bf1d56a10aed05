#include "check/complex_exact.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace bf16x::check {
namespace {

// [x, sign y] (rows x 2 cols) and [x; sign y] (2 rows x cols) of two real matrices of one shape.
template <typename T>
Mat<T> side_by_side(const Mat<T>& x, const Mat<T>& y, T sign) {
  Mat<T> r(x.rows, 2 * x.cols);
  for (std::int64_t j = 0; j < x.cols; ++j)
    for (std::int64_t i = 0; i < x.rows; ++i) {
      r(i, j) = x(i, j);
      r(i, x.cols + j) = sign * y(i, j);
    }
  return r;
}

template <typename T>
Mat<T> stacked(const Mat<T>& x, const Mat<T>& y) {
  Mat<T> r(2 * x.rows, x.cols);
  for (std::int64_t j = 0; j < x.cols; ++j)
    for (std::int64_t i = 0; i < x.rows; ++i) {
      r(i, j) = x(i, j);
      r(x.rows + i, j) = y(i, j);
    }
  return r;
}

}  // namespace

template <typename T>
CMat<double> complex_exact_gemm(const CMat<T>& a, const CMat<T>& b) {
  CMat<double> c;
  c.re = exact_gemm(side_by_side(a.re, a.im, T(-1)), stacked(b.re, b.im));
  c.im = exact_gemm(side_by_side(a.re, a.im, T(1)), stacked(b.im, b.re));
  return c;
}

template <typename T>
Mat<double> complex_abs_gemm(const CMat<T>& a, const CMat<T>& b) {
  Mat<double> c(a.rows(), b.cols());
  const std::int64_t k = a.cols();
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < b.cols(); ++j)
    for (std::int64_t l = 0; l < k; ++l) {
      const double bl = std::hypot(double(b.re(l, j)), double(b.im(l, j)));
      for (std::int64_t i = 0; i < a.rows(); ++i) c(i, j) += std::hypot(double(a.re(i, l)), double(a.im(i, l))) * bl;
    }
  return c;
}

template <typename T>
ErrorStats complex_errors(const CMat<T>& c, const CMat<double>& ref, const Mat<double>& absab) {
  ErrorStats s;
  long double num = 0, den = 0;
  std::vector<double> rel;
  for (std::size_t i = 0; i < ref.re.v.size(); ++i) {
    const double cr = double(c.re.v[i]), ci = double(c.im.v[i]), rr = ref.re.v[i], ri = ref.im.v[i];
    if (!(std::isfinite(cr) && std::isfinite(ci)) && std::isfinite(rr) && std::isfinite(ri)) {
      ++s.nonfinite;
      continue;
    }
    const double d = std::hypot(cr - rr, ci - ri), r = std::hypot(rr, ri);
    num += (long double)d * d;
    den += (long double)r * r;
    if (r != 0) rel.push_back(d / r);
    if (absab.v[i] > 0) {
      s.e_scaled = std::max(s.e_scaled, d / absab.v[i]);
    } else {
      ++s.zero_den;
      if (d != 0) ++s.zero_den_mismatch;
    }
  }
  summarise(s, rel, num, den);
  return s;
}

template CMat<double> complex_exact_gemm(const CMat<float>&, const CMat<float>&);
template CMat<double> complex_exact_gemm(const CMat<double>&, const CMat<double>&);
template Mat<double> complex_abs_gemm(const CMat<float>&, const CMat<float>&);
template Mat<double> complex_abs_gemm(const CMat<double>&, const CMat<double>&);
template ErrorStats complex_errors(const CMat<float>&, const CMat<double>&, const Mat<double>&);
template ErrorStats complex_errors(const CMat<double>&, const CMat<double>&, const Mat<double>&);

}  // namespace bf16x::check
