// Runtime control (bf16x/bf16x_runtime.h): setters validate, getters report the effective value, and the
// precedence is call argument > runtime setting > environment > default. Each test restores what it set.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"

namespace {

struct Restore {
  ~Restore() {
    bf16x_set_sgemm_mode(BF16X_MODE_DEFAULT);
    bf16x_set_dgemm_mode(BF16X_MODE_DEFAULT);
    bf16x_set_engine(BF16X_ENGINE_AUTO);
    bf16x_set_auto_target(0);
    bf16x_set_verbose(-1);
    bf16x_set_num_threads(0);
  }
};

// The stats of an n x n x n DGEMM with `mode` (BF16X_MODE_DEFAULT: the process default).
bf16x_stats run_dgemm(int mode, int n) {
  std::vector<double> a(std::size_t(n * n), 0.5), b(std::size_t(n * n), 0.25), c(std::size_t(n * n));
  bf16x_stats st{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  o.stats = &st;
  EXPECT_EQ(bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                           c.data(), n, &o),
            BF16X_OK);
  return st;
}

int mode_that_ran(int mode = BF16X_MODE_DEFAULT) { return run_dgemm(mode, 64).mode; }

TEST(Runtime, ModesAreCheckedAndTakePrecedenceOverTheEnvironment) {
  Restore restore;
  EXPECT_EQ(bf16x_set_dgemm_mode(BF16X_MODE_FP32X6), BF16X_ERR_MODE);
  EXPECT_EQ(bf16x_set_sgemm_mode(BF16X_MODE_FP64X21), BF16X_ERR_MODE);
  EXPECT_EQ(bf16x_set_dgemm_mode(99), BF16X_ERR_MODE);
  EXPECT_EQ(bf16x_set_dgemm_mode(BF16X_MODE_FP64X15), BF16X_OK);
  EXPECT_EQ(bf16x_get_dgemm_mode(), BF16X_MODE_FP64X15);
  EXPECT_EQ(mode_that_ran(), BF16X_MODE_FP64X15);
  // The call's own mode wins over the runtime setting.
  EXPECT_EQ(mode_that_ran(BF16X_MODE_FP64X6), BF16X_MODE_FP64X6);
  EXPECT_EQ(bf16x_set_dgemm_mode(BF16X_MODE_NATIVE), BF16X_OK);
  EXPECT_EQ(mode_that_ran(), BF16X_MODE_NATIVE);
  // DEFAULT removes the runtime setting: the environment's (auto unless BF16X_DGEMM_MODE is set) applies again.
  EXPECT_EQ(bf16x_set_dgemm_mode(BF16X_MODE_DEFAULT), BF16X_OK);
  const char* env = std::getenv("BF16X_DGEMM_MODE");
  if (!env) {
    EXPECT_EQ(bf16x_get_dgemm_mode(), BF16X_MODE_AUTO);
  }
  EXPECT_EQ(bf16x_set_sgemm_mode(BF16X_MODE_FP32X6), BF16X_OK);
  EXPECT_EQ(bf16x_get_sgemm_mode(), BF16X_MODE_FP32X6);
}

TEST(Runtime, EngineMustBeUsable) {
  Restore restore;
  EXPECT_EQ(bf16x_set_engine(42), BF16X_ERR_OPTIONS);
  EXPECT_EQ(bf16x_set_engine(BF16X_ENGINE_REFERENCE), BF16X_OK);
  EXPECT_EQ(bf16x_get_engine(), BF16X_ENGINE_REFERENCE);
  EXPECT_EQ(bf16x_engine_selected(), BF16X_ENGINE_REFERENCE);
  if (!bf16x_engine_available(BF16X_ENGINE_AMX)) {
    EXPECT_EQ(bf16x_set_engine(BF16X_ENGINE_AMX), BF16X_ERR_ENGINE);
  }
  EXPECT_EQ(bf16x_get_engine(), BF16X_ENGINE_REFERENCE);  // a refused setting changes nothing
  const bf16x_stats st = run_dgemm(BF16X_MODE_FP64X6, 32);
  EXPECT_EQ(st.engine, BF16X_ENGINE_REFERENCE);
  EXPECT_EQ(bf16x_set_engine(BF16X_ENGINE_AUTO), BF16X_OK);
  EXPECT_NE(bf16x_get_engine(), 0);
}

// A call plans with the settings as they are when it starts, also where the same options and shape were planned
// just before (planner/call_plan.cpp keeps a thread's recent plans while no setting changes): each change of mode
// or engine between two identical calls shows in the second.
TEST(Runtime, EachCallPlansWithTheSettingsOfItsStart) {
  Restore restore;
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(bf16x_set_dgemm_mode(BF16X_MODE_FP64X15), BF16X_OK);
    EXPECT_EQ(mode_that_ran(), BF16X_MODE_FP64X15);
    EXPECT_EQ(mode_that_ran(), BF16X_MODE_FP64X15);
    ASSERT_EQ(bf16x_set_engine(BF16X_ENGINE_REFERENCE), BF16X_OK);
    EXPECT_EQ(run_dgemm(BF16X_MODE_DEFAULT, 32).engine, BF16X_ENGINE_REFERENCE);
    ASSERT_EQ(bf16x_set_engine(BF16X_ENGINE_AUTO), BF16X_OK);
    EXPECT_EQ(run_dgemm(BF16X_MODE_DEFAULT, 32).engine, bf16x_engine_selected());
    ASSERT_EQ(bf16x_set_dgemm_mode(BF16X_MODE_FP64CR), BF16X_OK);
    EXPECT_EQ(mode_that_ran(), BF16X_MODE_FP64CR);
    ASSERT_EQ(bf16x_set_dgemm_mode(BF16X_MODE_NATIVE), BF16X_OK);
    EXPECT_EQ(mode_that_ran(), BF16X_MODE_NATIVE);
    EXPECT_EQ(mode_that_ran(BF16X_MODE_FP64X6), BF16X_MODE_FP64X6);  // the call's own mode first
  }
}

TEST(Runtime, TargetVerbosityAndThreadsValidate) {
  Restore restore;
  EXPECT_EQ(bf16x_set_auto_target(-1), BF16X_ERR_OPTIONS);
  EXPECT_EQ(bf16x_set_auto_target(NAN), BF16X_ERR_OPTIONS);
  EXPECT_EQ(bf16x_set_auto_target(1e-9), BF16X_OK);
  EXPECT_EQ(bf16x_get_auto_target(), 1e-9);
  bf16x_set_verbose(0);
  EXPECT_EQ(bf16x_get_verbose(), 0);
  EXPECT_EQ(bf16x_set_num_threads(-2), BF16X_ERR_OPTIONS);
  EXPECT_EQ(bf16x_set_num_threads(1), BF16X_OK);
  EXPECT_EQ(bf16x_get_num_threads(), 1);
  // An absurd count is refused (and the setting kept), not handed to OpenMP.
  for (int bad : {BF16X_MAX_THREADS + 1, 1 << 20, INT_MAX}) EXPECT_EQ(bf16x_set_num_threads(bad), BF16X_ERR_OPTIONS);
  EXPECT_EQ(bf16x_get_num_threads(), 1);
  EXPECT_EQ(bf16x_set_num_threads(BF16X_MAX_THREADS), BF16X_OK);
  EXPECT_EQ(bf16x_get_num_threads(), BF16X_MAX_THREADS);
}

// A thread limit changes who computes, never the bits (every emulated mode is reproducible across thread counts).
TEST(Runtime, ThreadLimitKeepsTheBits) {
  Restore restore;
  const int n = 300;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(n * n), b(n * n), c1(n * n), c2(n * n);
  for (double& x : a) x = u(rng);
  for (double& x : b) x = u(rng);
  ASSERT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                        c1.data(), n, BF16X_MODE_FP64X10),
            BF16X_OK);
  ASSERT_EQ(bf16x_set_num_threads(1), BF16X_OK);
  ASSERT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                        c2.data(), n, BF16X_MODE_FP64X10),
            BF16X_OK);
  EXPECT_EQ(std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(double)), 0);
}

TEST(Runtime, VersionAndConfig) {
  EXPECT_STREQ(bf16x_version(), BF16X_VERSION_STRING);
  EXPECT_EQ(BF16X_VERSION, BF16X_VERSION_MAJOR * 10000 + BF16X_VERSION_MINOR * 100 + BF16X_VERSION_PATCH);
  const std::string cfg = bf16x_get_config();
  for (const char* key : {"version: ", "cpu: ", "isa: ", "engines available: ", "engine selected: ", "host blas: ",
                          "host kernel: ", "threads: ", "sgemm mode: ", "dgemm mode: "})
    EXPECT_NE(cfg.find(key), std::string::npos) << key << " missing in\n" << cfg;
  EXPECT_NE(cfg.find(std::string("version: ") + BF16X_VERSION_STRING), std::string::npos);
}

}  // namespace
