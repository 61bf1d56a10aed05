// P = op(A) op(B) for complex operands from real GEMMs of their parts (docs/accuracy.md, "Complex GEMM"):
//   4M: one real GEMM of the block operands [Ar Ai] (m x 2k) and [[Br, Bi], [-Bi, Br]] (2k x 2n), giving
//       [Re P | Im P] = [ArBr - AiBi | ArBi + AiBr]: four products' work, each part within the real mode's bound
//       on the 2k-term real dot products;
//   3M: Karatsuba, three real GEMMs T1 = Ar Br, T2 = Ai Bi, T3 = (Ar + Ai)(Br + Bi): Re P = T1 - T2,
//       Im P = T3 - T1 - T2, 3/4 of the work, with T3's error relative to |Ar + Ai||Br + Bi|.
#pragma once
#include <cstdint>

#include "api/complex_operands.hpp"
#include "api/real_gemm.hpp"

namespace bf16x::api {

struct ComplexProduct {
  int method = BF16X_COMPLEX_4M;  // that ran (3M falls back to 4M where Ar + Ai or Br + Bi overflows)
  bool nonfinite = false;         // op(A) or op(B) holds NaN/Inf: nothing computed, the host GEMM classifies them
};

// op(A) is m x k, op(B) k x n (both given as ComplexOperand); writes Re P to p and Im P to p + m n (column-major,
// ld m). Real GEMMs run under opt (alpha 1, beta 0), their outcomes merged into out. Returns a bf16x_status.
template <typename T>
int complex_product(int method, const ComplexOperand<T>& a, const ComplexOperand<T>& b, T* p, const bf16x_options& opt,
                    Outcome& out, ComplexProduct& done);

}  // namespace bf16x::api
