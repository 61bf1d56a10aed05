// Engines have a kind: BF16 engines run the slice modes, INT8 engines the CRT modes (reference, amx and amx-model
// name one of each). A name of the wrong kind is its own status, never "not available on this CPU"; an INT8-only
// name in BF16X_ENGINE or bf16x_set_engine sets the CRT modes' engine and leaves the slice modes on their best
// BF16 engine; without a host BLAS auto stays emulated and native calls say why they cannot run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "support/probe.hpp"

namespace {

int dgemm(int mode, int engine, int* ran_engine = nullptr) {
  const std::vector<double> a(64 * 64, 0.5), b(64 * 64, 0.25);
  std::vector<double> c(64 * 64, 0.0);
  bf16x_stats st{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  o.engine = engine;
  o.stats = &st;
  const int s = bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 64, 64, 64, 1.0, a.data(), 64, b.data(),
                               64, 0.0, c.data(), 64, &o);
  if (ran_engine) *ran_engine = st.engine;
  if (s == BF16X_OK) {
    EXPECT_EQ(c[0], 64 * 0.125);
  }
  return s;
}

TEST(EngineKinds, AnEngineOfTheOtherKindIsItsOwnStatus) {
  if (!bf16x_engine_available(BF16X_ENGINE_AVX2) || !bf16x_engine_available(BF16X_ENGINE_AVX2_INT8))
    GTEST_SKIP() << "needs the avx2 and avx2-int8 engines (AVX2 + FMA)";
  EXPECT_EQ(dgemm(BF16X_MODE_FP64C(15), BF16X_ENGINE_AVX2), BF16X_ERR_ENGINE_KIND);
  EXPECT_EQ(dgemm(BF16X_MODE_FP64X21, BF16X_ENGINE_AVX2_INT8), BF16X_ERR_ENGINE_KIND);
  uint64_t bytes = 0;
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64C(15);
  o.engine = BF16X_ENGINE_AVX2;
  EXPECT_EQ(bf16x_workspace_bytes(1, BF16X_COL_MAJOR, 64, 64, 64, &o, &bytes), BF16X_ERR_ENGINE_KIND);
  // The right kind runs; engines that name both kinds run either.
  int ran = -2;
  EXPECT_EQ(dgemm(BF16X_MODE_FP64C(15), BF16X_ENGINE_AVX2_INT8, &ran), BF16X_OK);
  EXPECT_EQ(ran, BF16X_ENGINE_AVX2_INT8);
  EXPECT_EQ(dgemm(BF16X_MODE_FP64X21, BF16X_ENGINE_AVX2, &ran), BF16X_OK);
  EXPECT_EQ(ran, BF16X_ENGINE_AVX2);
  EXPECT_EQ(dgemm(BF16X_MODE_FP64C(15), BF16X_ENGINE_REFERENCE, &ran), BF16X_OK);
  EXPECT_EQ(ran, BF16X_ENGINE_REFERENCE);
  EXPECT_EQ(dgemm(BF16X_MODE_FP64X21, BF16X_ENGINE_REFERENCE, &ran), BF16X_OK);
  EXPECT_EQ(ran, BF16X_ENGINE_REFERENCE);
  // auto with an INT8 engine named: whatever auto chooses runs (a slice mode on the BF16 engine auto picks).
  EXPECT_EQ(dgemm(BF16X_MODE_AUTO, BF16X_ENGINE_AVX2_INT8), BF16X_OK);
  for (int s : {int(BF16X_ERR_ENGINE_KIND), int(BF16X_ERR_NO_HOST)})
    EXPECT_STRNE(bf16x_status_string(s), "unknown status") << s;
}

TEST(EngineKinds, SetEngineTakesAnInt8EngineForTheCrtModes) {
  if (!bf16x_engine_available(BF16X_ENGINE_AVX2_INT8)) GTEST_SKIP() << "needs the avx2-int8 engine (AVX2 + FMA)";
  const int bf16_before = bf16x_get_engine();
  ASSERT_EQ(bf16x_set_engine(BF16X_ENGINE_AVX2_INT8), BF16X_OK);
  EXPECT_EQ(bf16x_get_crt_engine(), BF16X_ENGINE_AVX2_INT8);
  EXPECT_EQ(bf16x_get_engine(), bf16_before);  // the slice modes' engine is untouched
  int ran = -2;
  EXPECT_EQ(dgemm(BF16X_MODE_FP64C(15), BF16X_ENGINE_AUTO, &ran), BF16X_OK);
  EXPECT_EQ(ran, BF16X_ENGINE_AVX2_INT8);
  EXPECT_EQ(dgemm(BF16X_MODE_FP64X21, BF16X_ENGINE_AUTO, &ran), BF16X_OK);
  EXPECT_EQ(ran, bf16_before);
  if (!bf16x_engine_available(BF16X_ENGINE_AVX512VNNI)) {
    EXPECT_EQ(bf16x_set_engine(BF16X_ENGINE_AVX512VNNI), BF16X_ERR_ENGINE);
  }
  ASSERT_EQ(bf16x_set_engine(BF16X_ENGINE_AUTO), BF16X_OK);
}

using bf16x::test::count_containing;
using bf16x::test::run_probe;

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l;
  return s;
}

TEST(EngineKinds, Int8EngineInTheEnvironmentLeavesSliceModesOnTheirBf16Engine) {
  // Asked of the probe process, which may run on another CPU than this one (scripts/test-qemu emulates an AVX2 CPU
  // for this process only: the probe it starts runs natively).
  const auto h = run_probe("BF16X_VERBOSE=1 BF16X_DGEMM_MODE=fp64x21");
  if (count_containing(h.err, "header,") == 0 || count_containing(h.err, ",engine=avx2,") == 0)
    GTEST_SKIP() << "checks the avx2 machine's choice (avx2 the best BF16 engine where the probe runs)";
  // It used to send the slice modes to the scalar reference engine with two false messages.
  const auto r = run_probe("BF16X_ENGINE=avx2-int8 BF16X_DGEMM_MODE=fp64x21 BF16X_SGEMM_MODE=fp32c8 BF16X_VERBOSE=1");
  EXPECT_EQ(count_containing(r.err, "not available"), 0) << joined(r.err);
  EXPECT_EQ(count_containing(r.err, "no vector BF16 engine"), 0) << joined(r.err);
  EXPECT_EQ(count_containing(r.err, "engine=reference"), 0) << joined(r.err);
  EXPECT_GT(count_containing(r.err, "mode=fp64x21,engine=avx2,"), 0) << joined(r.err);
  EXPECT_GT(count_containing(r.err, "mode=fp32c8,engine=avx2-int8,"), 0) << joined(r.err);
}

TEST(EngineKinds, WithoutAHostBlasAutoStaysEmulatedAndNativeSaysWhy) {
  // BF16X_HOST_BLAS=none: no host BLAS, as on a machine without one. Auto used to fail every call with "requested
  // engine not available".
  const auto a = run_probe("BF16X_HOST_BLAS=none BF16X_DGEMM_MODE=auto BF16X_SGEMM_MODE=auto BF16X_VERBOSE=1");
  EXPECT_EQ(count_containing(a.out, "status=0"), 4) << joined(a.out);
  EXPECT_EQ(count_containing(a.err, "mode=native"), 0) << joined(a.err);
  const auto n = run_probe("BF16X_HOST_BLAS=none BF16X_DGEMM_MODE=native BF16X_SGEMM_MODE=native");
  EXPECT_EQ(count_containing(n.out, "status=" + std::to_string(BF16X_ERR_NO_HOST)), 4) << joined(n.out);
}

TEST(EngineKinds, BadAutoTargetIsSaidOnceEvenWhenNoCallNeedsIt) {
  for (const char* v : {"abc", "-1"}) {
    const auto r =
        run_probe(std::string("BF16X_AUTO_TARGET=") + v + " BF16X_DGEMM_MODE=native BF16X_SGEMM_MODE=native");
    EXPECT_EQ(count_containing(r.err, std::string("BF16X_AUTO_TARGET=") + v + " is not"), 1) << joined(r.err);
  }
}

}  // namespace
