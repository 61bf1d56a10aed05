#include "api/env.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bf16x/bf16x.h"

namespace bf16x::api {
namespace {

int mode_from_env(const char* var, int fallback) {
  const char* v = std::getenv(var);
  if (!v || !*v) return fallback;
  const int m = bf16x_mode_from_name(v);
  if (m < 0) {
    std::fprintf(stderr, "bf16x: %s=%s not recognised, using %s\n", var, v, bf16x_mode_name(fallback));
    return fallback;
  }
  return m;
}

// A positive number, or 0 (unset, or not a positive number: said once on stderr).
double target_from_env(const char* var) {
  const char* v = std::getenv(var);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const double t = std::strtod(v, &end);
  if (*end != '\0' || !(t > 0) || !(t < HUGE_VAL)) {
    std::fprintf(stderr, "bf16x: %s=%s is not a positive number, using the native GEMM's bound\n", var, v);
    return 0;
  }
  return t;
}

}  // namespace

const Env& env() {
  static const Env e = [] {
    Env r{};
    r.sgemm_mode = mode_from_env("BF16X_SGEMM_MODE", BF16X_MODE_AUTO);
    r.dgemm_mode = mode_from_env("BF16X_DGEMM_MODE", BF16X_MODE_AUTO);
    const char* ms = std::getenv("BF16X_MIN_SIZE");
    r.min_size = ms ? std::strtoll(ms, nullptr, 10) : 0;
    r.engine = std::getenv("BF16X_ENGINE");
    const char* vb = std::getenv("BF16X_VERBOSE");
    r.verbose = vb && *vb && std::strcmp(vb, "0") != 0;
    const char* sp = std::getenv("BF16X_SPLIT");
    r.split = (sp && std::strcmp(sp, "paper") == 0) ? BF16X_SPLIT_PAPER : BF16X_SPLIT_SCALED;
    r.auto_target = target_from_env("BF16X_AUTO_TARGET");
    const char* ac = std::getenv("BF16X_AUTO_COST");
    r.auto_cost = !(ac && (std::strcmp(ac, "off") == 0 || std::strcmp(ac, "0") == 0));
    return r;
  }();
  return e;
}

}  // namespace bf16x::api
