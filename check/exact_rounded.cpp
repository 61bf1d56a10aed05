#include "check/exact_rounded.hpp"

#include <mpfr.h>

#include <type_traits>
#include <vector>

namespace bf16x::check {

namespace {

// RN(sum of the terms x y z) in T, each term exact at 160 bits, their sum exact at 8000 bits.
struct ExactTerms {
  std::vector<mpfr_t> t;
  std::vector<mpfr_ptr> ptrs;
  mpfr_t sum;
  std::size_t used = 0;
  explicit ExactTerms(std::size_t n) : t(n), ptrs(n) {
    for (std::size_t i = 0; i < n; ++i) mpfr_init2(t[i], 160), ptrs[i] = t[i];
    mpfr_init2(sum, 8000);
  }
  ~ExactTerms() {
    for (mpfr_t& x : t) mpfr_clear(x);
    mpfr_clear(sum);
  }
  void add(double x, double y, double z) {
    mpfr_set_d(t[used], x, MPFR_RNDN);
    mpfr_mul_d(t[used], t[used], y, MPFR_RNDN);  // 106 bits: exact
    mpfr_mul_d(t[used], t[used], z, MPFR_RNDN);  // 159 bits: exact
    ++used;
  }
  template <typename T>
  T rounded() {
    mpfr_sum(sum, ptrs.data(), (unsigned long)used, MPFR_RNDN);  // exact at 8000 bits
    used = 0;
    if (mpfr_zero_p(sum)) return T(0);  // an exact zero is +0 (MPFR's sum of -0 terms alone is -0), as documented
    if constexpr (std::is_same_v<T, double>)
      return mpfr_get_d(sum, MPFR_RNDN);
    else
      return mpfr_get_flt(sum, MPFR_RNDN);
  }
};

}  // namespace

template <typename T>
Mat<T> exact_rounded_gemm(const Mat<T>& a, const Mat<T>& b, T alpha, T beta, const Mat<T>& c0) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  Mat<T> out(m, n);
  ExactTerms x(std::size_t(k + 1));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t l = 0; l < k; ++l) x.add(double(a(i, l)), double(b(l, j)), double(alpha));
      if (beta != T(0)) x.add(double(beta), double(c0(i, j)), 1.0);
      out(i, j) = x.rounded<T>();
    }
  return out;
}

template <typename T>
CMat<T> exact_rounded_complex_gemm(const CMat<T>& a, const CMat<T>& b, const T (&alpha)[2], const T (&beta)[2],
                                   const CMat<T>& c0) {
  const std::int64_t m = a.rows(), n = b.cols(), k = a.cols();
  CMat<T> out(m, n);
  ExactTerms x(std::size_t(4 * k + 2));
  const double ar = alpha[0], ai = alpha[1], br = beta[0], bi = beta[1];
  const bool reads_c = br != 0 || bi != 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      // (ar + i ai)(sum (xr + i xi)(yr + i yi)) + (br + i bi)(cr + i ci)
      for (int part = 0; part < 2; ++part) {
        for (std::int64_t l = 0; l < k; ++l) {
          const double xr = a.re(i, l), xi = a.im(i, l), yr = b.re(l, j), yi = b.im(l, j);
          if (part == 0) {  // Re = ar (xr yr - xi yi) - ai (xr yi + xi yr)
            x.add(ar, xr, yr), x.add(-ar, xi, yi), x.add(-ai, xr, yi), x.add(-ai, xi, yr);
          } else {  // Im = ar (xr yi + xi yr) + ai (xr yr - xi yi)
            x.add(ar, xr, yi), x.add(ar, xi, yr), x.add(ai, xr, yr), x.add(-ai, xi, yi);
          }
        }
        if (reads_c) {
          const double cr = c0.re(i, j), ci = c0.im(i, j);
          if (part == 0)
            x.add(br, cr, 1.0), x.add(-bi, ci, 1.0);
          else
            x.add(br, ci, 1.0), x.add(bi, cr, 1.0);
        }
        (part == 0 ? out.re : out.im)(i, j) = x.rounded<T>();
      }
    }
  return out;
}

template CMat<float> exact_rounded_complex_gemm(const CMat<float>&, const CMat<float>&, const float (&)[2],
                                                const float (&)[2], const CMat<float>&);
template CMat<double> exact_rounded_complex_gemm(const CMat<double>&, const CMat<double>&, const double (&)[2],
                                                 const double (&)[2], const CMat<double>&);
template Mat<float> exact_rounded_gemm(const Mat<float>&, const Mat<float>&, float, float, const Mat<float>&);
template Mat<double> exact_rounded_gemm(const Mat<double>&, const Mat<double>&, double, double, const Mat<double>&);

}  // namespace bf16x::check
