// The level-3 layer: every level-3 routine induced from the one emulated GEMM, as BLIS induces them from its GEMM
// engine. The API layer hands the GEMM in (api/level3_entry.cpp: the checked real or complex GEMM of the call's
// options), so that this layer knows nothing of options, modes or engines; it packs the triangular and symmetric
// blocks and writes only the stored part of the output.
//
// One rule makes the accuracy of every routine that of GEMM: each entry of the output is computed by exactly one
// GEMM over its whole inner dimension (the padding of a packed triangle is zero, which adds exactly nothing), so the
// guard's componentwise bound and fp64cr/fp32cr's correct rounding hold entry by entry. TRSM is the exception by
// nature: GEMM updates, then substitution on the diagonal blocks; SYR2K outside the correctly rounded modes sums two
// entries of one GEMM where that is faster, within the bound of the one GEMM of inner dimension 2k
// (docs/numerics.md).
//
// Every matrix is read and written in place in the caller's layout, and the GEMMs are the same for every layout
// (the GEMM takes either), so a row-major call runs the same products as the column-major one; the blocking depends
// on the shape alone, never on the thread count: the same bits on every layout, engine, thread count and CPU where
// the GEMM has them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "bf16x/bf16x.h"
#include "level3/element.hpp"

namespace bf16x::level3 {

// An input matrix read in place as op(X): element (i, j) is X(j, i) where transposed and conjugated where conj, X
// being the column-major reading of the storage (x[i + j ld]; a row-major X is its transpose read so).
template <typename E>
struct Operand {
  const E* x;
  std::int64_t ld;
  bool transposed;
  bool conj = false;
  // op(X)(i, l) = 0 for l > i + lower_shift where `lower` (a panel of TRMM's triangle): a hint that lets the GEMM
  // skip those products, which add exactly nothing (rows_from and cols_from drop it).
  bool lower = false;
  std::int64_t lower_shift = 0;

  E at(std::int64_t i, std::int64_t j) const {
    const E v = transposed ? x[j + i * ld] : x[i + j * ld];
    return conj ? level3::conj(v) : v;
  }
  // op(X) from row i (column j) on.
  Operand rows_from(std::int64_t i) const { return {transposed ? x + i * ld : x + i, ld, transposed, conj}; }
  Operand cols_from(std::int64_t j) const { return {transposed ? x + j : x + j * ld, ld, transposed, conj}; }
};

// A matrix written in place: element (i, j) at p[i + j ld], or at p[i ld + j] where rows (row-major).
template <typename E>
struct View {
  E* p;
  std::int64_t ld;
  bool rows;

  E& at(std::int64_t i, std::int64_t j) const { return rows ? p[j + i * ld] : p[i + j * ld]; }
  View block(std::int64_t i, std::int64_t j) const { return {&at(i, j), ld, rows}; }
  Operand<E> operand() const { return {p, ld, rows}; }
};

// C = alpha op(A) op(B) + beta C for the m x k op(A) and k x n op(B), C in either layout (not read where beta = 0):
// the checked GEMM of the call, which gives the same bits for every layout and transpose that express the same
// product. Returns a bf16x_status; C is written only on BF16X_OK. It must be safe to call from several threads at
// once on disjoint blocks of C (GEMMT runs its small pieces side by side).
template <typename E>
using Gemm = std::function<int(std::int64_t m, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a,
                               const Operand<E>& b, E beta, const View<E>& c)>;

// The triangle of a square matrix that an operation stores (uplo) and how its diagonal reads.
struct Triangle {
  bool lower;
  bool unit = false;       // TRMM/TRSM: diag = UNIT, the diagonal read as ones
  bool hermitian = false;  // HEMM, HERK, HER2K: the diagonal is real (its imaginary parts neither read nor kept)
};

// C's triangle t (lower: i >= j, else i <= j; n x n, op(A) n x k, op(B) k x n) = alpha op(A) op(B) + beta C in one
// GEMM call that computes and writes that triangle alone, where the call's mode can (its operands scaled and packed
// once for the whole triangle, the blocks outside it skipped; complex: complex_triangle). kDeclined where it cannot,
// with nothing written: the triangle is then covered by whole GEMMs. Empty: none.
constexpr int kDeclined = 0x7fff0001;
template <typename E>
using TriangleGemm = std::function<int(Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a,
                                       const Operand<E>& b, E beta, const View<E>& c)>;

// Complex products as real GEMMs on the parts of their operands, where the real GEMM does what the complex one cannot
// (level3/complex_parts.cpp). The real GEMM they run: c (m x n, column-major, ld m) = alpha a b + beta c for the
// column-major m x k a (ld m) and k x n b (ld ldb), c not read where beta = 0; on c's triangle alone where
// `triangle` (m = n; `lower`: i >= j, else i <= j), and with the products of a lower-triangular a skipped where
// `lower_step` > 0: a(i, l) = 0 for l >= lower_step (i + lower_shift + 1). kDeclined as TriangleGemm.
struct PartShape {
  bool triangle = false, lower = false;
  std::int64_t lower_step = 0, lower_shift = 0;
};
template <typename R>
using PartGemm = std::function<int(std::int64_t m, std::int64_t n, std::int64_t k, R alpha, const R* a, const R* b,
                                   std::int64_t ldb, R beta, R* c, const PartShape& shape)>;

// A complex TriangleGemm as two real GEMMs on C's triangle, one per part, each of inner dimension 2k:
// Re P = [Re op(A)  Im op(A)] [Re op(B); -Im op(B)] and Im P = [Re op(A)  Im op(A)] [Im op(B); Re op(B)], as 4M forms
// them (complex/products.hpp), with alpha and beta on each part: every part of every entry is that real GEMM's (its
// componentwise bound on the 2k-term dot product, or its correct rounding), HERK's diagonal real. For a real alpha
// and beta (HERK, HER2K, and LAPACK's SYRK and GEMMT calls) and operands without NaN or Inf, whose copies fit
// kComplexPartsBytes; else kDeclined (the complex GEMMs of the recursion take the call).
constexpr std::size_t kComplexPartsBytes = std::size_t(256) << 20;
template <typename E>
int complex_triangle(const PartGemm<real_t<E>>& real, Triangle t, std::int64_t n, std::int64_t k, E alpha,
                     const Operand<E>& a, const Operand<E>& b, E beta, const View<E>& c);

// C = alpha op(A) op(B) + beta C for a lower-triangular complex op(A) (a.lower: TRMM's panels) as two real GEMMs, one
// per part, on op(A)'s parts side by side (Re and Im of op(A)(i, l) at columns 2l and 2l + 1: lower with step 2), so
// that the real GEMMs skip the triangle's zero products, which the complex GEMM computes. The same conditions and
// guarantees as complex_triangle, per entry.
template <typename E>
int complex_lower(const PartGemm<real_t<E>>& real, std::int64_t m, std::int64_t n, std::int64_t k, E alpha,
                  const Operand<E>& a, const Operand<E>& b, E beta, const View<E>& c);

// A square matrix as stored: element (i, j) at a[i + j ld], or a[i ld + j] where rows.
template <typename E>
struct Stored {
  const E* a;
  std::int64_t ld;
  bool rows;

  const E& at(std::int64_t i, std::int64_t j) const { return rows ? a[j + i * ld] : a[i + j * ld]; }
  // (i, j) at a[i row_stride() + j col_stride()]
  std::int64_t row_stride() const { return rows ? ld : 1; }
  std::int64_t col_stride() const { return rows ? 1 : ld; }
};

// C = alpha op(A) op(B) + beta C on C's triangle t (n x n, op(A) n x k, op(B) k x n): GEMMT, and SYRK and HERK
// (op(B) = op(A)^T or ^H). One call of `whole` where it takes the triangle; else off-diagonal blocks by recursive
// halving straight into C, the diagonal blocks through a small packed copy of their stored triangle; the small
// pieces side by side, one thread each (so `gemm` may be called from several threads at once).
template <typename E>
int gemmt(const Gemm<E>& gemm, Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a,
          const Operand<E>& b, E beta, const View<E>& c, const TriangleGemm<E>& whole = {});

// C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C (SYR2K), or alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H
// + beta C (HER2K, t.hermitian), on C's triangle. Where the GEMM rounds every entry correctly (`rounded`: fp64cr,
// fp32cr) or k < n / 4: one GEMMT of inner dimension 2k over [op(A) op(B)] and [op(B) op(A)]^T, a complex alpha of
// HER2K that is not real folded into the packed second operand (one rounding per packed entry, as the reference
// HER2K folds it). Otherwise G = alpha op(A) op(B)^T in one GEMM and C = (G + G^T) + beta C (G^H for HER2K).
template <typename E>
int syr2k(const Gemm<E>& gemm, Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a,
          const Operand<E>& b, E beta, const View<E>& c, const TriangleGemm<E>& whole = {}, bool rounded = false);

// C = alpha A B + beta C (left) or alpha B A + beta C, A symmetric or Hermitian (t) and m x m or n x n: row
// (column) panels of A expanded from its stored triangle, one GEMM each.
template <typename E>
int symm(const Gemm<E>& gemm, bool left, Triangle t, std::int64_t m, std::int64_t n, E alpha, const Stored<E>& a,
         const Operand<E>& b, E beta, const View<E>& c);

// B = alpha op(A) B (left) or alpha B op(A), A triangular (t: its stored triangle and diagonal), in place.
template <typename E>
int trmm(const Gemm<E>& gemm, bool left, Triangle t, int trans, std::int64_t m, std::int64_t n, E alpha,
         const Stored<E>& a, const View<E>& b);

// Solves op(A) X = alpha B (left) or X op(A) = alpha B, X over B. fma_updates: where the left-side B has at most
// kNarrowSolve columns (level3/blocking.hpp), its updates run on the FMA units in the substitution's order instead of
// as GEMMs (for the slice and CRT modes, whose GEMMs of a few columns cost far more than their products): X is then
// the plain substitution's, alpha B's entries each with its products subtracted one by one in the order of the
// solve.
template <typename E>
int trsm(const Gemm<E>& gemm, bool left, Triangle t, int trans, std::int64_t m, std::int64_t n, E alpha,
         const Stored<E>& a, const View<E>& b, bool fma_updates = false);

}  // namespace bf16x::level3
