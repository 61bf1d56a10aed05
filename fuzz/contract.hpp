// The status contract of bf16x_sgemm / bf16x_dgemm (include/bf16x/bf16x.h), written out independently of
// src/api/: reference-CBLAS argument order (layout, transa, transb, m, n, k, lda, ldb, ldc), then 64-bit size
// overflow, NULL pointers, the options, and ERR_ENGINE only for a call that would run an emulated product. Which
// values are modes, and of which routine and method, it asks the library's mode records (src/mode/records.hpp)
// instead of copying them (a copy fell behind once: fp64cr and fp32cr were counted invalid).
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "bf16x/bf16x.h"
#include "engine/records.hpp"
#include "mode/records.hpp"

namespace bf16x::fuzz {

struct Call {
  int layout, transa, transb;
  std::int64_t m, n, k, lda, ldb, ldc;
  bool alpha_zero;
  bool a_null, b_null, c_null;
  bool ex_api;        // bf16x_?gemm_ex (all options) or bf16x_?gemm (mode only)
  bf16x_options opt;  // for the plain API only opt.mode is passed
};

// A stored matrix: `rows` runs along the leading dimension.
struct Stored {
  std::int64_t rows, cols;
};

inline bool is_col(const Call& c) { return c.layout != BF16X_ROW_MAJOR; }
inline bool is_trans(int t) { return t != BF16X_NO_TRANS; }
inline Stored stored_a(const Call& c) {
  const bool t = is_trans(c.transa);
  return is_col(c) ? Stored{t ? c.k : c.m, t ? c.m : c.k} : Stored{t ? c.m : c.k, t ? c.k : c.m};
}
inline Stored stored_b(const Call& c) {
  const bool t = is_trans(c.transb);
  return is_col(c) ? Stored{t ? c.n : c.k, t ? c.k : c.n} : Stored{t ? c.k : c.n, t ? c.n : c.k};
}
inline Stored stored_c(const Call& c) { return is_col(c) ? Stored{c.m, c.n} : Stored{c.n, c.m}; }

// Elements spanned by a stored matrix, (cols-1)*ld + rows; false on int64 overflow.
inline bool extent(const Stored& s, std::int64_t ld, std::int64_t* out) {
  if (s.rows <= 0 || s.cols <= 0) {
    *out = 0;
    return true;
  }
  std::int64_t t;
  if (__builtin_mul_overflow(s.cols - 1, ld, &t) || __builtin_add_overflow(t, s.rows, &t)) return false;
  *out = t;
  return true;
}

inline bool bytes_fit(const Stored& s, std::int64_t ld, int elem) {
  std::int64_t e, b;
  return extent(s, ld, &e) && !__builtin_mul_overflow(e, std::int64_t(elem), &b);
}

// (x0 + x1 + x2) * (y0 + y1) * f without leaving int64 (all terms non-negative).
inline bool mul_fits(std::initializer_list<std::int64_t> xs, std::initializer_list<std::int64_t> ys, std::int64_t f) {
  std::int64_t x = 0, y = 0, t;
  for (std::int64_t v : xs)
    if (__builtin_add_overflow(x, v, &x)) return false;
  for (std::int64_t v : ys)
    if (__builtin_add_overflow(y, v, &y)) return false;
  return !__builtin_mul_overflow(x, y, &t) && !__builtin_mul_overflow(t, f, &t);
}

struct Expected {
  int status;
  bool size_error_allowed;  // ERR_SIZE is acceptable in place of `status` (a loose size bound overflows)
};

inline bool valid_trans(int t) { return t == BF16X_NO_TRANS || t == BF16X_TRANS || t == BF16X_CONJ_TRANS; }

// A mode of this routine: DEFAULT, NATIVE and AUTO, or an emulated mode of its precision; any other value is refused.
inline bool mode_fits(int mode, bool dbl) { return mode::fits(mode, dbl); }
inline bool is_method(int mode, mode::Method m) { return mode::is(mode, m); }
inline bool is_slice_mode(int mode) { return is_method(mode, mode::Method::slices); }
inline bool is_cr_mode(int mode) { return is_method(mode, mode::Method::correctly_rounded); }
inline bool is_crt_mode(int mode) { return is_method(mode, mode::Method::crt); }
// A mode that computes C itself rather than choose (DEFAULT, AUTO) or call the host (NATIVE).
inline bool is_emulated_mode(int mode) { return is_slice_mode(mode) || is_cr_mode(mode) || is_crt_mode(mode); }

// A named engine for a CRT mode: an engine without an INT8 side is the wrong kind, one whose INT8 side this CPU
// cannot run is unavailable (the slice and correctly rounded modes: its BF16 side, below).
inline int crt_engine_status(int engine) {
  if (engine == BF16X_ENGINE_AUTO) return BF16X_OK;
  if (!engine::int8_engine(engine)) return BF16X_ERR_ENGINE_KIND;
  return engine::int8_usable(engine) ? BF16X_OK : BF16X_ERR_ENGINE;
}

inline Expected expected_status(const Call& c, bool dbl) {
  const int elem = dbl ? 8 : 4;
  if (c.layout != BF16X_ROW_MAJOR && c.layout != BF16X_COL_MAJOR) return {BF16X_ERR_LAYOUT, false};
  if (!valid_trans(c.transa)) return {BF16X_ERR_TRANS_A, false};
  if (!valid_trans(c.transb)) return {BF16X_ERR_TRANS_B, false};
  if (c.m < 0) return {BF16X_ERR_M, false};
  if (c.n < 0) return {BF16X_ERR_N, false};
  if (c.k < 0) return {BF16X_ERR_K, false};
  const Stored a = stored_a(c), b = stored_b(c), cc = stored_c(c);
  if (c.lda < std::max<std::int64_t>(1, a.rows)) return {BF16X_ERR_LDA, false};
  if (c.ldb < std::max<std::int64_t>(1, b.rows)) return {BF16X_ERR_LDB, false};
  if (c.ldc < std::max<std::int64_t>(1, cc.rows)) return {BF16X_ERR_LDC, false};
  // An operand whose byte extent, or any of m*n, m*k, k*n, leaves int64 must be refused before it is touched.
  std::int64_t t;
  if (!bytes_fit(a, c.lda, elem) || !bytes_fit(b, c.ldb, elem) || !bytes_fit(cc, c.ldc, elem) ||
      __builtin_mul_overflow(c.m, c.n, &t) || __builtin_mul_overflow(c.m, c.k, &t) ||
      __builtin_mul_overflow(c.k, c.n, &t))
    return {BF16X_ERR_SIZE, false};
  // Refusing is also allowed (in place of any later status) where 8-byte extents or the packed slices of both
  // operands (at most 6 slices x 2 bytes, padded to 64) would not fit.
  const bool loose = !bytes_fit(a, c.lda, 8) || !bytes_fit(b, c.ldb, 8) || !bytes_fit(cc, c.ldc, 8) ||
                     !mul_fits({c.m, c.n, 64}, {c.k, 64}, 64);
  if (c.m > 0 && c.n > 0) {
    if (c.c_null) return {BF16X_ERR_NULL, loose};
    if (c.k > 0 && !c.alpha_zero && (c.a_null || c.b_null)) return {BF16X_ERR_NULL, loose};
  }
  if (c.ex_api) {
    const bf16x_options& o = c.opt;
    if (!mode_fits(o.mode, dbl)) return {BF16X_ERR_MODE, loose};
    if (o.engine < BF16X_ENGINE_AUTO || o.engine > BF16X_ENGINE_AVX2) return {BF16X_ERR_OPTIONS, loose};
    if (o.split != BF16X_SPLIT_SCALED && o.split != BF16X_SPLIT_PAPER) return {BF16X_ERR_OPTIONS, loose};
    if (o.block_k < 0 || o.block_k > 256 || o.block_k % 32 != 0) return {BF16X_ERR_OPTIONS, loose};
    if (!(o.auto_target >= 0.0)) return {BF16X_ERR_OPTIONS, loose};
  } else if (!mode_fits(c.opt.mode, dbl)) {
    return {BF16X_ERR_MODE, loose};
  }
  // BLAS quick returns succeed whatever engine was asked for.
  if (c.m == 0 || c.n == 0 || c.k == 0 || c.alpha_zero) return {BF16X_OK, loose};
  const int engine = c.ex_api ? c.opt.engine : BF16X_ENGINE_AUTO;
  if (is_crt_mode(c.opt.mode)) return {crt_engine_status(engine), loose};
  if (engine != BF16X_ENGINE_AUTO && !bf16x_engine_available(engine) && is_emulated_mode(c.opt.mode))
    return {BF16X_ERR_ENGINE, loose};
  return {BF16X_OK, loose};
}

}  // namespace bf16x::fuzz
