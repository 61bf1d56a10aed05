// The CRT modes' error model (crt/crt_model.hpp) is an upper bound of the measured e_scaled, and auto's CRT
// candidate is the fewest moduli meeting the target.
#include <gtest/gtest.h>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "check/inputs.hpp"
#include "check/metrics.hpp"
#include "crt/crt_mode.hpp"
#include "crt/crt_model.hpp"
#include "policy/error_model.hpp"

namespace bf16x::test {
namespace {

template <typename T>
void check_model(check::Dist d, double phi, const std::vector<int>& moduli) {
  const std::int64_t m = 64, n = 48, k = 300;
  const auto a = check::make_input<T>(d, m, k, 3, 0, 60, phi);
  const auto b = check::make_input<T>(d, k, n, 3, 1, 60, phi);
  const auto ref = check::exact_gemm(a, b), absab = check::abs_gemm(a, b);
  const policy::FillEnvelope ea = policy::measure_fill(pack::MatrixView<T>{a.data(), m, false}, m, k, true);
  const policy::FillEnvelope eb = policy::measure_fill(pack::MatrixView<T>{b.data(), k, false}, k, n, false);
  const double R = policy::fill_ratio(ea, eb);
  const bool dbl = sizeof(T) == 8;
  for (int N : moduli) {
    check::Mat<T> c(m, n);
    const int mode = dbl ? BF16X_MODE_FP64C(N) : BF16X_MODE_FP32C(N);
    int st;
    if constexpr (sizeof(T) == 8)
      st = bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0,
                       c.data(), m, bf16x_mode(mode));
    else
      st = bf16x_sgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0f, a.data(), m, b.data(), k, 0.0f,
                       c.data(), m, bf16x_mode(mode));
    ASSERT_EQ(st, BF16X_OK);
    const double measured = check::errors(c, ref, absab).e_scaled;
    const double predicted = crt::predicted_escaled(N, dbl, k, R);
    EXPECT_LE(measured, predicted) << check::dist_name(d) << " phi=" << phi << " N=" << N << " R=" << R;
  }
}

TEST(CrtModel, BoundsMeasuredEscaled) {
  const std::vector<int> d = {8, 10, 12, 14, 16, 18, 20}, s = {5, 6, 7, 8, 9, 10};
  check_model<double>(check::Dist::uniform, 0, d);
  check_model<double>(check::Dist::loguniform, 0, d);
  for (double phi : {0.5, 1.0, 2.0, 3.0}) check_model<double>(check::Dist::phi, phi, d);
  check_model<float>(check::Dist::uniform, 0, s);
  check_model<float>(check::Dist::phi, 2.0, s);
}

TEST(CrtModel, FewestModuliMeetsTarget) {
  int last = BF16X_MODE_FP64C(BF16X_FP64C_MIN);
  for (double target = 1e-6; target > 1e-17; target /= 10) {
    const int mode = crt::fewest_moduli(true, 1024, 4.5, target);
    if (mode == BF16X_MODE_NATIVE) break;
    ASSERT_TRUE(crt::is_fp64c(mode));
    EXPECT_GE(mode, last);
    EXPECT_LE(crt::predicted_escaled(crt::crt_moduli(mode), true, 1024, 4.5), target);
    if (crt::crt_moduli(mode) > BF16X_FP64C_MIN) {
      EXPECT_GT(crt::predicted_escaled(crt::crt_moduli(mode) - 1, true, 1024, 4.5), target);
    }
    last = mode;
  }
  // The native DGEMM bound gamma_k at k = 1024 on uniform inputs: 14 moduli.
  EXPECT_EQ(crt::fewest_moduli(true, 1024, 4.5, policy::native_escaled(true, 1024)), BF16X_MODE_FP64C(14));
  EXPECT_EQ(crt::fewest_moduli(true, 1024, 4.5, 1e-40), BF16X_MODE_NATIVE);
}

}  // namespace
}  // namespace bf16x::test
