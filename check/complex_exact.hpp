// Independent references for complex C = op(A) op(B), built on the real double-double reference: each part is one
// real exact dot product of length 2k over the parts, Re = [Ar, -Ai] [Br; Bi] and Im = [Ar, Ai] [Bi; Br], so it
// is exact-enough (about 2k 2^-104) and rounded once to double. Also |A||B| with complex moduli, and the error
// measures of metrics.hpp with complex moduli.
#pragma once
#include "check/exact_gemm.hpp"
#include "check/metrics.hpp"

namespace bf16x::check {

template <typename T>
struct CMat {  // column-major, real and imaginary parts apart
  Mat<T> re, im;
  CMat() = default;
  CMat(std::int64_t r, std::int64_t c) : re(r, c), im(r, c) {}
  std::int64_t rows() const { return re.rows; }
  std::int64_t cols() const { return re.cols; }
};

template <typename T>
CMat<double> complex_exact_gemm(const CMat<T>& a, const CMat<T>& b);

// (|A||B|)_ij = sum_l |a_il| |b_lj| with |x| the complex modulus, in double.
template <typename T>
Mat<double> complex_abs_gemm(const CMat<T>& a, const CMat<T>& b);

// eF = ||C - R||_F / ||R||_F, e_scaled = max |C - R|_ij / (|A||B|)_ij, relative errors: complex moduli.
template <typename T>
ErrorStats complex_errors(const CMat<T>& c, const CMat<double>& ref, const Mat<double>& absab);

}  // namespace bf16x::check
