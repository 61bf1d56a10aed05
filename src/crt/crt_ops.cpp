// Multi-versioned element loops of the CRT driver. No FMA contraction: the FP64 sums of the reconstruction round
// the same way in every version.
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif
#include "crt/crt_ops.hpp"

#include <cmath>
#include <cstring>

#define BF16X_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))

namespace bf16x::crt {
namespace {

template <typename T>
inline void load_scaled_t(const T* x, int len, double f1, double f2, bool digits, double* out) {
  if (digits)
    for (int l = 0; l < len; ++l) out[l] = std::ceil(std::fabs(double(x[l]) * f1 * f2));
  else
    for (int l = 0; l < len; ++l) out[l] = std::trunc(double(x[l]) * f1 * f2);
}

template <typename T>
inline void load_across_t(const T* x, int rows, const double* f1, const double* f2, bool digits, double* out) {
  if (digits)
    for (int r = 0; r < rows; ++r) out[r] = std::ceil(std::fabs(double(x[r]) * f1[r] * f2[r]));
  else
    for (int r = 0; r < rows; ++r) out[r] = std::trunc(double(x[r]) * f1[r] * f2[r]);
}

}  // namespace

BF16X_CLONES void load_scaled_across(const float* x, int rows, const double* f1, const double* f2, bool digits,
                                     double* out) {
  load_across_t(x, rows, f1, f2, digits, out);
}
BF16X_CLONES void load_scaled_across(const double* x, int rows, const double* f1, const double* f2, bool digits,
                                     double* out) {
  load_across_t(x, rows, f1, f2, digits, out);
}

BF16X_CLONES void load_scaled(const float* x, int len, double f1, double f2, bool digits, double* out) {
  load_scaled_t(x, len, f1, f2, digits, out);
}
BF16X_CLONES void load_scaled(const double* x, int len, double f1, double f2, bool digits, double* out) {
  load_scaled_t(x, len, f1, f2, digits, out);
}

namespace {

// r - q p with q = rint(r / p) (approximately) is exact: its true value is an integer below 2^53 in magnitude.
// One step leaves |r| < 1.5 p for |r| < 2^51 p; `big` adds a first step for |r| up to 2^100.
inline void residues_t(const double* y, int len, double p, double invp, double hi, double lo, bool big,
                       std::int8_t* out) {
  if (big) {
    for (int l = 0; l < len; ++l) {
      double r = y[l];
      r = std::fma(-std::rint(r * invp), p, r);
      r = std::fma(-std::rint(r * invp), p, r);
      r = r > hi ? r - p : r;
      r = r < lo ? r + p : r;
      out[l] = std::int8_t(int(r));
    }
  } else {
    for (int l = 0; l < len; ++l) {
      double r = y[l];
      r = std::fma(-std::rint(r * invp), p, r);
      r = r > hi ? r - p : r;
      r = r < lo ? r + p : r;
      out[l] = std::int8_t(int(r));
    }
  }
}

inline void line_bytes(const double* y, int len, const CrtPlan* plan, int t, bool big, std::int8_t* out) {
  if (plan)
    residues_t(y, len, plan->p[t], plan->invp[t], plan->hi[t], plan->lo[t], big, out);
  else
    for (int l = 0; l < len; ++l) out[l] = std::int8_t(int(y[l]));
}

}  // namespace

BF16X_CLONES void residues(const double* y, int len, double p, double invp, double hi, double lo, bool big,
                           std::int8_t* out) {
  residues_t(y, len, p, invp, hi, lo, big, out);
}

BF16X_CLONES void pack_a_panel(const double* yb, int kcp, const CrtPlan* plan, int t, bool big, std::int8_t* panel) {
  auto* sums = reinterpret_cast<std::int32_t*>(panel + std::size_t(kcp) * 32);
  for (int r = 0; r < 32; ++r) {
    std::int32_t s = 0;
    for (int ch = 0; ch < kcp / 64; ++ch) {
      std::int8_t* out = panel + std::size_t(ch) * 2048 + r * 64;
      line_bytes(yb + std::size_t(r) * kcp + ch * 64, 64, plan, t, big, out);
      for (int l = 0; l < 64; ++l) s += out[l];
    }
    sums[r] = s;
  }
}

BF16X_CLONES void pack_b_panel(const double* yb, int kcp, const CrtPlan* plan, int t, bool big, std::int8_t* tmp,
                               std::int8_t* panel) {
  for (int c = 0; c < 32; ++c) {
    line_bytes(yb + std::size_t(c) * kcp, kcp, plan, t, big, tmp);
    for (int q = 0; q < kcp / 4; ++q) std::memcpy(panel + q * 128 + c * 4, tmp + 4 * q, 4);
  }
}

BF16X_CLONES void reduce_mod(std::int32_t* acc, std::size_t count, const CrtPlan& plan, int t) {
  const double p = plan.p[t], invp = plan.invp[t], hi = plan.hi[t], lo = plan.lo[t];
  for (std::size_t e = 0; e < count; ++e) {
    double r = double(acc[e]);
    r = r - std::rint(r * invp) * p;  // |q p| < 2^32: exact
    r = r > hi ? r - p : r;
    r = r < lo ? r + p : r;
    acc[e] = std::int32_t(r);
  }
}

BF16X_CLONES void reconstruct_row(const std::int32_t* acc, std::size_t stride, int cols, const CrtPlan& plan,
                                  double* s1, double* s2, double* out) {
  for (int j = 0; j < cols; ++j) s1[j] = s2[j] = 0;
  for (int t = 0; t < plan.n; ++t) {
    const std::int32_t* a = acc + stride * std::size_t(t);
    const double p = plan.p[t], invp = plan.invp[t], hi = plan.hi[t], lo = plan.lo[t];
    const double q1 = plan.q1[t], q2 = plan.q2[t];
    for (int j = 0; j < cols; ++j) {
      double r = double(a[j]);
      r = r - std::rint(r * invp) * p;
      r = r > hi ? r - p : r;
      r = r < lo ? r + p : r;
      s1[j] += r * q1;  // exact: multiples of 2^g below 2^53 2^g
      s2[j] += r * q2;
    }
  }
  const double P1 = plan.P1, P2 = plan.P2, invP = plan.invP;
  for (int j = 0; j < cols; ++j) {
    const double K = std::rint((s1[j] + s2[j]) * invP);  // |X| <= P/4: the nearest integer is K exactly
    const double hi = s1[j] - K * P1;                    // exact
    const double lo = s2[j] - K * P2;
    out[j] = hi + lo;
  }
}

}  // namespace bf16x::crt
