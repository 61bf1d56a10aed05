// A view of op(A) (m x k) or op(B) (k x n) of a column-major GEMM, after layout normalisation in api/.
#pragma once
#include <cstdint>

namespace bf16x::pack {

template <typename T>
struct MatrixView {
  const T* data;
  std::int64_t ld;
  bool trans;  // element (i, j) of op(X) is data[j + i*ld] when trans, data[i + j*ld] otherwise
  T operator()(std::int64_t i, std::int64_t j) const { return trans ? data[j + i * ld] : data[i + j * ld]; }
  // The distance in memory from element (i, j) to (i + 1, j), and to (i, j + 1).
  std::int64_t row_step() const { return trans ? ld : 1; }
  std::int64_t col_step() const { return trans ? 1 : ld; }
};

// One GEMM call as both drivers take it (driver::gemm_emulated, crt::gemm_crt): C = alpha op(A) op(B) + beta C with
// op(A) m x k and op(B) k x n as views, C column-major (or row-major where c_row_major), beta 0: C not read.
template <typename T>
struct GemmArgs {
  std::int64_t m, n, k;
  T alpha;
  MatrixView<T> a;  // op(A), m x k
  MatrixView<T> b;  // op(B), k x n
  T beta;
  T* c;
  std::int64_t ldc;
  bool c_row_major = false;  // C(i, j) at c[i * ldc + j] (the caller's row-major C, kept as it is)
};

}  // namespace bf16x::pack
