// One checked column-major GEMM of any call type (call_type.hpp): the reference quick return, the mode choice
// (BF16X_SGEMM_MODE/BF16X_DGEMM_MODE, CGEMM and ZGEMM on those of their precision, BF16X_MIN_SIZE, BF16X_ENGINE, as
// for the C API), then either the emulation through the bf16x library or the next definition, which is the host
// routine the program would have called. BF16X_VERBOSE lines come from the library for emulated calls and from here
// for forwarded and rejected ones, in the library's format.
#pragma once
#include <chrono>
#include <cstdint>

#include "bf16x/bf16x.h"
#include "blas/arg_check.hpp"
#include "blas/call_type.hpp"
#include "blas/level3_check.hpp"
#include "blas/reentry.hpp"
#include "blas/xerbla.hpp"
#include "report/verbose.hpp"

namespace bf16x::blas {

template <typename T>
struct GemmCall {
  GemmShape s;
  T alpha;
  const T* a;
  const T* b;
  T beta;
  T* c;
  bool row_major = false;  // a CBLAS row-major call, held here as its column-major C^T = B^T A^T
};

// The mode for this call: native, an emulation mode, or auto where the cost model lets emulation win (the
// library then decides from the operands and may still run native).
int emulation_mode(const GemmShape& s, bool is_double);

inline bf16x_transpose to_api(char t) { return t == 'N' ? BF16X_NO_TRANS : t == 'T' ? BF16X_TRANS : BF16X_CONJ_TRANS; }

// The call through the library in mode; its status. A row-major call goes to the library as the caller made it (A,
// B, m, n back in place), so that its emulated result has the bits of the C API on the same arguments and of the
// column-major call of the same product (docs/numerics.md, Reproducibility); C^T = B^T A^T would swap the real
// products' row and column scales.
template <typename T>
int run(const GemmCall<T>& g, int mode) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  const GemmShape& s = g.s;
  if (g.row_major)
    return CallType<T>::gemm_ex(BF16X_ROW_MAJOR, to_api(s.transb), to_api(s.transa), s.n, s.m, s.k, g.alpha, g.b, s.ldb,
                                g.a, s.lda, g.beta, g.c, s.ldc, &o);
  return CallType<T>::gemm_ex(BF16X_COL_MAJOR, to_api(s.transa), to_api(s.transb), s.m, s.n, s.k, g.alpha, g.a, s.lda,
                              g.b, s.ldb, g.beta, g.c, s.ldc, &o);
}

// A call that must run on the host (re-entered from a host library, or native) where the process has no host
// routine at all: says so and aborts rather than leave C unset.
[[noreturn]] void no_next_definition(const char* name);

// The library's own native path (its host BLAS handle), for a process with no other definition of the routine.
template <typename T>
void native_via_library(const GemmCall<T>& g) {
  if (run(g, BF16X_MODE_NATIVE) != BF16X_OK) no_next_definition(CallType<T>::name);
}

bool verbose();  // a line or the summary wants this call (report::verbose_wanted)

// A verbose line's routine, alpha and beta; the callers below fill in the rest.
template <typename T>
report::VerboseCall verbose_call(const T& alpha, const T& beta) {
  report::VerboseCall v{};
  v.is_double = is_double<T>;
  v.is_complex = is_complex<T>;
  v.alpha = real_part(alpha), v.alpha_im = imag_part(alpha);
  v.beta = real_part(beta), v.beta_im = imag_part(beta);
  return v;
}
// The line of a forwarded call as the caller made it (fn: the definition that ran it).
void verbose_forwarded(report::VerboseCall v, const GemmShape& s, bool row_major, const void* fn, int declined_status,
                       double seconds);
// The line of a call the argument checks rejected (mode and engine "-", the status of the bad argument), with the
// caller's arguments: fortran_info is the Fortran XGEMM argument number, 0 for a bad CBLAS layout. The status
// names the argument as the error report does (reported: "lda too small (DGEMM argument 8)"), not by the C API's
// numbering, so that the line and the XERBLA message agree.
void verbose_rejected(report::VerboseCall v, bool row_major, char ta, char tb, std::int64_t m, std::int64_t n,
                      std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc, int fortran_info,
                      const ReportedArgument& reported);

// The shim's lines for the level-3 calls it forwards or rejects (level3_entry.hpp), in the library's format: the call
// as the caller made it (forwarded: level3_library_call; rejected: its arguments as read, bad: the one refused).
void verbose_level3_forwarded(report::VerboseCall v, const Level3Spec& r, const Level3LibraryCall& call, const void* fn,
                              int declined_status, double seconds);
void verbose_level3_rejected(report::VerboseCall v, const Level3Spec& r, const Level3Shape& s, bool row_major, Arg bad,
                             const ReportedArgument& reported);

// forward() calls the next definition with the caller's own arguments and returns it, or nullptr if there is none.
template <typename T, typename Forward>
void dispatch(const GemmCall<T>& g, Forward&& forward) {
  const GemmShape& s = g.s;
  const bool alpha_zero = real_part(g.alpha) == 0 && imag_part(g.alpha) == 0;
  const bool beta_one = real_part(g.beta) == 1 && imag_part(g.beta) == 0;
  if (s.m == 0 || s.n == 0 || ((alpha_zero || s.k == 0) && beta_one)) return;
  const ShimScope scope;
  if (alpha_zero || s.k == 0) {
    // C = beta * C by the library itself: some host kernels (OpenBLAS 0.3.21's SkylakeX/Cooperlake small-matrix
    // path) read A and B even when alpha is zero, so a NaN there would reach C.
    native_via_library(g);
    return;
  }
  const int mode = emulation_mode(s, is_double<T>);
  int declined = BF16X_OK;  // or the library's status where it declined the emulation
  if (mode != BF16X_MODE_NATIVE) {
    declined = run(g, mode);
    if (declined == BF16X_OK) return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const void* fn = forward();
  if (!fn) {
    native_via_library(g);
    return;
  }
  if (verbose())
    verbose_forwarded(verbose_call(g.alpha, g.beta), s, g.row_major, fn, declined,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace bf16x::blas
