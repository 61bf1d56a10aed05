// A cheaper first try at the exact value of an undecided entry (LAPACK's residuals A - L U, B - A X: values a few
// ulps of their terms), before the extraction (cr/extract_sum.hpp): the dot product of two tame scaled lines as five
// doubles whose exact sum lies within a rigorous `slack` of it, from one pass of about thirteen vector operations per
// product against the extraction's thirty-odd. The rounding from those parts (RoundParts with the slack) decides the
// entry unless it lies within the slack of a rounding boundary (an exact zero, a tie); the extraction takes the rest.
//
// With t~ the tile's sum of |a||b| (its FMAs: t~ >= (1 - gamma_k) t, t the exact one) and k u <= 0.01:
// - s: the biased sum of the products p_l = RN(a_l b_l) from sigma = 2 power(4.1 t~) in (4.1 t~, 8.2 t~]: s stays in
//   [0.75 sigma, 1.25 sigma], above every |p_l| (sum |p| <= 1.011 t~), so each FastTwoSum is exact and s - sigma is
//   exact (Sterbenz); its errors f_l, at most u sigma each.
// - The TwoProd errors e_l (exact: no tame product underflows; sum |e| <= 1.02 u t~) and the f_l (sum <= k u sigma)
//   in two more biased FastTwoSum chains, from sigma_e = 2 power(4.1 1.02 u t~) and sigma_f = 2 power(4.1 k u
//   sigma): each exact, their errors g at most u sigma_e (u sigma_f) each, summed in floating point into l_e (l_f).
// So sum a b = (s - sigma) + (h_e - sigma_e) + (h_f - sigma_f) + sum g_e + sum g_f exactly, and l_e + l_f misses the
// two sums of g by at most gamma_k k u (sigma_e + sigma_f) = slack, about 2^-134 t~ at k = 50 (a value at u t~ needs
// 2^-105 t~). Lanes whose t~ lies below 2^-800 are left out (slack and the parts stay normal there: no underflow).
#pragma once
#include <cstdint>

namespace bf16x::cr {

constexpr int kRefinedParts = 5;

// ExtractRow's lanes (the A panel's row against the B panel's columns whose bit is set in `lanes`; t: the tile's t
// of those entries, t[j] for column j): column j's parts at parts[j kRefinedParts ...], most significant first,
// zeros included, its slack at slack[j] (< 0: left out, no parts).
using RefineRow = void (*)(const double* a, std::int64_t sa, const double* b, std::int64_t k, unsigned lanes,
                           const double* t, double* parts, double* slack);

}  // namespace bf16x::cr
