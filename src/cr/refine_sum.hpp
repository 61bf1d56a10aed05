// A cheaper first try at the exact value of an undecided entry (LAPACK's residuals A - L U, B - A X: values a few
// ulps of their terms), before the extraction (cr/extract_sum.hpp): the dot product of two tame scaled lines as four
// doubles whose exact sum lies within a rigorous `slack` of it - zero on most data, where the parts are the exact
// value - from one pass of about twenty vector operations per product against the extraction's thirty-odd. The
// rounding from those parts (RoundParts with the slack) decides the entry unless it lies within the slack of a
// rounding boundary (or is a tie); the extraction takes the rest.
//
// With t~ the tile's sum of |a||b| (its FMAs: t~ >= (1 - gamma_k) t, t the exact one) and k u <= 0.01, each chain a
// biased FastTwoSum sum (its bias a power of two above 4.1 times a bound on the sum of |terms|, so every partial sum
// stays within 0.75 .. 1.25 of the bias, above every term: each step exact, the bias taken off exactly, Sterbenz):
// - s: the products p_l = RN(a_l b_l) from sigma = 2 power(4.1 t~) in (4.1 t~, 8.2 t~] (sum |p| <= 1.011 t~); its
//   errors f_l at most u sigma each;
// - h_e, h_f: the TwoProd errors e_l (exact: no tame product underflows; sum |e| <= 1.02 u t~) from sigma_e = 2
//   power(4.1 1.02 u t~), the f_l (sum <= k u sigma) from sigma_f = 2 power(4.1 k u sigma); their errors g at most
//   u sigma_e (u sigma_f) each;
// - h_l: the 2k errors g from sigma_l = 2 power(4.1 k u (sigma_e + sigma_f)); its errors g2 at most u sigma_l.
// So sum a b = (s - sigma) + (h_e - sigma_e) + (h_f - sigma_f) + (h_l - sigma_l) + sum g2 exactly, and the four
// parts miss it by at most |sum g2| <= 2 k max |g2| = slack (at most 2 k u sigma_l, about 2^-132 t~ at k = 50, where
// a value at u t~ needs 2^-105 t~), zero where every g2 is (the errors' errors fit h_l's grid: products' errors with a
// few bits fewer than 53 below their leading one, as LAPACK's data has). Lanes whose t~ lies below 2^-800 are left out
// (the biases and the parts stay normal there: no underflow). The pass first only ors the g2 together (is any
// nonzero?) and runs again for their largest magnitude on a row where one is; where the ISA's multipliers and adders
// are separate units (kAddsOnFma: AVX-512), six of its fifteen additions a product are FMAs with 1, which round as
// they do.
#pragma once
#include <cstdint>

namespace bf16x::cr {

constexpr int kRefinedParts = 4;

// ExtractRow's lanes (the A panel's row against the B panel's columns whose bit is set in `lanes`; t: the tile's t
// of those entries, t[j] for column j): column j's part q at parts[q kMaxLanes + j] (a vector per part), most
// significant first, zeros included, its slack at slack[j] (< 0: left out, no parts).
using RefineRow = void (*)(const double* a, std::int64_t sa, const double* b, std::int64_t k, unsigned lanes,
                           const double* t, double* parts, double* slack);

}  // namespace bf16x::cr
