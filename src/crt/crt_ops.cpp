// The element loops of the CRT driver: each call goes to the variant of crt/crt_loops.hpp this CPU runs.
#include "crt/crt_ops.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/features.hpp"
#include "crt/crt_loops.hpp"

namespace bf16x::crt {

const CrtLoops& crt_loops() {
  static const CrtLoops& loops =
      cpu::by_level(kCrtLoopsGeneric, kCrtLoopsAvx2, cpu::has_avx512vnni() ? kCrtLoopsAvx512Vnni : kCrtLoopsAvx512);
  return loops;
}

void load_scaled(const float* x, int len, double f1, double f2, bool digits, double* out) {
  crt_loops().load_scaled_fp32(x, len, f1, f2, digits, out);
}
void load_scaled(const double* x, int len, double f1, double f2, bool digits, double* out) {
  crt_loops().load_scaled_fp64(x, len, f1, f2, digits, out);
}

void load_scaled_across(const float* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                        bool digits, double* yb, int kcp) {
  crt_loops().load_across_fp32(x, ld, rows, len, f1, f2, digits, yb, kcp);
}
void load_scaled_across(const double* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                        bool digits, double* yb, int kcp) {
  crt_loops().load_across_fp64(x, ld, rows, len, f1, f2, digits, yb, kcp);
}

void residues(const double* y, int len, double p, double invp, double hi, double lo, int bits, std::int8_t* out) {
  crt_loops().residues(y, len, p, invp, hi, lo, bits, out);
}

void pack_panel(bool of_a, bool live, const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits,
                std::int8_t* panel, std::size_t stride, bool stream) {
  const CrtLoops& l = crt_loops();
  (of_a ? l.pack_a : l.pack_b)(yb, kcp, live ? len : kcp, lines, plan, bits, panel, stride, stream, !live);
}

void reduce_mod(std::int32_t* acc, std::size_t count, const CrtPlan& plan, int t) {
  crt_loops().reduce_mod(acc, count, plan, t);
}

void residue_rows(const std::int32_t* acc, std::size_t ld, int rows, int cols, const CrtPlan& plan, int t,
                  std::int8_t* out, std::size_t ld_out) {
  crt_loops().residue_rows(acc, ld, rows, cols, plan, t, out, ld_out);
}

void reconstruct_row(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* s1, double* s2,
                     double* out) {
  crt_loops().reconstruct_row(res, stride, cols, plan, s1, s2, out);
}

namespace {

// x rounded to the nearest integer (ties to even) for |x| < 2^51, in two additions: no libm call in this generic
// translation unit, the same bits everywhere.
inline double nearest(double x) {
  constexpr double kShift = 0x1.8p52;
  return (x + kShift) - kShift;
}

}  // namespace

void reconstruct_row_exact(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* out) {
  // The grids of q1 and of the three chunks (moduli.hpp).
  const double grid[4] = {std::ldexp(1.0, plan.g), std::ldexp(1.0, std::max(0, plan.g - 40)),
                          std::ldexp(1.0, std::max(0, plan.g - 80)), 1.0};
  const double inv_grid[3] = {1 / grid[0], 1 / grid[1], 1 / grid[2]};
  constexpr int kCols = 64;
  for (int j0 = 0; j0 < cols; j0 += kCols) {
    const int w = std::min(kCols, cols - j0);
    double s[4][kCols] = {};  // S1 and the chunks' sums, exact: multiples of their grids below 2^51.4 of them
    for (int t = 0; t < plan.n; ++t) {
      const std::int8_t* r = res + stride * std::size_t(t) + std::size_t(j0);
      const double q[4] = {plan.q1[t], plan.qx[0][t], plan.qx[1][t], plan.qx[2][t]};
      for (int c = 0; c < 4; ++c)
        for (int j = 0; j < w; ++j) s[c][j] += double(r[j]) * q[c];
    }
    const double P[4] = {plan.P1, plan.Px[0], plan.Px[1], plan.Px[2]};
    for (int j = 0; j < w; ++j) {
      const double K = nearest((s[0][j] + s[1][j]) * plan.invP);  // the chunks below move S/P by less than 2^-60
      // X = d[0] + d[1] + d[2] + d[3], each exact (K < 2^12 and every P_c below 2^41: K P_c is exact, and so is the
      // difference of two multiples of the grid below 2^53 of it). Each then carries its part above the next grid
      // up into it (exact sums of multiples of that grid), leaving X as four parts of which no two overlap.
      double d[4];
      for (int c = 0; c < 4; ++c) d[c] = s[c][j] - K * P[c];
      for (int c = 3; c > 0; --c) {
        const double carry = nearest(d[c] * inv_grid[c - 1]) * grid[c - 1];
        d[c] -= carry;
        d[c - 1] += carry;
      }
      // TwoSum of the top two (exact), the low part with the rest, one rounding at the end:
      // |out - X| <= u |out| + 2 u^2 |X| + 2^(g - 92) (docs/numerics.md, "Second level").
      const double hi = d[0] + d[1], v = hi - d[0], lo = (d[0] - (hi - v)) + (d[1] - v);
      out[j0 + j] = hi + (lo + (d[2] + d[3]));
    }
  }
}

void maxima(const std::int32_t* acc, std::size_t ld, int rows, int cols, std::int32_t* row_max, std::int32_t* col_max) {
  crt_loops().maxima(acc, ld, rows, cols, row_max, col_max);
}

void write_scaled(float* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                  const WriteScales& w) {
  crt_loops().write_fp32(c, rs, cs, x, ldx, rows, cols, w);
}
void write_scaled(double* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                  const WriteScales& w) {
  crt_loops().write_fp64(c, rs, cs, x, ldx, rows, cols, w);
}

}  // namespace bf16x::crt
