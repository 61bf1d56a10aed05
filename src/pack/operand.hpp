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
};

}  // namespace bf16x::pack
