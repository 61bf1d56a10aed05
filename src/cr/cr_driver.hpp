// The correctly rounded modes (fp64cr, fp32cr): every entry of C is RN(alpha op(A) op(B) + beta C), the exact
// value rounded once to T (docs/numerics.md "Correctly rounded modes"). Double-double (FP64) or FMA (FP32) tile
// sums with a rigorous error bound decide almost every entry; the exact sum decides the rest. The result depends
// on nothing but the operands: not on the kernels, the blocking, the thread count or the layout.
#pragma once
#include <cstddef>
#include <cstdint>

#include "cpu/features.hpp"
#include "pack/operand.hpp"
#include "util/driver_status.hpp"
#include "util/phase_times.hpp"

namespace bf16x::cr {

struct CrConfig {
  // The tile sums' vector level (cr/tile_sums.hpp), at most the CPU's: generic on the reference engine, avx2 on
  // the avx2 engine, else the widest this CPU runs.
  cpu::Level level = cpu::Level::avx512;
  bool timed = true;  // the phases' times per tile (stats or a verbose line want them)
  // out
  std::uint64_t exact_entries = 0;  // entries the tile sums could not decide: rounded from their exact value
  std::uint64_t micro_tiles = 0;
  std::size_t workspace_bytes = 0;
  util::PhaseTimes phases;
};

// nonfinite_input: alpha or beta (beta != 0) NaN or Inf, for the host GEMM (nothing written). NaN and Inf in op(A)
// or op(B) give their entries IEEE's NaN and Inf; the others stay correctly rounded. Throws std::bad_alloc before
// anything is written.
template <typename T>
util::DriverStatus gemm_cr(const pack::GemmArgs<T>& g, CrConfig& cfg);

// A complex GEMM, C = alpha op(A) op(B) + beta C on interleaved (re, im) data: each part of each entry correctly
// rounded, RN(Re(alpha op(A) op(B) + beta C)) and RN(Im(...)), from the two real dot products of length 2k that
// make up (op(A) op(B))_ij (4M with the k-sums joined, so that nothing is rounded in between).
template <typename T>
struct ComplexArgs {
  std::int64_t m, n, k;
  const T* a;  // element (i, l) of op(A) at a[2 (trans ? l + i lda : i + l lda)] (+1: Im, negated where conj)
  std::int64_t lda;
  bool a_trans, a_conj;
  const T* b;
  std::int64_t ldb;
  bool b_trans, b_conj;
  double alpha[2], beta[2];  // (re, im); beta == 0: C not read
  T* c;
  std::int64_t ldc;
  bool c_rows;
};
template <typename T>
util::DriverStatus gemm_cr_complex(const ComplexArgs<T>& g, CrConfig& cfg);

// The textbook vectorised double-double GEMM (Dot2 tile sums, C = alpha (s + c) + beta C, finite inputs, rounded
// twice and not checked): the bench's baseline for the correctly rounded modes, in the same blocking and packing.
void dd_gemm(const pack::GemmArgs<double>& g, CrConfig& cfg);

// The workspace gemm_cr reserves for an m x n x k call on `threads` threads with the kernels of `level`.
std::size_t cr_workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, int threads, cpu::Level level);

}  // namespace bf16x::cr
