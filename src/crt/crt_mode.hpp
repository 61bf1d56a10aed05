// The CRT mode values of the C API: fp64c<N> = BF16X_MODE_FP64C_BASE + N, fp32c<N> = BF16X_MODE_FP32C_BASE + N.
#pragma once
#include "bf16x/bf16x.h"

namespace bf16x::crt {

inline bool is_fp64c(int mode) {
  return mode >= BF16X_MODE_FP64C_BASE + BF16X_FP64C_MIN && mode <= BF16X_MODE_FP64C_BASE + BF16X_FP64C_MAX;
}
inline bool is_fp32c(int mode) {
  return mode >= BF16X_MODE_FP32C_BASE + BF16X_FP32C_MIN && mode <= BF16X_MODE_FP32C_BASE + BF16X_FP32C_MAX;
}
inline bool is_crt_mode(int mode) { return is_fp64c(mode) || is_fp32c(mode); }
// Number of moduli of a CRT mode (0 otherwise).
inline int crt_moduli(int mode) {
  return is_fp64c(mode) ? mode - BF16X_MODE_FP64C_BASE : (is_fp32c(mode) ? mode - BF16X_MODE_FP32C_BASE : 0);
}

}  // namespace bf16x::crt
