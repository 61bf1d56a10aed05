#include "api/mode_policy.hpp"

#include <algorithm>

#include "api/env.hpp"
#include "bf16x/bf16x.h"

namespace bf16x::api {

int resolve_mode(const ModeRequest& r) {
  int mode = r.mode;
  if (mode == BF16X_MODE_DEFAULT) mode = r.is_double ? env().dgemm_mode : env().sgemm_mode;
  if (mode != BF16X_MODE_NATIVE && std::min({r.m, r.n, r.k}) < env().min_size) return BF16X_MODE_NATIVE;
  if (mode != BF16X_MODE_AUTO) return mode;
  // Cost model: emulation runs 6..21 BF16 products; it is faster than the FP32/FP64 units only on the AMX tiles
  // (about 16x the BF16 rate of AVX512-BF16 per core). Elsewhere auto keeps the host BLAS.
  if (r.engine != BF16X_ENGINE_AMX) return BF16X_MODE_NATIVE;
  return r.is_double ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32X6;
}

}  // namespace bf16x::api
