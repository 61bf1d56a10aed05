// C = alpha op(A) op(B) + beta C for complex operands from real GEMMs of their parts (4M or 3M, complex/products.hpp),
// in bounded blocks of C (complex/blocking.hpp), on operands scaled by powers of two per row and column so that every
// product stays in range (complex/operands.hpp). The real GEMM is handed in (complex/real_gemm.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bf16x/bf16x.h"
#include "complex/operands.hpp"
#include "complex/real_gemm.hpp"

namespace bf16x::complex {

template <typename T>
using Complex = std::conditional_t<std::is_same_v<T, float>, bf16x_complex_float, bf16x_complex_double>;

// C(i, j) of a column-major C, or of a row-major one (c_rows: at c[i * ldc + j]).
template <typename T>
Complex<T>& c_at(Complex<T>* c, std::int64_t ldc, bool c_rows, std::int64_t i, std::int64_t j) {
  return c_rows ? c[i * ldc + j] : c[i + j * ldc];
}

// C = alpha op(A) op(B) + beta C with method BF16X_COMPLEX_4M or _3M. Everything that can fail comes before C is
// written: the scan for NaN/Inf (done false: nothing computed, the caller goes to the host), the workspace
// (std::bad_alloc), and the real GEMM's own, reserved by the first block, the largest in every dimension. Returns a
// bf16x_status (a real GEMM's); workspace_bytes gets this layer's workspace.
template <typename T>
int gemm(int method, const ComplexOperand<T>& a, const ComplexOperand<T>& b, const Complex<T>& alpha,
         const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, bool c_rows, const RealGemm<T>& real, bool& done,
         std::size_t& workspace_bytes);

}  // namespace bf16x::complex
