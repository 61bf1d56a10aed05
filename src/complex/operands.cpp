#include "complex/operands.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "util/pow2.hpp"
#include "util/team.hpp"

namespace bf16x::complex {
namespace {

using util::pow2;

// 2^-e as two normal factors (e spans -1074..1024, beyond one double), applied one after the other: exact where
// the result is normal.
struct Factor {
  double f1 = 1, f2 = 1;
};
Factor factor(int e) {
  const int h = -e / 2;
  return {pow2(h), pow2(-e - h)};
}

// The exponent e of a line's largest magnitude (mx in [2^(e-1), 2^e)), 0 for a zero line.
int exponent_of(double mx) { return mx > 0 ? std::ilogb(mx) + 1 : 0; }

}  // namespace

template <typename T>
void split_parts(const ComplexOperand<T>& op, std::int64_t i0, std::int64_t j0, std::int64_t r, std::int64_t c, T* re,
                 std::int64_t ldre, T* im, std::int64_t ldim, bool negate_im) {
  const T sign = op.conj != negate_im ? T(-1) : T(1);
  util::for_each_index(c, r * c, [&](std::int64_t j) {
    const Factor fc = op.col_exp ? factor(op.col_exp[j0 + j]) : Factor{};
    for (std::int64_t i = 0; i < r; ++i) {
      // Element (i0 + i, j0 + j) of op(X): X(i, j), or X(j, i) for a transposed operand.
      const std::int64_t oi = i0 + i, oj = j0 + j;
      const T* e = op.x + 2 * (op.trans ? oj + oi * op.ld : oi + oj * op.ld);
      if (op.row_exp || op.col_exp) {
        const Factor f = op.row_exp ? factor(op.row_exp[oi]) : fc;
        re[i + j * ldre] = T(double(e[0]) * f.f1 * f.f2);
        im[i + j * ldim] = sign * T(double(e[1]) * f.f1 * f.f2);
      } else {
        re[i + j * ldre] = e[0];
        im[i + j * ldim] = sign * e[1];
      }
    }
  });
}

template <typename T>
OperandScan scan_operand(const ComplexOperand<T>& op, bool rows) {
  const std::int64_t srows = op.trans ? op.cols : op.rows, scols = op.trans ? op.rows : op.cols;  // stored X
  // A line is a column of the stored X (rows of op(X) = columns of X for a transposed operand), or one of its rows.
  const bool along = rows == op.trans;
  OperandScan out;
  out.exps.assign(static_cast<std::size_t>(along ? scols : srows), 0);
  int* exps = out.exps.data();
  std::atomic<bool> finite{true};  // cleared by any line with a NaN or Inf
  if (along) {
    util::for_each_index(scols, srows * scols, [&](std::int64_t j) {
      const T* col = op.x + 2 * j * op.ld;
      double mx = 0;
      bool f = true;
      for (std::int64_t i = 0; i < 2 * srows; ++i) {
        const double v = std::fabs(double(col[i]));
        f = f && std::isfinite(v);
        mx = std::max(mx, v);
      }
      if (!f) finite.store(false, std::memory_order_relaxed);
      exps[j] = f ? exponent_of(mx) : 0;
    });
  } else {
    // Rows across the stored columns: a chunk of rows at a time, each column read along its contiguous run.
    constexpr std::int64_t kChunk = 256;
    const std::int64_t chunks = (srows + kChunk - 1) / kChunk;
    util::for_each_index(chunks, srows * scols, [&](std::int64_t ch) {
      double mx[kChunk] = {};
      bool f = true;
      const std::int64_t r0 = ch * kChunk, nr = std::min(kChunk, srows - r0);
      for (std::int64_t j = 0; j < scols; ++j) {
        const T* col = op.x + 2 * (r0 + j * op.ld);
        for (std::int64_t i = 0; i < nr; ++i) {
          const double v = std::max(std::fabs(double(col[2 * i])), std::fabs(double(col[2 * i + 1])));
          f = f && std::isfinite(v);
          mx[i] = std::max(mx[i], v);
        }
      }
      if (!f) finite.store(false, std::memory_order_relaxed);
      for (std::int64_t i = 0; i < nr; ++i) exps[r0 + i] = f ? exponent_of(mx[i]) : 0;
    });
  }
  out.finite = finite.load();
  return out;
}

template void split_parts(const ComplexOperand<float>&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, float*,
                          std::int64_t, float*, std::int64_t, bool);
template void split_parts(const ComplexOperand<double>&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                          double*, std::int64_t, double*, std::int64_t, bool);
template OperandScan scan_operand(const ComplexOperand<float>&, bool);
template OperandScan scan_operand(const ComplexOperand<double>&, bool);

}  // namespace bf16x::complex
