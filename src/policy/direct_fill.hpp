// The fill ratio of a tiny call from its products: R = max_ij k 2^(Ea_i + Eb_j) / (|A||B|)_ij (policy/error_model.hpp)
// bounded from |A||B| itself, formed in FP64 on the scaled operands, instead of from the two fill envelopes. For a
// call of a few hundred multiply-adds this costs less than the envelopes' passes (13k instructions at 8 x 8 x 8,
// most of a guarded tiny call's time) and bounds R tightly where the envelope's rearrangement bound is pessimistic.
#pragma once
#include <cstdint>

#include "pack/operand.hpp"

namespace bf16x::policy {

// Calls of at most this many multiply-adds (m n k) take the direct bound (its cost grows with m n k, the
// envelopes' with (m + n) k and a fixed part).
inline constexpr double kDirectFillWork = 4096;

// An upper bound of R over the entries with a nonzero (|A||B|)_ij; 0 when there is none (C = beta C exactly), +inf
// where a line holds a nonzero entry more than 2^500 below its largest (the sums below would not tell a zero
// (|A||B|)_ij from an underflow). nonfinite: a NaN or Inf in op(A) or op(B) (nothing else meaningful). The sums s_ij
// of |v_il| |w_lj| (v = a 2^-Ea, w = b 2^-Eb, in [0, 1)) are formed in FP64, each within (1 + gamma_k) of its exact
// value.
template <typename T>
double direct_fill_ratio(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                         std::int64_t k, bool& nonfinite);

}  // namespace bf16x::policy
