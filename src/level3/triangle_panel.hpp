// Panels of a stored triangular or symmetric matrix, packed column-major for the GEMMs of TRMM, TRSM, SYMM and HEMM:
// the unstored triangle is never read (zero, the mirror, or the diagonal's ones stand in for it).
#pragma once
#include <algorithm>
#include <cstdint>

#include "level3/operation.hpp"
#include "util/team.hpp"

namespace bf16x::level3 {

// A triangular U by the address of its elements: U(i, j) = origin[i si + j sj] (conjugated where conj) on its
// nonzero triangle (i >= j where lower, else i <= j), one on a unit diagonal, zero elsewhere.
template <typename E>
struct TriangleAddress {
  const E* origin;
  std::int64_t si, sj;
  bool lower, unit, conj;
};

// U = op(A) or op(A)^T of a triangular A: element (i, j) of U is A(j, i) where transposed, conjugated where conj;
// zero outside A's stored triangle, one on a unit diagonal.
template <typename E>
struct TriangularView {
  Stored<E> a;
  Triangle t;
  bool transposed, conj_;

  bool lower() const { return t.lower != transposed; }  // U's nonzero triangle
  TriangleAddress<E> address() const {
    const std::int64_t sr = a.row_stride(), sc = a.col_stride();
    return {a.a, transposed ? sc : sr, transposed ? sr : sc, lower(), t.unit, conj_};
  }
  // U(i0.., j0..) read in place: a block inside U's nonzero triangle, off its diagonal.
  Operand<E> block(std::int64_t i0, std::int64_t j0) const {
    const TriangleAddress<E> u = address();
    const E* x = u.origin + i0 * u.si + j0 * u.sj;
    return u.si == 1 ? Operand<E>{x, u.sj, false, conj_} : Operand<E>{x, u.si, true, conj_};
  }
};

// The full matrix of a symmetric (or, t.hermitian, Hermitian: mirror conjugated, diagonal real) A from its stored
// triangle: (i, j) is A(i, j) on the stored side, A(j, i) (conjugated where Hermitian) on the other, and the
// diagonal A(i, i) (its real part where Hermitian).
template <typename E>
struct SymmetricView {
  Stored<E> a;
  Triangle t;
};

// Rows [r0, r1) and columns [c0, c1) of a symmetric (Hermitian) view into p, column-major with leading dimension
// r1 - r0: each column's run above the diagonal, its diagonal entry and its run below, the stored side read as it
// lies and the other mirrored (conjugated where Hermitian), each a plain strided copy.
template <typename E>
void pack_panel_into(E* p, const SymmetricView<E>& v, std::int64_t r0, std::int64_t r1, std::int64_t c0,
                     std::int64_t c1) {
  const std::int64_t rows = r1 - r0, sr = v.a.row_stride(), sc = v.a.col_stride();
  const bool herm = v.t.hermitian;
  util::for_each_index(c1 - c0, rows * (c1 - c0), [&](std::int64_t q) {
    const std::int64_t j = c0 + q;
    E* __restrict out = p + q * rows;  // element (i, j) at out[i - r0]
    const E* direct = v.a.a + j * sc;  // A(i, j) at direct[i sr]
    const E* mirror = v.a.a + j * sr;  // A(j, i) at mirror[i sc]
    const auto run = [&](std::int64_t i0, std::int64_t i1, bool stored) {
      if (stored)
        for (std::int64_t i = i0; i < i1; ++i) out[i - r0] = direct[i * sr];
      else if (herm)
        for (std::int64_t i = i0; i < i1; ++i) out[i - r0] = conj(mirror[i * sc]);
      else
        for (std::int64_t i = i0; i < i1; ++i) out[i - r0] = mirror[i * sc];
    };
    run(r0, std::clamp(j, r0, r1), !v.t.lower);  // above the diagonal: stored where upper
    if (j >= r0 && j < r1) out[j - r0] = herm ? real_part(direct[j * sr]) : direct[j * sr];
    run(std::clamp(j + 1, r0, r1), r1, v.t.lower);  // below: stored where lower
  });
}

// The same for a triangle by its address, into p: each column's zeros, stored run and unit diagonal apart, the run
// a plain (strided) copy; without `zeros`, the elements outside the nonzero triangle are left unwritten (a
// substitution reads none of them).
template <typename E>
void pack_panel_into(E* p, const TriangleAddress<E>& u, std::int64_t r0, std::int64_t r1, std::int64_t c0,
                     std::int64_t c1, bool zeros = true) {
  const std::int64_t rows = r1 - r0;
  util::for_each_index(c1 - c0, rows * (c1 - c0), [&](std::int64_t q) {
    const std::int64_t j = c0 + q;
    E* __restrict out = p + q * rows;  // U(i, j) at out[i - r0]
    const std::int64_t lo = u.lower ? std::clamp(j, r0, r1) : r0, hi = u.lower ? r1 : std::clamp(j + 1, r0, r1);
    for (std::int64_t i = r0; i < (zeros ? lo : r0); ++i) out[i - r0] = zero<E>();
    const E* x = u.origin + j * u.sj;
    if (u.conj)
      for (std::int64_t i = lo; i < hi; ++i) out[i - r0] = conj(x[i * u.si]);
    else
      for (std::int64_t i = lo; i < hi; ++i) out[i - r0] = x[i * u.si];
    for (std::int64_t i = hi; i < (zeros ? r1 : hi); ++i) out[i - r0] = zero<E>();
    if (u.unit && j >= r0 && j < r1) out[j - r0] = one<E>();
  });
}
}  // namespace bf16x::level3
