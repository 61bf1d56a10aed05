#include "check/exact_gemm.hpp"

#include <cmath>

namespace bf16x::check {
namespace {

struct DD {
  double hi = 0, lo = 0;
};

inline DD two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

inline void dd_add_prod(DD& acc, double x, double y) {
  const double p = x * y, pe = std::fma(x, y, -p);  // x*y = p + pe exactly
  DD s = two_sum(acc.hi, p);
  s.lo += acc.lo + pe;
  acc = two_sum(s.hi, s.lo);
}

}  // namespace

template <typename T>
Mat<double> exact_gemm(const Mat<T>& a, const Mat<T>& b) {
  Mat<double> c(a.rows, b.cols);
  const std::int64_t k = a.cols;
  // Row-major copy of A so that each dot product streams both operands.
  std::vector<double> at(std::size_t(a.rows * k));
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t l = 0; l < k; ++l) at[std::size_t(i * k + l)] = double(a(i, l));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t j = 0; j < b.cols; ++j)
    for (std::int64_t i = 0; i < a.rows; ++i) {
      DD acc;
      const double* ar = at.data() + i * k;
      for (std::int64_t l = 0; l < k; ++l) dd_add_prod(acc, ar[l], double(b(l, j)));
      c(i, j) = acc.hi + acc.lo;
    }
  return c;
}

template <typename T>
Mat<double> abs_gemm(const Mat<T>& a, const Mat<T>& b) {
  Mat<double> c(a.rows, b.cols);
  const std::int64_t k = a.cols;
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < b.cols; ++j)
    for (std::int64_t l = 0; l < k; ++l) {
      const double bl = std::fabs(double(b(l, j)));
      for (std::int64_t i = 0; i < a.rows; ++i) c(i, j) += std::fabs(double(a(i, l))) * bl;
    }
  return c;
}

template Mat<double> exact_gemm(const Mat<float>&, const Mat<float>&);
template Mat<double> exact_gemm(const Mat<double>&, const Mat<double>&);
template Mat<double> abs_gemm(const Mat<float>&, const Mat<float>&);
template Mat<double> abs_gemm(const Mat<double>&, const Mat<double>&);

}  // namespace bf16x::check
