// Complex level-3 products as two real GEMMs, one per part of C (level3/operation.hpp): a complex GEMMT (HERK, SYRK,
// the pairs of HER2K and SYR2K) on C's triangle alone, and TRMM's lower-triangular panels with their zero products
// skipped; the real modes do both in one call, with their operands scanned and packed once, where the complex GEMMs
// of the recursion (or of a panel, zeros and all) cannot.
#include <atomic>
#include <cmath>
#include <new>

#include "level3/operation.hpp"
#include "util/team.hpp"
#include "util/workspace.hpp"

namespace bf16x::level3 {
namespace {

// The parts' copies, kept by the calling thread between calls (as the GEMM's workspace is), whatever the type.
util::Workspace& parts_space() {
  thread_local util::Workspace kept;
  return kept;
}

// Room for a x + b y + c z reals of R, or nullptr where that exceeds kComplexPartsBytes (the call is then declined).
// Throws std::bad_alloc where the memory is not there.
template <typename R>
R* parts_room(std::int64_t a, std::int64_t x, std::int64_t b, std::int64_t y, std::int64_t c, std::int64_t z) {
  std::size_t p, q, r, count;
  if (__builtin_mul_overflow(std::size_t(a), std::size_t(x), &p) ||
      __builtin_mul_overflow(std::size_t(b), std::size_t(y), &q) ||
      __builtin_mul_overflow(std::size_t(c), std::size_t(z), &r) || __builtin_add_overflow(p, q, &count) ||
      __builtin_add_overflow(count, r, &count) || count > kComplexPartsBytes / sizeof(R))
    return nullptr;
  R* const room = static_cast<R*>(parts_space().reserve(count * sizeof(R)));
  if (!room) throw std::bad_alloc();
  return room;
}

template <typename E>
bool finite(const E& v) {
  return std::isfinite(v.re) && std::isfinite(v.im);
}

// Every element of op(X) (rows x cols) through put(r, c, op(X)(r, c)), along X's memory (by columns of op(X), or by
// its rows where transposed), in parallel where it pays; whether every value was finite.
template <typename E, typename Put>
bool copy_operand(const Operand<E>& x, std::int64_t rows, std::int64_t cols, Put put) {
  std::atomic<bool> ok{true};
  const std::int64_t lines = x.transposed ? rows : cols, len = x.transposed ? cols : rows;
  util::for_each_index(lines, 2 * rows * cols, [&](std::int64_t q) {
    bool mine = true;
    for (std::int64_t p = 0; p < len; ++p) {
      const std::int64_t r = x.transposed ? q : p, c = x.transposed ? p : q;
      const E v = x.at(r, c);
      put(r, c, v);
      mine = mine && finite(v);
    }
    if (!mine) ok.store(false, std::memory_order_relaxed);
  });
  return ok.load(std::memory_order_relaxed);
}

// C's entries that the product writes (its triangle, or all of it), to and from the column-major parts re and im
// (ld m); `real_diagonal`: HERK's, whose imaginary parts are neither read nor kept.
template <typename E>
struct Written {
  const View<E>& c;
  std::int64_t m, n;
  bool triangle, lower, real_diagonal;

  template <typename F>
  void each(F f) const {
    util::for_each_index(n, m * n, [&](std::int64_t j) {
      const std::int64_t i0 = triangle && lower ? j : 0, i1 = triangle && !lower ? j + 1 : m;
      for (std::int64_t i = i0; i < i1; ++i) f(i, j);
    });
  }
  void in(real_t<E>* re, real_t<E>* im) const {
    each([&](std::int64_t i, std::int64_t j) {
      const E v = c.at(i, j);
      re[i + j * m] = v.re, im[i + j * m] = real_diagonal && i == j ? 0 : v.im;
    });
  }
  void out(const real_t<E>* re, const real_t<E>* im) const {
    each([&](std::int64_t i, std::int64_t j) {
      c.at(i, j) = E{re[i + j * m], real_diagonal && i == j ? 0 : im[i + j * m]};
    });
  }
};

// Both parts' real GEMMs of inner dimension k2, Re C = alpha x b_re + beta Re C and Im C likewise, into re and im
// (C's written entries copied in first where beta != 0), then C's entries from them; C is untouched unless both ran.
template <typename E>
int run_parts(const PartGemm<real_t<E>>& real, const Written<E>& w, std::int64_t k2, E alpha, const real_t<E>* x,
              const real_t<E>* b_re, const real_t<E>* b_im, std::int64_t ldb, E beta, real_t<E>* re, real_t<E>* im,
              const PartShape& shape) {
  if (beta.re != 0) w.in(re, im);
  int st = real(w.m, w.n, k2, alpha.re, x, b_re, ldb, beta.re, re, shape);
  if (st == BF16X_OK) st = real(w.m, w.n, k2, alpha.re, x, b_im, ldb, beta.re, im, shape);
  if (st == BF16X_OK) w.out(re, im);
  return st;
}

// A complex alpha or beta would mix the parts (one more rounding: the complex GEMMs' write does that); alpha = 0 or
// k = 0 reads no operand (which may be NULL).
template <typename E>
bool parts_apply(std::int64_t m, std::int64_t n, std::int64_t k, const E& alpha, const E& beta) {
  return alpha.im == 0 && beta.im == 0 && !is_zero(alpha) && k > 0 && m > 0 && n > 0;
}

}  // namespace

template <typename E>
int complex_triangle(const PartGemm<real_t<E>>& real, Triangle t, std::int64_t n, std::int64_t k, E alpha,
                     const Operand<E>& a, const Operand<E>& b, E beta, const View<E>& c) {
  using R = real_t<E>;
  if (!parts_apply(n, n, k, alpha, beta)) return kDeclined;
  // x = [Re op(A)  Im op(A)] (n x 2k) and s = [Im op(B); Re op(B); -Im op(B)] (3k x n), whose rows [k, 3k) are Re
  // P's second operand and rows [0, 2k) Im P's; C's parts n x n each.
  R* const x = parts_room<R>(n, 2 * k, 3 * k, n, 2 * n, n);
  if (!x) return kDeclined;
  R* const s = x + n * 2 * k;
  R* const re = s + 3 * k * n;
  R* const im = re + n * n;
  // NaN or Inf in an operand: declined before C is read, for the complex GEMMs' own handling of them.
  const bool ok = copy_operand(a, n, k,
                               [&](std::int64_t i, std::int64_t l, const E& v) {
                                 x[i + l * n] = v.re, x[i + (k + l) * n] = v.im;
                               }) &&
                  copy_operand(b, k, n, [&](std::int64_t l, std::int64_t j, const E& v) {
                    R* const col = s + j * 3 * k;
                    col[l] = v.im, col[k + l] = v.re, col[2 * k + l] = -v.im;
                  });
  int st = kDeclined;
  if (ok)
    st = run_parts<E>(real, Written<E>{c, n, n, true, t.lower, t.hermitian}, 2 * k, alpha, x, s + k, s, 3 * k, beta, re,
                      im, PartShape{true, t.lower});
  parts_space().release_if_large();
  return st;
}

template <typename E>
int complex_lower(const PartGemm<real_t<E>>& real, std::int64_t m, std::int64_t n, std::int64_t k, E alpha,
                  const Operand<E>& a, const Operand<E>& b, E beta, const View<E>& c) {
  using R = real_t<E>;
  if (!a.lower || !parts_apply(m, n, k, alpha, beta)) return kDeclined;
  // x: op(A)'s parts side by side (Re op(A)(i, l) at column 2l, Im at 2l + 1; m x 2k), b_re and b_im (2k x n each):
  // rows 2l and 2l + 1 Re and -Im of op(B)(l, j), and Im and Re; C's parts m x n each.
  R* const x = parts_room<R>(m, 2 * k, 4 * k, n, 2 * m, n);
  if (!x) return kDeclined;
  R* const b_re = x + m * 2 * k;
  R* const b_im = b_re + 2 * k * n;
  R* const re = b_im + 2 * k * n;
  R* const im = re + m * n;
  const bool ok = copy_operand(a, m, k,
                               [&](std::int64_t i, std::int64_t l, const E& v) {
                                 x[i + 2 * l * m] = v.re, x[i + (2 * l + 1) * m] = v.im;
                               }) &&
                  copy_operand(b, k, n, [&](std::int64_t l, std::int64_t j, const E& v) {
                    b_re[2 * l + j * 2 * k] = v.re, b_re[2 * l + 1 + j * 2 * k] = -v.im;
                    b_im[2 * l + j * 2 * k] = v.im, b_im[2 * l + 1 + j * 2 * k] = v.re;
                  });
  int st = kDeclined;
  if (ok)
    st = run_parts<E>(real, Written<E>{c, m, n, false, false, false}, 2 * k, alpha, x, b_re, b_im, 2 * k, beta, re, im,
                      PartShape{false, false, 2, a.lower_shift});
  parts_space().release_if_large();
  return st;
}

#define BF16X_LEVEL3_COMPLEX_PARTS(E)                                                                    \
  template int complex_triangle<E>(const PartGemm<real_t<E>>&, Triangle, std::int64_t, std::int64_t, E,  \
                                   const Operand<E>&, const Operand<E>&, E, const View<E>&);             \
  template int complex_lower<E>(const PartGemm<real_t<E>>&, std::int64_t, std::int64_t, std::int64_t, E, \
                                const Operand<E>&, const Operand<E>&, E, const View<E>&);
BF16X_LEVEL3_COMPLEX_PARTS(bf16x_complex_float)
BF16X_LEVEL3_COMPLEX_PARTS(bf16x_complex_double)

}  // namespace bf16x::level3
