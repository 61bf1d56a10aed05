// A complex GEMMT (HERK, SYRK, the pairs of HER2K and SYR2K) as two real GEMMTs, one per part of C's triangle
// (level3/operation.hpp, complex_triangle): the real modes take a triangle in one call, with their operands scanned
// and packed once, where the complex GEMMs of the recursion scan and pack them again at every level of it.
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

// a b + c d in elements, or 0 past std::size_t (then more than any budget).
std::size_t elements(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
  std::size_t x, y, z;
  if (__builtin_mul_overflow(std::size_t(a), std::size_t(b), &x) ||
      __builtin_mul_overflow(std::size_t(c), std::size_t(d), &y) || __builtin_add_overflow(x, y, &z))
    return 0;
  return z;
}

}  // namespace

template <typename E>
int complex_triangle(const RealTriangle<real_t<E>>& real, Triangle t, std::int64_t n, std::int64_t k, E alpha,
                     const Operand<E>& a, const Operand<E>& b, E beta, const View<E>& c) {
  using R = real_t<E>;
  // A complex alpha or beta would mix the parts (one more rounding: the complex GEMMs' combine does that); alpha = 0
  // or k = 0 reads no operand (which may be NULL).
  if (alpha.im != 0 || beta.im != 0 || is_zero(alpha) || k == 0 || n == 0) return kDeclined;
  // X = [Re op(A)  Im op(A)] (n x 2k) and S = [Im op(B); Re op(B); -Im op(B)] (3k x n), whose rows [k, 3k) are Re P's
  // second operand and rows [0, 2k) Im P's; the parts of C (n x n each).
  const std::int64_t k3 = 3 * k;
  const std::size_t count = elements(n, 2 * k + k3, 2 * n, n);
  if (count == 0 || count > kComplexTriangleBytes / sizeof(R)) return kDeclined;
  util::Workspace& kept = parts_space();
  R* const x = static_cast<R*>(kept.reserve(count * sizeof(R)));
  if (!x) throw std::bad_alloc();
  R* const s = x + n * 2 * k;
  R* const re = s + k3 * n;
  R* const im = re + n * n;
  // A NaN or Inf in either operand: declined before C is read, for the complex GEMMs' own handling of them.
  const auto finite = [](const E& v) { return std::isfinite(v.re) && std::isfinite(v.im); };
  std::atomic<bool> ok{true};
  util::for_each_index(k, 2 * n * k, [&](std::int64_t l) {
    bool mine = true;
    for (std::int64_t i = 0; i < n; ++i) {
      const E v = a.at(i, l);
      x[i + l * n] = v.re, x[i + (k + l) * n] = v.im;
      mine = mine && finite(v);
    }
    if (!mine) ok.store(false, std::memory_order_relaxed);
  });
  util::for_each_index(n, 2 * n * k, [&](std::int64_t j) {
    bool mine = true;
    R* const col = s + j * k3;
    for (std::int64_t l = 0; l < k; ++l) {
      const E v = b.at(l, j);
      col[l] = v.im, col[k + l] = v.re, col[2 * k + l] = -v.im;
      mine = mine && finite(v);
    }
    if (!mine) ok.store(false, std::memory_order_relaxed);
  });
  if (!ok.load(std::memory_order_relaxed)) {
    kept.release_if_large();
    return kDeclined;
  }
  const auto stored = [&](std::int64_t i, std::int64_t j) { return t.lower ? i >= j : i <= j; };
  const bool read_c = beta.re != 0;
  if (read_c)
    util::for_each_index(n, n * n / 2, [&](std::int64_t j) {
      for (std::int64_t i = 0; i < n; ++i)
        if (stored(i, j)) {
          const E v = c.at(i, j);
          re[i + j * n] = v.re, im[i + j * n] = t.hermitian && i == j ? R(0) : v.im;
        }
    });
  int st = real(t.lower, n, 2 * k, alpha.re, x, s + k, k3, beta.re, re);
  if (st == BF16X_OK) st = real(t.lower, n, 2 * k, alpha.re, x, s, k3, beta.re, im);
  if (st == BF16X_OK)
    util::for_each_index(n, n * n / 2, [&](std::int64_t j) {
      for (std::int64_t i = 0; i < n; ++i)
        if (stored(i, j)) c.at(i, j) = E{re[i + j * n], t.hermitian && i == j ? R(0) : im[i + j * n]};
    });
  kept.release_if_large();
  return st;
}

template int complex_triangle<bf16x_complex_float>(const RealTriangle<float>&, Triangle, std::int64_t, std::int64_t,
                                                   bf16x_complex_float, const Operand<bf16x_complex_float>&,
                                                   const Operand<bf16x_complex_float>&, bf16x_complex_float,
                                                   const View<bf16x_complex_float>&);
template int complex_triangle<bf16x_complex_double>(const RealTriangle<double>&, Triangle, std::int64_t, std::int64_t,
                                                    bf16x_complex_double, const Operand<bf16x_complex_double>&,
                                                    const Operand<bf16x_complex_double>&, bf16x_complex_double,
                                                    const View<bf16x_complex_double>&);

}  // namespace bf16x::level3
