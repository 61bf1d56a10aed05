#include "method/table.hpp"

#include <type_traits>

namespace bf16x::method {

const Row* row(mode::Method m) {
  switch (m) {
    case mode::Method::native:
      return &native_row();
    case mode::Method::slices:
      return &slices_row();
    case mode::Method::crt:
      return &crt_row();
    case mode::Method::correctly_rounded:
      return &correctly_rounded_row();
    default:
      return nullptr;
  }
}

template <typename T>
int run(const Plan& plan, const Call<T>& x, Outcome& out) {
  const Row* r = row(plan.method);
  if (!r) return BF16X_ERR_MODE;  // a mode planning left unresolved: a bug, refused rather than run
  if constexpr (std::is_same_v<T, float>)
    return r->real_s(plan, x, out);
  else
    return r->real_d(plan, x, out);
}

template <typename T>
bool has_complex(const Plan& plan) {
  const Row* r = row(plan.method);
  if constexpr (std::is_same_v<T, float>)
    return r && r->complex_s;
  else
    return r && r->complex_d;
}

template <typename T>
int run_complex(const Plan& plan, const ComplexCall<T>& x, Outcome& out, bool& done) {
  const Row* r = row(plan.method);
  if constexpr (std::is_same_v<T, float>)
    return r->complex_s(plan, x, out, done);
  else
    return r->complex_d(plan, x, out, done);
}

template int run(const Plan&, const Call<float>&, Outcome&);
template int run(const Plan&, const Call<double>&, Outcome&);
template bool has_complex<float>(const Plan&);
template bool has_complex<double>(const Plan&);
template int run_complex(const Plan&, const ComplexCall<float>&, Outcome&, bool&);
template int run_complex(const Plan&, const ComplexCall<double>&, Outcome&, bool&);

}  // namespace bf16x::method
