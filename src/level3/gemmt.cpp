// GEMMT, and SYRK, HERK, SYR2K and HER2K through it (level3/operation.hpp).
#include <omp.h>

#include <algorithm>
#include <exception>
#include <new>
#include <vector>

#include "level3/blocking.hpp"
#include "level3/operation.hpp"
#include "util/team.hpp"
#include "util/workspace.hpp"

namespace bf16x::level3 {
namespace {

template <typename E>
struct TriangularProduct {
  const Gemm<E>& gemm;
  Triangle t;
  std::int64_t k;
  E alpha;
  const Operand<E>& a;
  const Operand<E>& b;
  E beta;
  const View<E>& c;

  int block(std::int64_t i0, std::int64_t j0, std::int64_t rows, std::int64_t cols, const View<E>& out) const {
    return gemm(rows, cols, k, alpha, a.rows_from(i0), b.cols_from(j0), beta, out);
  }

  bool stored(std::int64_t i, std::int64_t j) const { return t.lower ? i >= j : i <= j; }

  // The diagonal block [n0, n1)^2 whole into a packed copy of its stored triangle (zeros in the other; HERK's
  // diagonal real), then its stored triangle back.
  int diagonal(std::int64_t n0, std::int64_t n1) const {
    const std::int64_t s = n1 - n0;
    std::vector<E> w(std::size_t(s * s), zero<E>());
    const View<E> d = c.block(n0, n0), copy{w.data(), s, c.rows};  // C's layout, as the operands expect
    const bool read_c = !is_zero(beta);
    if (read_c)
      for (std::int64_t j = 0; j < s; ++j)
        for (std::int64_t i = 0; i < s; ++i)
          if (stored(i, j)) copy.at(i, j) = t.hermitian && i == j ? real_part(d.at(i, j)) : d.at(i, j);
    if (const int st = block(n0, n0, s, s, copy); st != BF16X_OK) return st;
    for (std::int64_t j = 0; j < s; ++j)
      for (std::int64_t i = 0; i < s; ++i)
        if (stored(i, j)) d.at(i, j) = t.hermitian && i == j ? real_part(copy.at(i, j)) : copy.at(i, j);
    return BF16X_OK;
  }

  // One GEMM of the triangle's cover: a diagonal block, or the off-diagonal block of rows [r0, r0 + rows) and
  // columns [c0, c0 + cols).
  struct Piece {
    bool diagonal;
    std::int64_t r0, c0, rows, cols;
  };

  // [n0, n1)^2 by recursive halving: the two halves' diagonal squares, and the block between them.
  void cover(std::int64_t n0, std::int64_t n1, std::vector<Piece>& out) const {
    const std::int64_t size = n1 - n0;
    if (size <= kDiagonalBlock) {
      out.push_back({true, n0, n0, size, size});
      return;
    }
    const std::int64_t h = n0 + half_of(size);
    cover(n0, h, out);
    out.push_back(t.lower ? Piece{false, h, n0, n1 - h, h - n0} : Piece{false, n0, h, h - n0, n1 - h});
    cover(h, n1, out);
  }

  int run(const Piece& p) const {
    return p.diagonal ? diagonal(p.r0, p.r0 + p.rows) : block(p.r0, p.c0, p.rows, p.cols, c.block(p.r0, p.c0));
  }

  // Every piece writes its own block of C and reads only A, B and that block, so the pieces may run in any order:
  // the large ones one after another, each GEMM on the whole team; the small ones (at most kSmallPiece a side,
  // GEMMs that a team would share poorly) side by side, one thread each. Each GEMM's bits do not depend on its
  // thread count, so neither do the routine's.
  int run(std::int64_t n) const {
    std::vector<Piece> pieces, small;
    cover(0, n, pieces);
    for (const Piece& p : pieces)
      if (p.rows <= kSmallPiece && p.cols <= kSmallPiece)
        small.push_back(p);
      else if (const int st = run(p); st != BF16X_OK)
        return st;
    const int threads = int(std::min<std::int64_t>(omp_get_max_threads(), std::int64_t(small.size())));
    if (threads <= 1) {
      for (const Piece& p : small)
        if (const int st = run(p); st != BF16X_OK) return st;
      return BF16X_OK;
    }
    std::vector<int> status(small.size(), BF16X_OK);
    std::exception_ptr thrown;  // (nothing may leave a parallel region: the first exception is thrown after it)
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t q = 0; q < small.size(); ++q) {
      omp_set_num_threads(1);  // this thread's GEMMs: no team of their own
      try {
        status[q] = run(small[q]);
      } catch (...) {
#pragma omp critical(bf16x_level3_pieces)
        if (!thrown) thrown = std::current_exception();
      }
    }
    if (thrown) std::rethrow_exception(thrown);
    for (const int st : status)
      if (st != BF16X_OK) return st;
    return BF16X_OK;
  }
};

// SYR2K's packed pair, one per thread whatever the element type.
util::Workspace& pair_space() {
  thread_local util::Workspace kept;
  return kept;
}

}  // namespace

template <typename E>
int gemmt(const Gemm<E>& gemm, Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a,
          const Operand<E>& b, E beta, const View<E>& c, const TriangleGemm<E>& whole) {
  if (n == 0) return BF16X_OK;
  // One call where the mode takes the triangle (below one diagonal block the recursion is that one call too).
  if (whole && n > kDiagonalBlock)
    if (const int st = whole(t, n, k, alpha, a, b, beta, c); st != kDeclined) return st;
  return TriangularProduct<E>{gemm, t, k, alpha, a, b, beta, c}.run(n);
}

// C's stored entry (i, j) from G = alpha op(A) op(B)^T (^H): (G_ij + G_ji) + beta C0_ij, G_ji conjugated for HER2K
// (whose diagonal is then real), in double (each part): the sum of two FP32 entries and beta C0 of FP32 factors are
// exact there, so a float routine rounds once, to T, after the FP64 roundings (docs/numerics.md, "Level 3").
template <typename E>
E transpose_sum(const E& gij, const E& gji, const E* c0, const E& beta, bool hermitian, bool diagonal) {
  if constexpr (is_complex_v<E>) {
    using R = real_t<E>;
    const double im_ji = hermitian ? -double(gji.im) : double(gji.im);
    double re = double(gij.re) + double(gji.re), im = diagonal && hermitian ? 0.0 : double(gij.im) + im_ji;
    if (c0) {
      const double c_im = diagonal && hermitian ? 0.0 : double(c0->im);
      const double b_re = double(beta.re) * double(c0->re) - double(beta.im) * c_im;
      const double b_im = double(beta.re) * c_im + double(beta.im) * double(c0->re);
      re = re + b_re;
      if (!(diagonal && hermitian)) im = im + b_im;
    }
    return E{R(re), R(im)};
  } else {
    double s = double(gij) + double(gji);
    if (c0) s = s + double(beta) * double(*c0);
    return E(s);
  }
}

// SYR2K/HER2K as G = alpha op(A) op(B)^T (^H) in one GEMM of inner dimension k into a square the calling thread
// keeps, then the stored triangle of C from G and its transpose: conj(alpha) op(B) op(A)^H is G^H exactly, so no
// alpha is folded. Against the pair's GEMMT of inner dimension 2k it scans and packs each operand once (not twice,
// after a copy) and writes n^2 entries of G (not the triangle's n^2 / 2): the better way where k >= n / 4.
template <typename E>
int syr2k_by_transpose(const Gemm<E>& gemm, Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a,
                       const Operand<E>& b, E beta, const View<E>& c) {
  util::Workspace& kept = pair_space();
  std::size_t bytes;
  if (__builtin_mul_overflow(std::size_t(n), std::size_t(n), &bytes) ||
      __builtin_mul_overflow(bytes, sizeof(E), &bytes))
    throw std::bad_alloc();
  E* const g = static_cast<E*>(kept.reserve(bytes));
  if (!g) throw std::bad_alloc();
  const Operand<E> bt{b.x, b.ld, !b.transposed, b.conj != t.hermitian};  // op(B)^T, ^H for HER2K
  // G in C's layout, as the operands expect (a row-major HER2K's op(B)^H is a conjugate without a transpose).
  const View<E> gv{g, n, c.rows};
  if (const int st = gemm(n, n, k, alpha, a, bt, zero<E>(), gv); st != BF16X_OK) return st;
  const bool read_c = !is_zero(beta);
  // 32 x 32 tiles of C's triangle, a column of tiles per index: G's tile and its transposed partner stay in L1.
  constexpr std::int64_t kTile = 32;
  util::for_each_index((n + kTile - 1) / kTile, n * n, [&](std::int64_t q) {
    const std::int64_t j0 = q * kTile, j1 = std::min(n, j0 + kTile);
    const std::int64_t i_begin = t.lower ? j0 : 0, i_end = t.lower ? n : j1;
    for (std::int64_t i0 = i_begin; i0 < i_end; i0 += kTile)
      for (std::int64_t j = j0; j < j1; ++j)
        for (std::int64_t i = std::max(i0, t.lower ? j : i0), i1 = std::min(i0 + kTile, t.lower ? n : j + 1); i < i1;
             ++i) {
          E& cij = c.at(i, j);
          cij = transpose_sum(gv.at(i, j), gv.at(j, i), read_c ? &cij : nullptr, beta, t.hermitian, i == j);
        }
  });
  kept.release_if_large();
  return BF16X_OK;
}

template <typename E>
int syr2k(const Gemm<E>& gemm, Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a,
          const Operand<E>& b, E beta, const View<E>& c, const TriangleGemm<E>& whole, bool rounded) {
  if (n == 0) return BF16X_OK;
  // alpha = 0 or k = 0: C = beta C without reading A or B (which may be NULL then).
  if (is_zero(alpha) || k == 0) return gemmt<E>(gemm, t, n, 0, alpha, a, b, beta, c);
  if (!rounded && 4 * k >= n) return syr2k_by_transpose(gemm, t, n, k, alpha, a, b, beta, c);
  // [op(A) op(B)] (n x 2k) and its partner [op(B) op(A)]^T (^H for HER2K; 2k x n), both packed column-major. HER2K's
  // conj(alpha) on the second product differs from alpha unless alpha is real: then alpha goes into the partner.
  const bool fold = t.hermitian && !is_real(alpha);
  const std::int64_t k2 = 2 * k;
  const auto partner = [&](const E& v, bool second) {
    const E w = t.hermitian ? conj(v) : v;
    return fold ? mul(second ? conj(alpha) : alpha, w) : w;
  };
  // Both copies in memory the calling thread keeps between calls, as the GEMM's workspace is (fresh pages of a
  // 2048 x 4096 pair fault in at a tenth of the call's time on a virtual machine), and released as it is.
  util::Workspace& kept = pair_space();
  std::size_t bytes;
  if (__builtin_mul_overflow(std::size_t(n), std::size_t(k2), &bytes) ||
      __builtin_mul_overflow(bytes, 2 * sizeof(E), &bytes))
    throw std::bad_alloc();
  E* const ab = static_cast<E*>(kept.reserve(bytes));
  if (!ab) throw std::bad_alloc();
  E* const ba = ab + n * k2;
  // 32 x 32 tiles of (i, l): whichever way op(A) and op(B) lie in memory, a tile's lines stay in the L1 cache
  // while it is read along one and written along the other.
  constexpr std::int64_t kTile = 32;
  util::for_each_index((k + kTile - 1) / kTile, n * k, [&](std::int64_t q) {
    const std::int64_t l0 = q * kTile, l1 = std::min(k, l0 + kTile);
    for (std::int64_t i0 = 0; i0 < n; i0 += kTile) {
      const std::int64_t i1 = std::min(n, i0 + kTile);
      for (std::int64_t l = l0; l < l1; ++l)
        for (std::int64_t i = i0; i < i1; ++i) {
          const E x = a.at(i, l), y = b.at(i, l);
          ab[i + l * n] = x;
          ab[i + (l + k) * n] = y;
          ba[l + i * k2] = partner(y, false);
          ba[l + k + i * k2] = partner(x, true);
        }
    }
  });
  const Operand<E> pa{ab, n, false}, pb{ba, k2, false};
  const int st = gemmt<E>(gemm, t, n, k2, fold ? one<E>() : alpha, pa, pb, beta, c, whole);
  kept.release_if_large();
  return st;
}

#define BF16X_LEVEL3_GEMMT(E)                                                                                          \
  template int gemmt<E>(const Gemm<E>&, Triangle, std::int64_t, std::int64_t, E, const Operand<E>&, const Operand<E>&, \
                        E, const View<E>&, const TriangleGemm<E>&);                                                    \
  template int syr2k<E>(const Gemm<E>&, Triangle, std::int64_t, std::int64_t, E, const Operand<E>&, const Operand<E>&, \
                        E, const View<E>&, const TriangleGemm<E>&, bool);
BF16X_LEVEL3_GEMMT(float)
BF16X_LEVEL3_GEMMT(double)
BF16X_LEVEL3_GEMMT(bf16x_complex_float)
BF16X_LEVEL3_GEMMT(bf16x_complex_double)

}  // namespace bf16x::level3
