#include "api/checks.hpp"

#include <algorithm>

#include "bf16x/bf16x.h"

namespace bf16x::api {
bool valid_trans(int t) { return t == BF16X_NO_TRANS || t == BF16X_TRANS || t == BF16X_CONJ_TRANS; }

namespace {

// rows x cols elements at leading dimension ld (column-major storage): (cols-1)*ld + rows must fit in int64.
bool extent_fits(std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  if (rows == 0 || cols == 0) return true;
  std::int64_t t;
  return !__builtin_mul_overflow(cols - 1, ld, &t) && !__builtin_add_overflow(t, rows, &t) &&
         !__builtin_mul_overflow(t, std::int64_t(8), &t);
}

}  // namespace

int check_gemm_args(const GemmShape& s, const void* a, const void* b, const void* c, bool alpha_zero) {
  if (s.layout != BF16X_ROW_MAJOR && s.layout != BF16X_COL_MAJOR) return BF16X_ERR_LAYOUT;
  if (!valid_trans(s.transa)) return BF16X_ERR_TRANS_A;
  if (!valid_trans(s.transb)) return BF16X_ERR_TRANS_B;
  if (s.m < 0) return BF16X_ERR_M;
  if (s.n < 0) return BF16X_ERR_N;
  if (s.k < 0) return BF16X_ERR_K;
  // Stored shapes: in column-major, A is m x k (k x m if transposed); row-major stores the transpose.
  const bool col = s.layout == BF16X_COL_MAJOR;
  const bool ta = s.transa != BF16X_NO_TRANS, tb = s.transb != BF16X_NO_TRANS;
  const std::int64_t a_rows = col ? (ta ? s.k : s.m) : (ta ? s.m : s.k);
  const std::int64_t a_cols = col ? (ta ? s.m : s.k) : (ta ? s.k : s.m);
  const std::int64_t b_rows = col ? (tb ? s.n : s.k) : (tb ? s.k : s.n);
  const std::int64_t b_cols = col ? (tb ? s.k : s.n) : (tb ? s.n : s.k);
  const std::int64_t c_rows = col ? s.m : s.n, c_cols = col ? s.n : s.m;
  // "rows" above is the extent along the leading dimension.
  if (s.lda < std::max<std::int64_t>(1, a_rows)) return BF16X_ERR_LDA;
  if (s.ldb < std::max<std::int64_t>(1, b_rows)) return BF16X_ERR_LDB;
  if (s.ldc < std::max<std::int64_t>(1, c_rows)) return BF16X_ERR_LDC;
  if (!extent_fits(a_rows, a_cols, s.lda) || !extent_fits(b_rows, b_cols, s.ldb) || !extent_fits(c_rows, c_cols, s.ldc))
    return BF16X_ERR_SIZE;
  // m*n, m*k, k*n products used by packing and workspace sizing.
  std::int64_t t;
  if (__builtin_mul_overflow(s.m, s.n, &t) || __builtin_mul_overflow(s.m, s.k, &t) ||
      __builtin_mul_overflow(s.k, s.n, &t) || __builtin_add_overflow(s.k, std::int64_t(64), &t) ||
      __builtin_mul_overflow(std::max(s.m, s.n), t, &t) || __builtin_mul_overflow(t, std::int64_t(64), &t))
    return BF16X_ERR_SIZE;
  if (s.m > 0 && s.n > 0) {
    if (!c) return BF16X_ERR_NULL;
    if (s.k > 0 && !alpha_zero && (!a || !b)) return BF16X_ERR_NULL;
  }
  return BF16X_OK;
}

int check_stored(int layout, const Stored& s) {
  const std::int64_t along = layout == BF16X_COL_MAJOR ? s.rows : s.cols,
                     across = layout == BF16X_COL_MAJOR ? s.cols : s.rows;
  if (s.ld < std::max<std::int64_t>(1, along)) return s.error;
  std::int64_t t;
  if (!extent_fits(along, across, s.ld) || __builtin_mul_overflow(s.rows, s.cols, &t) ||
      __builtin_mul_overflow(t, std::int64_t(64), &t))
    return BF16X_ERR_SIZE;
  return BF16X_OK;
}

}  // namespace bf16x::api
