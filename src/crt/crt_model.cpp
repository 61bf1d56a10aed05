#include "crt/crt_model.hpp"

#include <cmath>

#include "bf16x/bf16x.h"
#include "crt/crt_mode.hpp"
#include "crt/int8_kernel.hpp"
#include "crt/moduli.hpp"

namespace bf16x::crt {

double predicted_escaled(int moduli, bool is_double, std::int64_t k, double fill_ratio) {
  const int L = crt_plan(moduli).L;
  const double u = is_double ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  return fill_ratio * std::sqrt(double(k)) * std::exp2(2.53 - 0.5 * L) + fill_ratio * std::ldexp(1.0, -60) + u;
}

int fewest_moduli(bool is_double, std::int64_t k, double fill_ratio, double target) {
  const int lo = is_double ? BF16X_FP64C_MIN : BF16X_FP32C_MIN, hi = is_double ? BF16X_FP64C_MAX : BF16X_FP32C_MAX;
  const int base = is_double ? BF16X_MODE_FP64C_BASE : BF16X_MODE_FP32C_BASE;
  for (int n = lo; n <= hi; ++n)
    if (predicted_escaled(n, is_double, k, fill_ratio) <= target) return base + n;
  return BF16X_MODE_NATIVE;
}

int int8_engine_for(int bf16_engine) {
  if ((bf16_engine == BF16X_ENGINE_REFERENCE || bf16_engine == BF16X_ENGINE_AMX_MODEL ||
       bf16_engine == BF16X_ENGINE_AMX) &&
      int8_engine_usable(bf16_engine))
    return bf16_engine;
  return resolve_int8_engine(BF16X_ENGINE_AUTO);
}

}  // namespace bf16x::crt
