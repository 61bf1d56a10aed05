// P = op(A) op(B) for complex operands from real GEMMs of their parts (docs/accuracy.md, "Complex GEMM"), one
// block of C at a time (complex/blocking.hpp):
//   4M: one real GEMM of the block operands [Ar Ai] (m x 2k) and [[Br, Bi], [-Bi, Br]] (2k x 2n), giving
//       [Re P | Im P] = [ArBr - AiBi | ArBi + AiBr]: four products' work, each part within the real mode's bound
//       on the 2k-term real dot products;
//   3M: Karatsuba, three real GEMMs T1 = Ar Br, T2 = Ai Bi, T3 = (Ar + Ai)(Br + Bi): Re P = T1 - T2,
//       Im P = T3 - T1 - T2, 3/4 of the work, with T3's error relative to |Ar + Ai||Br + Bi|.
// The inner dimension runs in chunks of at most kb: the real GEMM of the first chunk writes the FP64 P block, each
// later one is added to it in FP64 (one rounding per chunk; for cgemm the FP32 product of the chunk is rounded to
// FP32 first, as the unchunked product was).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "complex/operands.hpp"
#include "complex/real_gemm.hpp"

namespace bf16x::complex {

template <typename T>
class ComplexProducts {
 public:
  // Workspace for blocks of up to mb x nb and chunks of up to kb, allocated here (std::bad_alloc before anything
  // is computed). method: BF16X_COMPLEX_4M or BF16X_COMPLEX_3M (3M's sums are finite: the operands come scaled,
  // complex/operands.hpp).
  ComplexProducts(int method, std::int64_t mb, std::int64_t nb, std::int64_t kb);

  // The r x c block of P at (i0, j0), over all of k (a.cols) in chunks of kb: Re P at p(), Im P at p() + r c,
  // column-major with leading dimension r, from the real GEMMs `real` computes. Returns a bf16x_status.
  int block(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0, std::int64_t r, std::int64_t j0,
            std::int64_t c, const RealGemm<T>& real);

  const double* p() const { return p_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  int block_4m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0, std::int64_t r, std::int64_t j0,
               std::int64_t c, const RealGemm<T>& real);
  int block_3m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0, std::int64_t r, std::int64_t j0,
               std::int64_t c, const RealGemm<T>& real);
  // acc (m x n, FP64) = (first ? 0 : acc) + a b for the real m x k a and k x n b (column-major, packed).
  int accumulate(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, double* acc, bool first,
                 const RealGemm<T>& real);

  int method_;
  std::int64_t kb_;
  std::unique_ptr<T[]> ta_, tb_;  // 4M: [Ar Ai], [[Br, Bi], [-Bi, Br]]; 3M: Ar, Ai, Ar + Ai and Br, Bi, Br + Bi
  std::unique_ptr<double[]> p_;   // the P block; 3M: T1 and T2, then Re P and Im P
  std::unique_ptr<double[]> t3_;  // 3M: T3
  std::unique_ptr<T[]> q_;        // cgemm: one chunk's FP32 product before it is added in FP64
  std::size_t bytes_ = 0;
};

}  // namespace bf16x::complex
