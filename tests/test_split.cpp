// Split exactness: BF16 rounding, the FP32 residual split and the FP64 fixed-point split.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "split/bf16.hpp"
#include "split/slice_fp32.hpp"
#include "split/slice_fp64.hpp"

using namespace bf16x;

namespace {

// Independent RNE to 8 significant bits (frexp / nearbyint), for checking float_to_bf16 on normal values.
float round8(float x) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e;
  const double f = std::frexp(double(x), &e);  // |f| in [0.5, 1)
  return float(std::ldexp(std::nearbyint(std::ldexp(f, 8)), e - 8));
}

}  // namespace

TEST(Bf16, RoundToNearestEvenMatchesIndependentRounding) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int t = 0; t < 200000; ++t) {
    const float x = bits_float(bits(rng));
    if (!std::isfinite(x) || std::fabs(x) < 1e-37f || std::fabs(x) > 3e38f) continue;
    ASSERT_EQ(bf16_to_float(float_to_bf16(x)), round8(x)) << x;
  }
}

TEST(Bf16, TiesGoToEvenAndSpecialsSurvive) {
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f + 1.0f / 256)), 1.0f);                 // tie, even below
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f + 3.0f / 256)), 1.0f + 4.0f / 256);    // tie, even above
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(bits_float(0x7f800001u)))));  // low-payload NaN
  EXPECT_EQ(bf16_to_float(float_to_bf16(INFINITY)), INFINITY);
  EXPECT_EQ(float_bits(bf16_to_float(float_to_bf16(-0.0f))), 0x80000000u);
}

TEST(SplitFp32, ThreeSlicesSumBackExactly) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int t = 0; t < 100000; ++t) {
    const float x = u(rng) * std::ldexp(1.0f, int(rng() % 60) - 30);
    int E;
    std::frexp(x, &E);
    bf16_t s[3];
    split::split_fp32(x, E, 3, s, 1);
    // Each residual is exact, so the slices must add back to x exactly (in double, without rounding).
    const double sum = double(bf16_to_float(s[0])) + double(bf16_to_float(s[1])) + double(bf16_to_float(s[2]));
    ASSERT_EQ(std::ldexp(sum, E), double(x)) << x;
    ASSERT_FALSE(bf16_is_subnormal(s[1]) || bf16_is_subnormal(s[2]));
  }
}

TEST(SplitFp64, SlicesAreOnTheGridAndRecoverTheRowMaximumRange) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int t = 0; t < 100000; ++t) {
    const double x = u(rng);
    const int E = 0;  // row maximum below 1
    bf16_t s[6];
    split::split_fp64(x, E, 0, 6, s, 1);
    double sum = 0;
    for (int i = 0; i < 6; ++i) {
      const double v = bf16_to_float(s[i]);
      const double g = std::ldexp(1.0, split::kFp64FirstGridExp - split::kFp64GridStep * i);
      const double n = v / g;
      ASSERT_EQ(n, std::nearbyint(n)) << "slice " << i << " off its grid";
      ASSERT_LE(std::fabs(n), 256.0) << "slice " << i << " exceeds 8 significant bits";
      sum += v;  // exact: all partial sums lie on the 2^-53 grid with magnitude < 2
    }
    // Six slices reach the 2^-53 grid: entries >= 1/2 of the row scale are recovered exactly, smaller ones to
    // within half a grid step.
    if (std::fabs(x) >= 0.5) ASSERT_EQ(sum, x);
    else ASSERT_LE(std::fabs(sum - x), std::ldexp(1.0, -54));
  }
}

TEST(SplitFp64, ResidualBoundPerSlice) {
  // After s slices the residual is at most half of the last grid step g_{s-1} = 2^(-8-9(s-1)).
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int t = 0; t < 20000; ++t) {
    const double x = u(rng);
    bf16_t s[6];
    split::split_fp64(x, 0, 0, 6, s, 1);
    double sum = 0;
    for (int i = 0; i < 6; ++i) {
      sum += bf16_to_float(s[i]);
      ASSERT_LE(std::fabs(x - sum), std::ldexp(1.0, -9 - 9 * i)) << i;
    }
  }
}

TEST(SplitFp64, ScaleExponentBoundsTheRow) {
  EXPECT_EQ(split::scale_exponent(0.0), 0);
  EXPECT_EQ(split::scale_exponent(0.75), 0);
  EXPECT_EQ(split::scale_exponent(1.0), 1);  // strict bound |x| < 2^E
  EXPECT_EQ(split::scale_exponent(1e300), std::ilogb(1e300) + 1);
  EXPECT_EQ(split::scale_exponent(4.9e-324), -1073);
}
