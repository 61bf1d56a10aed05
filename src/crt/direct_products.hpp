// The CRT products of a tiny call without the INT8 engine: where op(A) and op(B) are a few dozen values each, the
// N residue GEMMs run on 32 x 32 tiles 64 deep that are mostly padding, and forming every operand's N residues
// costs more than the products themselves. Here the scaled integer operands are multiplied exactly in 128-bit
// integers and only the results are reduced: X_ij's residues are unique, so the CRT that follows (the same code)
// gives the same bits as the blocked path. Likewise the bound pass's H = digits(A) digits(B), exactly in FP64.
#pragma once
#include <cstddef>
#include <cstdint>

#include "crt/moduli.hpp"

namespace bf16x::crt {

// The most m n k, lines of either operand and depth for the direct products; and the most moduli (|X| <= P / 4 must
// fit 128-bit integers: P < 2^127 for up to 16 of them). The work limit is where the 128-bit products stop being
// the cheaper way (fp64c15, one thread, AVX-512 VNNI engine: 15^3 3.4 us faster, 16^3 0.6 us slower;
// docs/performance.md).
inline constexpr std::int64_t kDirectWork = 3375;
inline constexpr int kDirectLines = 32, kDirectModuli = 16;

inline bool direct_fits(std::int64_t m, std::int64_t n, std::int64_t k, int moduli) {
  return moduli <= kDirectModuli && m <= kDirectLines && n <= kDirectLines && k <= kDirectLines &&
         m * n * k <= kDirectWork;
}

// The scratch of a direct call, in the call's workspace (not the stack: a caller's thread may have a small one):
// op(A') and op(B') (or their digits), X in three parts, and op(A'), op(B') as 64-bit integers.
struct DirectScratch {
  static constexpr std::size_t kLineValues = std::size_t(kDirectLines) * kDirectLines;
  static constexpr std::size_t kBytes = 7 * kLineValues * sizeof(double);
  double* a;           // kLineValues
  double* b;           // kLineValues
  double* x;           // 3 kLineValues
  std::int64_t* ints;  // 2 kLineValues
  explicit DirectScratch(void* p)
      : a(static_cast<double*>(p)),
        b(a + kLineValues),
        x(b + kLineValues),
        ints(reinterpret_cast<std::int64_t*>(x + 3 * kLineValues)) {}
};

// a: m rows of k integer-valued doubles (op(A')), b: n columns of k (op(B')), with |sum_l a_il b_lj| <= P / 4 and
// every |a_il b_lj| below 2^125: the symmetric residue of X_ij = sum_l a_il b_lj modulo p_t into
// res[t plane + i row + j], as the products pass leaves them (residue_rows). x, ints: DirectScratch's.
void direct_residues(const double* a, const double* b, int m, int n, int k, const CrtPlan& plan, std::int8_t* res,
                     std::size_t plane, std::size_t row, double* x, std::int64_t* ints);

// da: m rows of k digits, db: n columns of k (values <= 64): hrow[i] = max(hrow[i], max_j H_ij) and hcol[j] likewise,
// H = da db exactly (the bound pass's maxima).
void digit_maxima(const double* da, const double* db, int m, int n, int k, double* hrow, double* hcol);

}  // namespace bf16x::crt
