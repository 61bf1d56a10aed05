// Moduli and CRT constants of the INT8 Ozaki scheme II modes (fp64c<N>, fp32c<N>).
//
// The moduli are the first N of 256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193,
// 191, 181, 179, 173: pairwise coprime (256 = 2^8, 255 = 3.5.17, 253 = 11.23, 247 = 13.19, 217 = 7.31, the rest
// prime), each <= 256, so every symmetric residue fits an int8 and a product of two is at most 2^14.
//
// Reconstruction (docs/numerics.md, "CRT modes"): with P = prod p_t and q_t = (P/p_t) ((P/p_t)^-1 mod p_t) < P,
// an integer X with |X| <= P/4 is X = S - K P for S = sum_t r_t q_t (r_t = X mod p_t, symmetric) and K = round(S/P).
// q_t = q1_t + q2_t with q1_t a multiple of 2^g of at most 41 bits (g = max(0, bits(P) - 41)) so that
// S1 = sum_t r_t q1_t is exact in FP64 (|r_t| <= 128, N <= 20: |S1| < 2^53 2^g); P = P1 + P2 likewise, K < 2^12 and
// K P1 and S1 - K P1 are exact; the only rounding errors are in S2 = sum r_t q2_t and K P2, together below
// 2^(g-36) in absolute value. The exact way (reconstruct_row_exact) takes q_t - q1_t and P - P1 in three chunks
// of at most 40 bits instead, so that its sums and differences are exact too and only the last sum rounds.
#pragma once
#include <cstdint>

namespace bf16x::crt {

inline constexpr int kMaxModuli = 20;
inline constexpr int kModuli[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                            223, 217, 211, 199, 197, 193, 191, 181, 179, 173};

struct CrtPlan {
  int n = 0;  // number of moduli
  double p[kMaxModuli] = {}, invp[kMaxModuli] = {};
  double hi[kMaxModuli] = {}, lo[kMaxModuli] = {};  // symmetric residue range [lo, hi]
  double two32[kMaxModuli] = {};                    // 2^32 modulo p_t, symmetric (the residues' split way)
  // 2^(8i) modulo p_t in [0, p_t), i < 8, as bytes: i < 4 in byte_weights[t][0], the rest in [1] (the residues'
  // digit way, crt_loops_impl.hpp)
  std::uint32_t byte_weights[kMaxModuli][2] = {};
  float pf[kMaxModuli] = {}, invpf[kMaxModuli] = {};  // p_t and fl32(1 / p_t) (the digit way's FP32 reduction)
  double q1[kMaxModuli] = {}, q2[kMaxModuli] = {};    // CRT weights q_t = q1_t + q2_t (+ less than 2^(g-53))
  double P1 = 0, P2 = 0, invP = 0;                    // P = P1 + P2 (+ less than 2^(g-53)), 1/P
  int bits = 0;                                       // bit length of P
  int g = 0;                                          // grid of q1 and P1
  int L = 0;                                          // budget: the scaling keeps sum_l |A'_il| |B'_lj| <= 2^L <= P/4
  // The exact way's chunks: bits [max(0, g - 40 (c + 1)), max(0, g - 40 c)) of q_t and of P (g <= 120: they cover
  // every bit below 2^g).
  double qx[3][kMaxModuli] = {}, Px[3] = {};
};

// The plan for n moduli, 1 <= n <= kMaxModuli (computed once, exactly, in multiword integer arithmetic).
const CrtPlan& crt_plan(int n);

// log2 of P for n moduli (for error models and docs).
double log2_modulus_product(int n);

}  // namespace bf16x::crt
