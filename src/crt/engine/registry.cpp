// The INT8 engines of the CRT modes and their selection.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "crt/int8_kernel.hpp"
#include "env/env_vars.hpp"

namespace bf16x::crt {

void kernel_avx512vnni(const std::int8_t*, const std::int8_t*, int, std::int32_t*, std::int64_t);
void kernel_avx2_int8(const std::int8_t*, const std::int8_t*, int, std::int32_t*, std::int64_t);
void kernel_amx_int8_hw(const std::int8_t*, const std::int8_t*, int, std::int32_t*, std::int64_t);
void kernel_amx_int8_model(const std::int8_t*, const std::int8_t*, int, std::int32_t*, std::int64_t);

namespace {
bool always() { return true; }
}  // namespace

const Int8Engine& int8_avx512vnni() {
  static const Int8Engine e{BF16X_ENGINE_AVX512VNNI, "avx512vnni", cpu::has_avx512vnni, kernel_avx512vnni, nullptr};
  return e;
}
const Int8Engine& int8_avx2() {
  static const Int8Engine e{BF16X_ENGINE_AVX2_INT8, "avx2-int8", cpu::has_avx2_fma, kernel_avx2_int8, nullptr};
  return e;
}
const Int8Engine& int8_amx() {
  static const Int8Engine e{BF16X_ENGINE_AMX, "amx", cpu::has_amx_int8, kernel_amx_int8_hw, nullptr};
  return e;
}
const Int8Engine& int8_amx_model() {
  static const Int8Engine e{BF16X_ENGINE_AMX_MODEL, "amx-model", always, kernel_amx_int8_model, nullptr};
  return e;
}

const Int8Engine* int8_engine(int id) {
  switch (id) {
    case BF16X_ENGINE_REFERENCE:
      return &int8_reference();
    case BF16X_ENGINE_AVX512VNNI:
      return &int8_avx512vnni();
    case BF16X_ENGINE_AVX2_INT8:
      return &int8_avx2();
    case BF16X_ENGINE_AMX:
      return &int8_amx();
    case BF16X_ENGINE_AMX_MODEL:
      return &int8_amx_model();
    default:
      return nullptr;
  }
}

bool int8_engine_usable(int id) {
  const Int8Engine* e = int8_engine(id);
  return e && e->available();
}

int resolve_int8_engine(int requested) {
  if (requested != BF16X_ENGINE_AUTO) return int8_engine_usable(requested) ? requested : -1;
  static const int chosen = [] {
    // BF16X_CRT_ENGINE through the one strict reader: a name that is not an INT8 engine, or one this CPU cannot
    // run, is said once on stderr like every other refused BF16X_* value.
    if (const auto env =
            envvar::choice(envvar::process_source(), "BF16X_CRT_ENGINE",
                           {"amx", "amx-model", "avx512vnni", "avx2-int8", "reference"}, "the best available")) {
      const int e = bf16x_engine_from_name(env->c_str());
      if (int8_engine_usable(e)) return e;
      envvar::warn("BF16X_CRT_ENGINE=" + *env + " is not available on this CPU; using the best available");
    }
    for (int id : {int(BF16X_ENGINE_AMX), int(BF16X_ENGINE_AVX512VNNI), int(BF16X_ENGINE_AVX2_INT8)})
      if (int8_engine_usable(id)) return id;
    return int(BF16X_ENGINE_REFERENCE);
  }();
  return chosen;
}

}  // namespace bf16x::crt
