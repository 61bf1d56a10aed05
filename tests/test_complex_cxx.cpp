// bf16x::cgemm / bf16x::zgemm (bf16x.hpp) on std::complex arrays. (Its own file: bf16x.hpp's bf16x::check()
// and the check/ library's namespace bf16x::check cannot meet in one translation unit.)
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "bf16x/bf16x.hpp"

namespace {

// The C++ wrapper on std::complex arrays: a small product checked entry by entry against std::complex arithmetic
// in long double (fp64x21: well inside 1e-14 here), and the status as an exception.
TEST(Complex, CxxWrapperOnStdComplex) {
  const std::int64_t m = 3, n = 2, k = 4;
  std::vector<std::complex<double>> a(m * k), b(k * n), c(m * n, {7, 7});
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = {0.25 * double(i) - 1, 0.5 - 0.125 * double(i)};
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = {0.75 - 0.25 * double(i), 0.375 * double(i)};
  bf16x::zgemm(bf16x::Layout::col_major, bf16x::Op::none, bf16x::Op::conj_trans, m, n, k, {1, 0}, a.data(), m, b.data(),
               n, {0, 0}, c.data(), m, bf16x::Mode::fp64x21);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      std::complex<long double> r = 0;
      for (std::int64_t l = 0; l < k; ++l)
        r += std::complex<long double>(a[i + l * m]) * std::conj(std::complex<long double>(b[j + l * n]));
      EXPECT_LT(std::abs(std::complex<long double>(c[i + j * m]) - r), 1e-14L) << i << "," << j;
    }
  EXPECT_THROW(bf16x::zgemm(bf16x::Layout::col_major, bf16x::Op::none, bf16x::Op::none, m, n, k, {1, 0}, a.data(),
                            m - 1, b.data(), k, {0, 0}, c.data(), m, bf16x::Mode::fp64x21),
               bf16x::Error);
}

}  // namespace
