// A view of op(A) (m x k) or op(B) (k x n) of a column-major GEMM, after layout normalisation in api/.
#pragma once
#include <cstdint>

namespace bf16x::pack {

template <typename T>
struct MatrixView {
  const T* data;
  std::int64_t ld;
  bool trans;  // element (i, j) of op(X) is data[j + i*ld] when trans, data[i + j*ld] otherwise
  T operator()(std::int64_t i, std::int64_t j) const { return trans ? data[j + i * ld] : data[i + j * ld]; }
  // The distance in memory from element (i, j) to (i + 1, j), and to (i, j + 1).
  std::int64_t row_step() const { return trans ? ld : 1; }
  std::int64_t col_step() const { return trans ? 1 : ld; }
};

// The part of C that a call computes and writes: all of it, or one triangle of a square C (GEMMT in one call: the
// level-3 layer's SYRK, SYR2K and GEMMT where the method takes it). The other part is neither read nor written.
enum class OutputPart : unsigned char { all, lower, upper };

// Whether C(i, j) is in the part.
inline bool in_part(OutputPart p, std::int64_t i, std::int64_t j) {
  return p == OutputPart::all || (p == OutputPart::lower ? i >= j : i <= j);
}
// Whether the block of rows [i0, i0 + rows) and columns [j0, j0 + cols) holds an entry of the part.
inline bool block_in_part(OutputPart p, std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols) {
  return p == OutputPart::all || (p == OutputPart::lower ? i0 + rows - 1 >= j0 : i0 <= j0 + cols - 1);
}
// The columns [lo, hi) of row i within [j0, j0 + cols) that are in the part (lo >= hi: none).
struct Span {
  std::int64_t lo, hi;
};
inline Span row_in_part(OutputPart p, std::int64_t i, std::int64_t j0, std::int64_t cols) {
  std::int64_t lo = j0, hi = j0 + cols;
  if (p == OutputPart::lower) hi = hi < i + 1 ? hi : i + 1;
  if (p == OutputPart::upper) lo = lo > i ? lo : i;
  return {lo, hi};
}

// The rows [lo, hi) of column j within [i0, i0 + rows) that are in the part.
inline Span col_in_part(OutputPart p, std::int64_t j, std::int64_t i0, std::int64_t rows) {
  std::int64_t lo = i0, hi = i0 + rows;
  if (p == OutputPart::lower) lo = lo > j ? lo : j;
  if (p == OutputPart::upper) hi = hi < j + 1 ? hi : j + 1;
  return {lo, hi};
}
// Whether the part's edge cuts the block (some of its entries in the part, some not).
inline bool block_cut_by_part(OutputPart p, std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols) {
  return p != OutputPart::all && (p == OutputPart::lower ? j0 + cols - 1 > i0 : i0 + rows - 1 > j0);
}

// A lower-triangular op(A) (a panel of TRMM's triangle): op(A)(i, l) = 0 for l >= step (i + shift + 1), that is
// l > i + shift for step 1; step 2 where the real and imaginary parts of a complex triangle's row lie side by side
// (level3/complex_parts.cpp). Those products are zero, and the drivers skip the k-blocks (and shorten the k range)
// of a tile of rows that reach no further.
struct LowerOperand {
  bool on = false;
  std::int64_t shift = 0;
  std::int64_t step = 1;
  // The k up to which rows [i0, i0 + rows) may be nonzero (k itself where !on).
  std::int64_t reach(std::int64_t i0, std::int64_t rows, std::int64_t k) const {
    if (!on) return k;
    const std::int64_t r = (i0 + rows + shift) * step;
    return r < 0 ? 0 : r < k ? r : k;
  }
};

// One GEMM call as both drivers take it (driver::gemm_emulated, crt::gemm_crt): C = alpha op(A) op(B) + beta C with
// op(A) m x k and op(B) k x n as views, C column-major (or row-major where c_row_major), beta 0: C not read.
template <typename T>
struct GemmArgs {
  std::int64_t m, n, k;
  T alpha;
  MatrixView<T> a;  // op(A), m x k
  MatrixView<T> b;  // op(B), k x n
  T beta;
  T* c;
  std::int64_t ldc;
  bool c_row_major = false;           // C(i, j) at c[i * ldc + j] (the caller's row-major C, kept as it is)
  OutputPart part = OutputPart::all;  // (m == n where not all)
  LowerOperand a_lower{};             // op(A) lower triangular: its zero products may be skipped
};

// The scale exponents of op(A)'s rows and op(B)'s columns as pack::scan_scales_a/b give them (pack/panels.hpp), where
// the caller measured them already in a read of its own (the guard's envelope: policy::measure_fill), so that a driver
// need not read the operands again; null: the driver scans. Known exponents come only from finite operands.
struct KnownScales {
  const int* a = nullptr;
  const int* b = nullptr;
  explicit operator bool() const { return a && b; }
};

}  // namespace bf16x::pack
