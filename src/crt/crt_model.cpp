#include "crt/crt_model.hpp"

#include <cmath>

#include "bf16x/bf16x.h"
#include "crt/moduli.hpp"
#include "mode/records.hpp"

namespace bf16x::crt {

double predicted_escaled(int moduli, bool is_double, std::int64_t k, double fill_ratio) {
  const int L = crt_plan(moduli).L;
  const double u = is_double ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  return fill_ratio * std::sqrt(double(k)) * std::exp2(2.53 - 0.5 * L) + fill_ratio * std::ldexp(1.0, -60) + u;
}

int fewest_moduli(bool is_double, std::int64_t k, double fill_ratio, double target) {
  for (const mode::Record& r : mode::records())  // the CRT modes of the precision, fewest moduli first
    if (r.method == mode::Method::crt && mode::fits(r.id, is_double) &&
        predicted_escaled(r.moduli, is_double, k, fill_ratio) <= target)
      return r.id;
  return BF16X_MODE_NATIVE;
}

}  // namespace bf16x::crt
