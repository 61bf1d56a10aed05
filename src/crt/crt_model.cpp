#include "crt/crt_model.hpp"

#include <cmath>

#include "bf16x/bf16x.h"
#include "crt/crt_mode.hpp"
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

}  // namespace bf16x::crt
