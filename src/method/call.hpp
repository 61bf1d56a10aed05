// One normalised call as the methods take it: C = alpha op(A) op(B) + beta C on column-major operand views (a
// row-major operand read as its transpose), C column-major or row-major (c_rows: C(i, j) at c[i * ldc + j]); and the
// host GEMM of that call, plain or keeping the emulated modes' range.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "bf16x/bf16x.h"
#include "cr/cr_driver.hpp"
#include "driver/entry_repair.hpp"
#include "pack/operand.hpp"
#include "util/driver_status.hpp"

namespace bf16x::method {

// The host GEMM (host/host_blas.hpp) of the normalised call; false where it cannot run it.
template <typename T>
bool host_gemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
               const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, bool c_rows);

// Why the host GEMM could not run a call: no host BLAS at all, or one whose 32-bit interface cannot take the sizes.
int host_missing();

// A driver's status as the call's: nonfinite_input is none (the host GEMM then runs the call), the others are.
int call_status(util::DriverStatus s);

template <typename T>
struct Call {
  int transa, transb;
  std::int64_t m, n, k;
  T alpha;
  const T* a;
  std::int64_t lda;
  const T* b;
  std::int64_t ldb;
  T beta;
  T* c;
  std::int64_t ldc;
  bool c_rows;
  // Only this part of C (square then) is computed and written, by the methods whose row takes parts; the guard's
  // host GEMMs cannot keep to it, so a call that needs them is declined (kPartDeclined).
  pack::OutputPart part = pack::OutputPart::all;
  pack::LowerOperand a_lower{};  // op(A) lower triangular (TRMM's panels): the drivers skip its zero products
  pack::MatrixView<T> opa() const { return {a, lda, transa != BF16X_NO_TRANS}; }
  pack::MatrixView<T> opb() const { return {b, ldb, transb != BF16X_NO_TRANS}; }
  driver::RepairArgs<T> repair() const { return {k, alpha, opa(), opb(), beta, c, ldc, c_rows}; }
  pack::GemmArgs<T> args() const { return {m, n, k, alpha, opa(), opb(), beta, c, ldc, c_rows, part, a_lower}; }
  // The host GEMM for the whole call: BF16X_OK, or why it could not run.
  int host() const {
    return host_gemm<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, c_rows) ? int(BF16X_OK)
                                                                                              : host_missing();
  }
  // The host GEMM of a guarded call (guard=native, auto's native choice): in range where the unscaled call is not.
  // A row-major C runs column-major on a copy: the column-major host GEMM would compute it as C^T = op(B)^T op(A)^T,
  // whose bits differ, and the modes under the guard keep the emulation's promise of the same bits in both layouts.
  int host_guarded() const;
};

// A complex call as the methods with a complex path of their own take it (the correctly rounded one: each part of
// an entry from its two real dot products of length 2k together); the others run the complex layer over their real
// GEMM (api/complex_entry.cpp).
template <typename T>
using ComplexCall = cr::ComplexArgs<T>;

}  // namespace bf16x::method
