#include "blas/arg_check.hpp"

#include <algorithm>

namespace bf16x::blas {
namespace {

constexpr int kRowMajor = 101, kColMajor = 102;
constexpr int kNoTrans = 111, kTrans = 112, kConjTrans = 113;

// Reference cblas_xerbla's swap back for a row-major gemm (m <-> n, lda <-> ldb).
int unswap_row_major(int info) {
  switch (info) {
    case 4:
      return 5;
    case 5:
      return 4;
    case 9:
      return 11;
    case 11:
      return 9;
    default:
      return info;
  }
}

}  // namespace

char cblas_trans(int t) { return t == kNoTrans ? 'N' : t == kTrans ? 'T' : t == kConjTrans ? 'C' : 0; }

char fortran_trans(char c) {
  switch (c) {
    case 'N':
    case 'n':
      return 'N';
    case 'T':
    case 't':
      return 'T';
    case 'C':
    case 'c':
      return 'C';
    default:
      return 0;
  }
}

int fortran_gemm_info(const GemmShape& s) {
  const bool nota = s.transa == 'N', notb = s.transb == 'N';
  const std::int64_t nrowa = nota ? s.m : s.k;
  const std::int64_t nrowb = notb ? s.k : s.n;
  if (!s.transa) return 1;
  if (!s.transb) return 2;
  if (s.m < 0) return 3;
  if (s.n < 0) return 4;
  if (s.k < 0) return 5;
  if (s.lda < std::max<std::int64_t>(1, nrowa)) return 8;
  if (s.ldb < std::max<std::int64_t>(1, nrowb)) return 10;
  if (s.ldc < std::max<std::int64_t>(1, s.m)) return 13;
  return 0;
}

std::optional<GemmShape> cblas_gemm_shape(int layout, int transa, int transb, std::int64_t m, std::int64_t n,
                                          std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc,
                                          const char* rout, CblasError* error) {
  if (layout != kColMajor && layout != kRowMajor) {
    *error = {1, 1, false, rout, "Illegal layout setting, %d\n", layout, 0};
    return std::nullopt;
  }
  const bool row = layout == kRowMajor;
  const char ta = cblas_trans(transa), tb = cblas_trans(transb);
  // OpenBLAS checks the swapped call of a row-major one: TransB is its first transpose there.
  if (!ta) {
    *error = {2, 2, row, rout, "Illegal TransA setting, %d\n", transa, row && tb ? 2 : 1};
    return std::nullopt;
  }
  if (!tb) {
    *error = {3, 3, row, rout, "Illegal TransB setting, %d\n", transb, row ? 1 : 2};
    return std::nullopt;
  }
  const GemmShape s = row ? GemmShape{tb, ta, n, m, k, ldb, lda, ldc} : GemmShape{ta, tb, m, n, k, lda, ldb, ldc};
  if (const int info = fortran_gemm_info(s)) {
    // The Fortran number + 1 (CBLAS has the layout first), as reference CBLAS's xerbla_ forwards it.
    const int reported = info + 1;
    *error = {row ? unswap_row_major(reported) : reported, reported, row, rout, "", 0, info};
    return std::nullopt;
  }
  return s;
}

}  // namespace bf16x::blas
