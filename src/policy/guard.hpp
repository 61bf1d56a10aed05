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
//   2. digits (method/guard_check.hpp): one INT8 GEMM of the digits D(x) = ceil(127 |x^|) (at least 1 for x != 0),
//   exact in int32, gives
//      H_ij = sum_l D(a_il) D(b_lj), zero exactly when P_ij is, and, since D <= 127 |x^| + 1 on nonzeros,
//          127^2 P_ij / S_ij >= H_ij - 127 (||a^_i:||_1 + ||b^_:j||_1) - k,   and n_ij <= min(k, H_ij):
//      the entries where that lower bound does not prove (Bound) <= tau P_ij are listed for repair.
#pragma once
#include <cstdint>

namespace bf16x::policy {

// The terms of (Bound) for a mode; all zero for a mode without one (fp32x6, native).
struct EntryBound {
  double c_prod = 0, c_norm = 0, c_entry = 0, c_rel = 0;
  bool valid = false;
};
EntryBound entry_bound(int mode, std::int64_t k, int block_k);

// The bits every row of op(A) and column of op(B) keeps below its largest magnitude in a CRT mode at depth k, under
// either scaling: sigma = floor((L - ceil(log2 k) - 1) / 2) (docs/numerics.md, "CRT modes"); 0 for other modes.
int crt_sigma(int mode, std::int64_t k);

// The guard's target: 4 k u, u the unit roundoff of the routine.
double guard_target(bool is_double, std::int64_t k);

// Level 1: every entry proved from the fill ratio R (policy::fill_ratio).
bool envelope_proves(const EntryBound& e, std::int64_t k, double fill_ratio, double tau);

}  // namespace bf16x::policy
