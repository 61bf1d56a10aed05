// One checked column-major GEMM: the reference quick return, the mode choice (BF16X_SGEMM_MODE/BF16X_DGEMM_MODE,
// BF16X_MIN_SIZE, BF16X_ENGINE, as for the C API), then either the emulation through the bf16x library or the next
// definition, which is the host routine the program would have called. BF16X_VERBOSE lines come from the library
// for emulated calls and from here for forwarded ones, in the library's format.
#pragma once
#include <chrono>
#include <string>

#include "api/verbose.hpp"
#include "bf16x/bf16x.h"
#include "blas/arg_check.hpp"
#include "blas/reentry.hpp"

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

// Runs the emulation; false if the library declined (then the call goes native).
bool emulate(const GemmCall<float>& g, int mode, int* status);
bool emulate(const GemmCall<double>& g, int mode, int* status);

// The library's own native path (its host BLAS handle), for a process with no other definition of the routine.
void native_via_library(const GemmCall<float>& g);
void native_via_library(const GemmCall<double>& g);

// ",key=value" of a forwarded call's verbose line: why it ran native (empty if it was asked to).
std::string forwarded_why(const GemmShape& s, bool is_double, int declined_status);
// The verbose line of a forwarded call as the caller made it, without alpha and beta.
api::VerboseCall forwarded_call(const GemmShape& s, bool row_major, bool is_double, const void* fn, int declined_status,
                                double seconds);
void verbose_forwarded(const GemmShape& s, bool row_major, bool is_double, double alpha, double beta, const void* fn,
                       int declined_status, double seconds);
bool verbose();  // a line or the summary wants this call (api::verbose_wanted)
// The verbose line of a call the argument checks rejected (mode and engine "-", the status of the bad argument):
// fortran_info is the Fortran XGEMM argument number, 0 for a bad CBLAS layout.
void verbose_rejected(bool is_double, bool row_major, char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k,
                      std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta,
                      int fortran_info);

// A call that must run on the host (re-entered from a host library, or native) where the process has no host
// routine at all: says so and aborts rather than leave C unset.
[[noreturn]] void no_next_definition(const char* name);

// forward() calls the next definition with the caller's own arguments and returns it, or nullptr if there is none.
template <typename T, typename Forward>
void dispatch(const GemmCall<T>& g, Forward&& forward) {
  constexpr bool is_double = sizeof(T) == sizeof(double);
  const GemmShape& s = g.s;
  if (s.m == 0 || s.n == 0 || ((g.alpha == T(0) || s.k == 0) && g.beta == T(1))) return;
  const ShimScope scope;
  if (g.alpha == T(0) || s.k == 0) {
    // C = beta * C by the library itself: some host kernels (OpenBLAS 0.3.21's SkylakeX/Cooperlake small-matrix
    // path) read A and B even when alpha is zero, so a NaN there would reach C.
    native_via_library(g);
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
  if (verbose())
    verbose_forwarded(s, g.row_major, is_double, double(g.alpha), double(g.beta), fn, declined,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace bf16x::blas
