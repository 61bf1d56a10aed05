// The scalar INT8 engine: the oracle the vector and AMX kernels are tested against.
#include "engine/int8_kernel.hpp"

namespace bf16x::engine::int8 {

void part_reference(const std::int8_t* a, const std::int8_t* b, int, int depth, std::int32_t* c, std::int64_t ldc,
                    int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    std::int32_t acc[kTile] = {};
    for (int l = 0; l < depth; ++l) {
      const std::int32_t x = a[a_index(i, l)];
      for (int j = 0; j < cols; ++j) acc[j] += x * std::int32_t(b[b_index(l, j)]);
    }
    for (int j = 0; j < cols; ++j) c[i * ldc + j] += acc[j];
  }
}

void kernel_reference(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc) {
  part_reference(a, b, kc, kc, c, ldc, kTile, kTile);
}

}  // namespace bf16x::engine::int8
