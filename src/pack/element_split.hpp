// Dispatch of one element to its slice split by operand type (float: residual split, double: fixed-point split,
// bf16: the raw single-product GEMM's operands, one slice, copied).
#pragma once
#include <cstddef>

#include "split/slice_fp32.hpp"
#include "split/slice_fp64.hpp"

namespace bf16x::pack {

inline void split_element(float x, int E, bool scaled, int ns, bf16_t* out, std::ptrdiff_t stride) {
  // The unscaled (paper) FP32 path splits x itself: E applies only when scaling.
  split::split_fp32(x, scaled ? E : 0, ns, out, stride);
}
inline void split_element(double x, int E, bool scaled, int ns, bf16_t* out, std::ptrdiff_t stride) {
  split::split_fp64(x, E, scaled ? 0 : E, ns, out, stride);
}
inline void split_element(bf16_t x, int, bool, int, bf16_t* out, std::ptrdiff_t) { out[0] = x; }

}  // namespace bf16x::pack
