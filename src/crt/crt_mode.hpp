// The CRT mode values of the C API: fp64c<N> = BF16X_MODE_FP64C_BASE + N, fp32c<N> = BF16X_MODE_FP32C_BASE + N,
// as the mode records (mode/records.cpp) list them with their moduli.
#pragma once
#include "bf16x/bf16x.h"
#include "mode/records.hpp"

namespace bf16x::crt {

inline bool is_crt_mode(int mode) { return mode::is(mode, mode::Method::crt); }
inline bool is_fp64c(int mode) { return is_crt_mode(mode) && mode::record(mode)->precision == mode::Precision::fp64; }
inline bool is_fp32c(int mode) { return is_crt_mode(mode) && mode::record(mode)->precision == mode::Precision::fp32; }
// Number of moduli of a CRT mode (0 otherwise).
inline int crt_moduli(int mode) {
  const mode::Record* r = mode::record(mode);
  return r ? r->moduli : 0;
}

}  // namespace bf16x::crt
