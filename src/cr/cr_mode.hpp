// The correctly rounded modes of the C API: fp64cr (dgemm) and fp32cr (sgemm), as the mode records list them.
#pragma once
#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "mode/records.hpp"

namespace bf16x {

inline bool is_cr_mode(int mode) { return mode::is(mode, mode::Method::correctly_rounded); }

// The vector level of the tile sums on a BF16 engine (cr::CrConfig::level; INT8-only engines run no cr mode): the
// scalar kernels on the reference engine, AVX2 on the avx2 engine, else the widest this CPU runs (cr::tile_kernels
// clamps to it).
inline cpu::Level cr_tile_level(int engine_id) {
  if (engine_id == BF16X_ENGINE_REFERENCE) return cpu::Level::generic;
  return engine_id == BF16X_ENGINE_AVX2 ? cpu::Level::avx2 : cpu::Level::avx512;
}

}  // namespace bf16x
