// The correctly rounded modes of the C API: fp64cr (dgemm) and fp32cr (sgemm).
#pragma once
#include "bf16x/bf16x.h"

namespace bf16x {

inline bool is_cr_mode(int mode) { return mode == BF16X_MODE_FP64CR || mode == BF16X_MODE_FP32CR; }

}  // namespace bf16x
