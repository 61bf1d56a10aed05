// One checked column-major complex GEMM (CGEMM/ZGEMM): the reference quick return, the mode of the real routine of
// the same precision (BF16X_SGEMM_MODE for CGEMM, BF16X_DGEMM_MODE for ZGEMM, BF16X_MIN_SIZE, BF16X_ENGINE), then
// the emulation through bf16x_cgemm_ex/bf16x_zgemm_ex or the next definition, as dispatch.hpp does for the real
// routines.
#pragma once
#include <chrono>

#include "bf16x/bf16x.h"
#include "blas/arg_check.hpp"
#include "blas/dispatch.hpp"
#include "blas/reentry.hpp"

namespace bf16x::blas {

template <typename C>  // bf16x_complex_float or bf16x_complex_double
struct ComplexGemmCall {
  GemmShape s;
  C alpha;
  const C* a;
  const C* b;
  C beta;
  C* c;
  bool row_major = false;  // a CBLAS row-major call, held here as its column-major C^T = B^T A^T
};

bool emulate(const ComplexGemmCall<bf16x_complex_float>& g, int mode, int* status);
bool emulate(const ComplexGemmCall<bf16x_complex_double>& g, int mode, int* status);
void native_via_library(const ComplexGemmCall<bf16x_complex_float>& g);
void native_via_library(const ComplexGemmCall<bf16x_complex_double>& g);

void verbose_forwarded_complex(const GemmShape& s, bool row_major, bool is_double, const double alpha[2],
                               const double beta[2], const void* fn, int declined_status, double seconds);

template <typename C, typename Forward>
void dispatch_complex(const ComplexGemmCall<C>& g, Forward&& forward) {
  constexpr bool is_double = sizeof(C) == 2 * sizeof(double);
  const GemmShape& s = g.s;
  const bool alpha_zero = g.alpha.re == 0 && g.alpha.im == 0, beta_one = g.beta.re == 1 && g.beta.im == 0;
  if (s.m == 0 || s.n == 0 || ((alpha_zero || s.k == 0) && beta_one)) return;
  const ShimScope scope;
  if (alpha_zero || s.k == 0) {
    native_via_library(g);  // C = beta C by the library, A and B unread (see dispatch.hpp)
    return;
  }
  const int mode = emulation_mode(s, is_double);
  int declined = 0;
  if (mode != BF16X_MODE_NATIVE && emulate(g, mode, &declined)) return;
  const auto t0 = std::chrono::steady_clock::now();
  const void* fn = forward();
  if (!fn) {
    native_via_library(g);
    return;
  }
  if (verbose()) {
    const double alpha[2] = {double(g.alpha.re), double(g.alpha.im)}, beta[2] = {double(g.beta.re), double(g.beta.im)};
    verbose_forwarded_complex(s, g.row_major, is_double, alpha, beta, fn, declined,
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
}

}  // namespace bf16x::blas
