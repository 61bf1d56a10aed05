// The mode records (src/mode/records.cpp) against the C API's names and the places that hold a mode's method: the
// slice schemes, the CRT ranges of bf16x.h, the guard's defaults.
#include <gtest/gtest.h>

#include <string>

#include "bf16x/bf16x.h"
#include "method/guard.hpp"
#include "mode/records.hpp"
#include "settings/names.hpp"
#include "split/scheme.hpp"

namespace bf16x {
namespace {

TEST(Modes, RecordsNameEveryModeOnce) {
  int crt64 = 0, crt32 = 0;
  for (const mode::Record& r : mode::records()) {
    EXPECT_STREQ(bf16x_mode_name(r.id), r.name);
    EXPECT_EQ(bf16x_mode_from_name(r.name), r.id) << r.name;
    EXPECT_EQ(mode::by_name(r.name), &r);
    if (r.method == mode::Method::crt) {
      const bool dbl = r.precision == mode::Precision::fp64;
      EXPECT_EQ(r.id, (dbl ? BF16X_MODE_FP64C_BASE : BF16X_MODE_FP32C_BASE) + r.moduli) << r.name;
      EXPECT_EQ(std::string(r.name), (dbl ? "fp64c" : "fp32c") + std::to_string(r.moduli));
      ++(dbl ? crt64 : crt32);
    }
  }
  EXPECT_EQ(crt64, BF16X_FP64C_MAX - BF16X_FP64C_MIN + 1);
  EXPECT_EQ(crt32, BF16X_FP32C_MAX - BF16X_FP32C_MIN + 1);
  for (int v : {-1, 11, 99, 100 + BF16X_FP64C_MIN - 1, 100 + BF16X_FP64C_MAX + 1, 200 + BF16X_FP32C_MAX + 1})
    EXPECT_EQ(bf16x_mode_name(v), nullptr) << v;
  for (const char* s : {"fp64c08", "fp64c7", "fp64c21", "fp32c4", "FP64X6", "", "fp64c"})
    EXPECT_EQ(bf16x_mode_from_name(s), -1) << s;
  EXPECT_EQ(bf16x_mode_from_name(nullptr), -1);
}

TEST(Modes, RecordsAgreeWithSchemes) {
  for (const mode::Record& r : mode::records()) {
    const split::Scheme* s = split::scheme_for_mode(r.id);
    ASSERT_EQ(s != nullptr, r.method == mode::Method::slices) << r.name;
    if (!s) continue;
    EXPECT_STREQ(s->name, r.name);
    EXPECT_EQ(s->slices, r.slices) << r.name;
    EXPECT_EQ(int(s->products.size()), r.products) << r.name;
    EXPECT_EQ(s->diagonals, r.diagonals) << r.name;
    EXPECT_EQ(s->reconstruction == split::Reconstruction::fp32, r.precision == mode::Precision::fp32) << r.name;
  }
}

TEST(Modes, RecordsGiveTheGuardDefaults) {
  // README, "Accuracy you can rely on": fp64x21, fp64c15..20 and fp32c8..10 guarded by default; fp64x6..x15 and
  // the other CRT modes raw; fp32x6, native and the correctly rounded modes never.
  auto guarded = [](int m) { return method::guard_applies(BF16X_GUARD_DEFAULT, m, false, true); };
  for (const mode::Record& r : mode::records()) {
    const bool want = r.id == BF16X_MODE_FP64X21 || (r.id >= BF16X_MODE_FP64C(15) && r.id <= BF16X_MODE_FP64C(20)) ||
                      (r.id >= BF16X_MODE_FP32C(8) && r.id <= BF16X_MODE_FP32C(10));
    EXPECT_EQ(guarded(r.id), want) << r.name;
    const bool fixed_point =
        (r.method == mode::Method::slices && r.precision == mode::Precision::fp64) || r.method == mode::Method::crt;
    EXPECT_EQ(method::guard_applies(BF16X_GUARD_ON, r.id, false, true), fixed_point) << r.name;
    EXPECT_FALSE(method::guard_applies(BF16X_GUARD_ON, r.id, false, false)) << r.name;  // the paper split
  }
  for (const mode::Record& r : mode::records())
    EXPECT_EQ(settings::mode_fits(r.id, true) && settings::mode_fits(r.id, false),
              r.precision == mode::Precision::both);
}

}  // namespace
}  // namespace bf16x
