// The bodies of crt/crt_loops.hpp, included once by each variant's translation unit; internal linkage, so the
// linker never merges a copy built for one ISA into another.
#pragma once
#include <cmath>
#include <cstring>

#include "crt/crt_loops.hpp"

namespace bf16x::crt {
namespace {

template <typename T>
void load_scaled_loop(const T* x, int len, double f1, double f2, bool digits, double* out) {
  if (digits)
    for (int l = 0; l < len; ++l) out[l] = std::ceil(std::fabs(double(x[l]) * f1 * f2));
  else
    for (int l = 0; l < len; ++l) out[l] = std::trunc(double(x[l]) * f1 * f2);
}

template <typename T>
void load_across_loop(const T* x, int rows, const double* f1, const double* f2, bool digits, double* out) {
  if (digits)
    for (int r = 0; r < rows; ++r) out[r] = std::ceil(std::fabs(double(x[r]) * f1[r] * f2[r]));
  else
    for (int r = 0; r < rows; ++r) out[r] = std::trunc(double(x[r]) * f1[r] * f2[r]);
}

// r - q p with q = rint(r / p) (approximately) is exact: its true value is an integer below 2^53 in magnitude.
// One step leaves |r| < 1.5 p for |r| < 2^51 p; `big` adds a first step for |r| up to 2^100.
void residues_loop(const double* y, int len, double p, double invp, double hi, double lo, bool big, std::int8_t* out) {
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

void line_bytes(const double* y, int len, const CrtPlan* plan, int t, bool big, std::int8_t* out) {
  if (plan)
    residues_loop(y, len, plan->p[t], plan->invp[t], plan->hi[t], plan->lo[t], big, out);
  else
    for (int l = 0; l < len; ++l) out[l] = std::int8_t(int(y[l]));
}

void pack_a_panel_loop(const double* yb, int kcp, const CrtPlan* plan, int t, bool big, std::int8_t* panel) {
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

void pack_b_panel_loop(const double* yb, int kcp, const CrtPlan* plan, int t, bool big, std::int8_t* tmp,
                       std::int8_t* panel) {
  for (int c = 0; c < 32; ++c) {
    line_bytes(yb + std::size_t(c) * kcp, kcp, plan, t, big, tmp);
    for (int q = 0; q < kcp / 4; ++q) std::memcpy(panel + q * 128 + c * 4, tmp + 4 * q, 4);
  }
}

void reduce_mod_loop(std::int32_t* acc, std::size_t count, const CrtPlan& plan, int t) {
  const double p = plan.p[t], invp = plan.invp[t], hi = plan.hi[t], lo = plan.lo[t];
  for (std::size_t e = 0; e < count; ++e) {
    double r = double(acc[e]);
    r = r - std::rint(r * invp) * p;  // |q p| < 2^32: exact
    r = r > hi ? r - p : r;
    r = r < lo ? r + p : r;
    acc[e] = std::int32_t(r);
  }
}

void reconstruct_row_loop(const std::int32_t* acc, std::size_t stride, int cols, const CrtPlan& plan, double* s1,
                          double* s2, double* out) {
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

constexpr CrtLoops make_crt_loops() {
  return {load_scaled_loop<float>, load_scaled_loop<double>, load_across_loop<float>, load_across_loop<double>,
          residues_loop,           pack_a_panel_loop,        pack_b_panel_loop,       reduce_mod_loop,
          reconstruct_row_loop};
}

}  // namespace
}  // namespace bf16x::crt
