// The independent reference of the correctly rounded modes: RN(alpha (A B)_ij + beta C0_ij) from MPFR, the exact
// value (products exact at 160 bits, their sum exact at 8000 bits: every term lies within 2^-3300 .. 2^3200) rounded
// once to T by mpfr_get_d / mpfr_get_flt (subnormals and overflow as IEEE 754 rounds them). Finite inputs only.
#pragma once
#include "check/complex_exact.hpp"
#include "check/exact_gemm.hpp"

namespace bf16x::check {

// beta == 0: C0 not read.
template <typename T>
Mat<T> exact_rounded_gemm(const Mat<T>& a, const Mat<T>& b, T alpha, T beta, const Mat<T>& c0);

// The same for complex operands (op(A), op(B) already conjugated where asked), each part rounded once:
// RN(Re(alpha A B + beta C0)) and RN(Im(...)); alpha = (alpha_re, alpha_im), beta likewise.
template <typename T>
CMat<T> exact_rounded_complex_gemm(const CMat<T>& a, const CMat<T>& b, const T (&alpha)[2], const T (&beta)[2],
                                   const CMat<T>& c0);

}  // namespace bf16x::check
