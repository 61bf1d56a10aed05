#include "complex/complex_gemm.hpp"

#include <algorithm>
#include <cmath>

#include "complex/blocking.hpp"
#include "complex/products.hpp"
#include "util/pow2.hpp"
#include "util/team.hpp"

namespace bf16x::complex {
namespace {

// x = m 2^e with m in [0.5, 1); 0, Inf and NaN as themselves with e = 0.
struct Pow2Split {
  double m;
  int e;
};
Pow2Split split_pow2(double x) {
  int e = 0;
  const double m = std::isfinite(x) && x != 0 ? std::frexp(x, &e) : x;
  return {m, e};
}

// y 2^e: exact where the result is normal, else one rounding (as ldexp).
double times_pow2(double y, int e) {
  if (e < -1022 || e > 1023) return std::ldexp(y, e);
  return y * util::pow2(e);
}

// The r x c block of C at (i0, j0) = alpha 2^(ea_i + eb_j) P' + beta C in FP64 with one rounding to T per part
// (beta = 0: C not read); P' is the FP64 block of ComplexProducts::p(), op(A) op(B) on operands scaled by 2^-ea_i
// per row and 2^-eb_j per column (complex_operands.hpp). Each part of alpha is m 2^e and its exponent joins
// ea_i + eb_j, as the real drivers fold alpha into their scales: fl(m P') 2^(e + ea_i + eb_j) is fl(alpha P) where
// that is normal, and no alpha P' or 2^(...) P' leaves the range before the result does. The same arithmetic per
// entry in both layouts.
template <typename T>
void combine(std::int64_t i0, std::int64_t r, std::int64_t j0, std::int64_t c, const Complex<T>& alpha, const double* p,
             const int* ea, const int* eb, const Complex<T>& beta, Complex<T>* cm, std::int64_t ldc, bool c_rows) {
  const Pow2Split ar = split_pow2(alpha.re), ai = split_pow2(alpha.im);
  const double br = beta.re, bi = beta.im;
  const bool read_c = br != 0 || bi != 0;
  // alpha's parts on the exponent of the larger (exact unless the smaller lies 2^1022 below it), for the entries
  // whose terms leave the range apart.
  const int top = alpha.im == 0 ? ar.e : alpha.re == 0 ? ai.e : std::max(ar.e, ai.e);
  const bool top_ok = std::isfinite(ar.m) && std::isfinite(ai.m);
  const double ar_top = times_pow2(ar.m, ar.e - top), ai_top = times_pow2(ai.m, ai.e - top);
  const double* pim = p + r * c;
  const auto entry = [&](std::int64_t i, std::int64_t j) {
    const double pr = p[i + j * r], pi = pim[i + j * r];
    const int s = ea[i0 + i] + eb[j0 + j];
    double re = times_pow2(ar.m * pr, ar.e + s) - times_pow2(ai.m * pi, ai.e + s);
    double im = times_pow2(ar.m * pi, ar.e + s) + times_pow2(ai.m * pr, ai.e + s);
    if (!(std::isfinite(re) && std::isfinite(im)) && top_ok) {
      // Terms that overflow apart give Inf - Inf = NaN: summed on alpha's larger exponent, a part overflows only
      // where it does, to the infinity of its sign.
      re = times_pow2(ar_top * pr - ai_top * pi, top + s);
      im = times_pow2(ar_top * pi + ai_top * pr, top + s);
    }
    Complex<T>& x = c_at<T>(cm, ldc, c_rows, i0 + i, j0 + j);
    if (read_c) {
      const double xr = x.re, xi = x.im;
      re += br * xr - bi * xi;
      im += br * xi + bi * xr;
    }
    x = Complex<T>{T(re), T(im)};
  };
  if (c_rows) {  // along C's rows, where it is contiguous
    util::for_each_index(r, r * c, [&](std::int64_t i) {
      for (std::int64_t j = 0; j < c; ++j) entry(i, j);
    });
  } else {
    util::for_each_index(c, r * c, [&](std::int64_t j) {
      for (std::int64_t i = 0; i < r; ++i) entry(i, j);
    });
  }
}

}  // namespace

template <typename T>
int gemm(int method, const ComplexOperand<T>& oa, const ComplexOperand<T>& ob, const Complex<T>& alpha,
         const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, bool c_rows, const RealGemm<T>& real, bool& done,
         std::size_t& workspace_bytes) {
  const OperandScan sa = scan_operand(oa, true), sb = scan_operand(ob, false);
  done = sa.finite && sb.finite;
  if (!done) return BF16X_OK;
  // The real GEMMs run on op(A) and op(B) scaled by powers of two per row and column (every part below 1, so P'
  // and 3M's sums stay in range); the write puts the scales back with alpha.
  ComplexOperand<T> pa = oa, pb = ob;
  pa.row_exp = sa.exps.data();
  pb.col_exp = sb.exps.data();
  const std::int64_t m = oa.rows, n = ob.cols;
  const ComplexBlocking bl = complex_blocking();
  const std::int64_t mb = std::min(bl.mb, m), nb = std::min(bl.nb, n), kb = std::min(bl.kb, oa.cols);
  ComplexProducts<T> prod(method, mb, nb, kb);
  for (std::int64_t j0 = 0; j0 < n; j0 += nb)
    for (std::int64_t i0 = 0; i0 < m; i0 += mb) {
      const std::int64_t r = std::min(mb, m - i0), cc = std::min(nb, n - j0);
      if (const int st = prod.block(pa, pb, i0, r, j0, cc, real); st != BF16X_OK) return st;
      combine<T>(i0, r, j0, cc, alpha, prod.p(), sa.exps.data(), sb.exps.data(), beta, c, ldc, c_rows);
    }
  workspace_bytes += prod.bytes();
  return BF16X_OK;
}

template int gemm<float>(int, const ComplexOperand<float>&, const ComplexOperand<float>&, const Complex<float>&,
                         const Complex<float>&, Complex<float>*, std::int64_t, bool, const RealGemm<float>&, bool&,
                         std::size_t&);
template int gemm<double>(int, const ComplexOperand<double>&, const ComplexOperand<double>&, const Complex<double>&,
                          const Complex<double>&, Complex<double>*, std::int64_t, bool, const RealGemm<double>&, bool&,
                          std::size_t&);

}  // namespace bf16x::complex
