// The componentwise guard of the fixed-point emulation modes (docs/numerics.md, "Componentwise guard").
//
// Native GEMM keeps |C - AB|_ij <= gamma_k (|A||B|)_ij. A fixed-point mode (fp64x<d>, fp64c<N>, fp32c<N>) bounds
// its error by the scales of row i of op(A) and column j of op(B) instead. With S_ij = 2^(ea_i + eb_j) (max |a_i:|
// in [2^(ea_i - 1), 2^ea_i)), a^ = a 2^-ea, b^ = b 2^-eb, n_ij <= k the products with both factors nonzero and
// P_ij = (|A||B|)_ij, every such mode obeys
//
//     |C - AB|_ij <= S_ij (c_prod n_ij + c_norm (||a^_i:||_1 + ||b^_:j||_1) + c_entry) + c_rel P_ij      (Bound)
//
// (EntryBound below; an entry whose products are all zero is exact: zero entries split into zero slices and zero
// residues). The guard proves (Bound) <= tau P_ij entry by entry and names the entries where it cannot:
//   1. envelope: the fill ratio R >= k S_ij / P_ij of policy/error_model.hpp (one pass over each operand) proves
//      every entry at once where R (c_prod + 2 c_norm + c_entry / k) + c_rel <= tau; uniform data stops here;
//   2. digits: one INT8 GEMM of the digits D(x) = ceil(127 |x^|) (at least 1 for x != 0), exact in int32, gives
//      H_ij = sum_l D(a_il) D(b_lj), zero exactly when P_ij is, and, since D <= 127 |x^| + 1 on nonzeros,
//          127^2 P_ij / S_ij >= H_ij - 127 (||a^_i:||_1 + ||b^_:j||_1) - k,   and n_ij <= min(k, H_ij):
//      the entries where that lower bound does not prove (Bound) <= tau P_ij are listed for repair.
#pragma once
#include <cstdint>
#include <vector>

#include "driver/entry_repair.hpp"
#include "engine/int8_kernel.hpp"
#include "pack/operand.hpp"

namespace bf16x::policy {

// The terms of (Bound) for a mode; all zero for a mode without one (fp32x6, native).
struct EntryBound {
  double c_prod = 0, c_norm = 0, c_entry = 0, c_rel = 0;
  bool valid = false;
};
EntryBound entry_bound(int mode, std::int64_t k, int block_k);

// The guard's target: 4 k u, u the unit roundoff of the routine.
double guard_target(bool is_double, std::int64_t k);

// Level 1: every entry proved from the fill ratio R (policy::fill_ratio).
bool envelope_proves(const EntryBound& e, std::int64_t k, double fill_ratio, double tau);

// Entries (i, j) of C the digit product could not prove, column by column (j, then i ascending).
using Entry = driver::EntryIndex;

struct GuardCheck {
  bool nonfinite = false;      // NaN or Inf in op(A) or op(B): nothing else was measured
  bool complete = true;        // false: stopped once more than `limit` entries failed (the caller goes native)
  std::vector<Entry> failing;  // sorted by (j, i)
  std::uint64_t micro_tiles = 0;
};

// The per-line state of level 2 (scale exponents, 1-norms), allocated before any operand is read, so that a call
// whose lines cannot even be described fails before it touches A or B, as the drivers do.
struct GuardLines {
  std::vector<int> ea, eb;
  std::vector<double> na, nb;
  GuardLines(std::int64_t m, std::int64_t n)
      : ea(std::size_t(m)), eb(std::size_t(n)), na(std::size_t(m)), nb(std::size_t(n)) {}
};

// The scale exponents of the rows of op(A) and the columns of op(B) (max |x| in [2^(e-1), 2^e), 0 for a zero
// line) and upper bounds of their scaled 1-norms, into `lines`: true (and nothing else measured) on NaN or Inf.
template <typename T>
bool scan_lines(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                std::int64_t k, GuardLines& lines);

// Level 2 for op(A) (m x k) and op(B) (k x n) on the INT8 engine `engine` (its thread_begin called on every
// thread): the entries that fail (Bound) <= tau P_ij, at most limit + 1 of them. Throws std::bad_alloc.
template <typename T>
GuardCheck check_entries(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                         std::int64_t k, const EntryBound& bound, double tau, const engine::int8::Engine& engine,
                         std::uint64_t limit, GuardLines& lines);

}  // namespace bf16x::policy
