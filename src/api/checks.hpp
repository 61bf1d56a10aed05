// Argument checks of the C API, in the order and with the rules of the reference CBLAS (layout, transa, transb,
// m, n, k, lda, ldb, ldc), plus NULL pointers and 64-bit size overflow.
#pragma once
#include <cstdint>

namespace bf16x::api {

struct GemmShape {
  int layout, transa, transb;
  std::int64_t m, n, k, lda, ldb, ldc;
};

// Returns BF16X_OK or the first failing bf16x_status.
int check_gemm_args(const GemmShape& s, const void* a, const void* b, const void* c, bool alpha_zero);

}  // namespace bf16x::api
