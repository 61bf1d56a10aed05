#include "blas/level3_check.hpp"

#include <algorithm>
#include <utility>

namespace bf16x::blas {
namespace {

constexpr int kRowMajor = 101, kColMajor = 102;
constexpr int kNoTrans = 111, kTrans = 112, kConjTrans = 113;
constexpr int kUpper = 121, kLower = 122;
constexpr int kNonUnit = 131, kUnit = 132;
constexpr int kLeft = 141, kRight = 142;

bool one_of(char c, const char* set) {  // (no strchr: LAPACK's millions of tiny calls each check four characters)
  if (!c || !set) return false;
  for (; *set; ++set)
    if (*set == c) return true;
  return false;
}

// NROWA, NROWB and the rows of C (or of TRMM/TRSM's B) as the reference computes them: the rows of the stored
// matrix whose leading dimension is ld.
std::int64_t rows_of(const Level3Spec& r, const Level3Shape& s, Arg ld) {
  const bool square_c = r.family == Family::Rank || r.family == Family::Gemmt;
  if (ld == Arg::Ldc || (ld == Arg::Ldb && !square_c)) return square_c ? s.n : s.m;  // C, or B of SYMM/TRMM
  if (r.family == Family::Symmetric || r.family == Family::Triangular) return s.side == 'L' ? s.m : s.n;
  if (ld == Arg::Ldb && r.family == Family::Gemmt) return s.transb == 'N' ? s.k : s.n;  // op(B) k x n
  return s.trans == 'N' ? s.n : s.k;  // op(A) n x k (and SYR2K's op(B))
}

// Whether argument `a` of the Fortran call s is bad.
bool bad(const Level3Spec& r, bool is_complex, const Level3Shape& s, Arg a) {
  switch (a) {
    case Arg::Side:
      return !one_of(s.side, "LR");
    case Arg::Uplo:
      return !one_of(s.uplo, "UL");
    case Arg::Trans:
      return !one_of(s.trans, is_complex ? r.trans_complex : r.trans_real);
    case Arg::TransB:
      return !one_of(s.transb, "NTC");
    case Arg::Diag:
      return !one_of(s.diag, "UN");
    case Arg::M:
      return s.m < 0;
    case Arg::N:
      return s.n < 0;
    case Arg::K:
      return s.k < 0;
    case Arg::Lda:
      return s.lda < std::max<std::int64_t>(1, rows_of(r, s, Arg::Lda));
    case Arg::Ldb:
      return s.ldb < std::max<std::int64_t>(1, rows_of(r, s, Arg::Ldb));
    case Arg::Ldc:
      return s.ldc < std::max<std::int64_t>(1, rows_of(r, s, Arg::Ldc));
    default:
      return false;
  }
}

// Fortran position (1-based) of argument a in r's list, 0 if it has none.
int position(const Level3Spec& r, Arg a) {
  for (int i = 0; i < r.nargs; ++i)
    if (r.args[i] == a) return i + 1;
  return 0;
}

char cblas_side(int v, bool row) {
  if (v == kLeft) return row ? 'R' : 'L';
  if (v == kRight) return row ? 'L' : 'R';
  return 0;
}
char cblas_uplo(int v, bool row) {
  if (v == kUpper) return row ? 'L' : 'U';
  if (v == kLower) return row ? 'U' : 'L';
  return 0;
}
char cblas_diag(int v) { return v == kUnit ? 'U' : v == kNonUnit ? 'N' : 0; }
char cblas_trans_char(int v) { return v == kNoTrans ? 'N' : v == kTrans ? 'T' : v == kConjTrans ? 'C' : 0; }
char cblas_trans(const Level3Spec& r, int v, bool row) {
  const char t = cblas_trans_char(v);
  if (!row || !t || r.row_trans == RowTrans::Same) return t;
  if (t != 'N') return 'N';
  return r.row_trans == RowTrans::Transpose ? 'T' : 'C';
}

// The call's characters from the CBLAS enumerators, for a row-major call those of the column-major call ('\0' for a
// value that is no enumerator of its kind).
Level3Shape with_characters(const Level3Spec& r, const CblasLevel3Enums& e, const Level3Shape& sizes, bool row) {
  Level3Shape s = sizes;
  s.side = cblas_side(e.side, row);
  s.uplo = cblas_uplo(e.uplo, row);
  s.trans = cblas_trans(r, e.trans, row);
  s.transb = cblas_trans_char(e.transb);
  s.diag = cblas_diag(e.diag);
  return s;
}

// The column-major call of a CBLAS one (the enumerators already mapped by the layout into s).
Level3Shape column_major(const Level3Spec& r, Level3Shape s, bool row) {
  if (!row) return s;
  if (r.family == Family::Symmetric || r.family == Family::Triangular) std::swap(s.m, s.n);
  if (r.family == Family::Gemmt) {
    std::swap(s.trans, s.transb);
    std::swap(s.lda, s.ldb);
  }
  return s;
}

// Reference cblas_xerbla's swap back of a row-major number, for the routine's call as made: the arguments the
// column-major call exchanges (SYMM/HEMM 4 <-> 5, TRMM/TRSM 6 <-> 7, GEMMT's lda and ldb 9 <-> 11).
int unswap_row_major(const Level3Spec& r, int info) {
  int p = 0, q = 0;  // CBLAS positions
  if (r.family == Family::Symmetric || r.family == Family::Triangular)
    p = position(r, Arg::M) + 1, q = position(r, Arg::N) + 1;
  else if (r.family == Family::Gemmt)
    p = position(r, Arg::Lda) + 1, q = position(r, Arg::Ldb) + 1;
  return info == p ? q : info == q ? p : info;
}

const char* illegal(Arg a, Family f) {
  switch (a) {
    case Arg::Side:
      return "Illegal Side setting, %d\n";
    case Arg::Uplo:
      return "Illegal Uplo setting, %d\n";
    case Arg::Diag:
      return "Illegal Diag setting, %d\n";
    case Arg::TransB:
      return "Illegal TransB setting, %d\n";
    default:
      return f == Family::Gemmt ? "Illegal TransA setting, %d\n" : "Illegal Trans setting, %d\n";
  }
}

}  // namespace

int fortran_level3_info(const Level3Spec& r, bool is_complex, const Level3Shape& s) {
  for (int i = 0; i < r.nargs; ++i)
    if (bad(r, is_complex, s, r.args[i])) return i + 1;
  return 0;
}

std::optional<Level3Shape> cblas_level3_shape(const Level3Spec& r, bool is_complex, const CblasLevel3Enums& e,
                                              const Level3Shape& sizes, const char* rout, CblasError* error, Arg* bad) {
  if (e.layout != kColMajor && e.layout != kRowMajor) {
    *error = {1, 1, false, rout, "Illegal layout setting, %d\n", e.layout, 0};
    *bad = Arg::Layout;
    return std::nullopt;
  }
  const bool row = e.layout == kRowMajor;
  const Level3Shape s = with_characters(r, e, sizes, row);
  const Level3Shape col = column_major(r, s, row);
  // What OpenBLAS's CBLAS reports through XERBLA instead: the Fortran number of the column-major call it checks.
  const int fortran_info = fortran_level3_info(r, is_complex, col);
  // Reference CBLAS: an argument that is no enumerator of its kind, in the order of the list. CBLAS numbers are the
  // Fortran positions + 1 (the layout comes first), but for a row-major Uplo of the rank updates (row_uplo_info).
  for (int i = 0; i < r.nargs; ++i) {
    const Arg a = r.args[i];
    if (a > Arg::Diag || s.*character_slot(a).fortran) continue;  // not a character argument, or a known value
    const int value = e.*character_slot(a).cblas;
    const int info = row && a == Arg::Uplo ? r.row_uplo_info : i + 2;
    // Reference GEMMT sets RowMajorStrg after its Uplo check, the others first thing in a row-major call.
    const bool row_major_strg = row && !(r.family == Family::Gemmt && a == Arg::Uplo);
    *error = {info, info, row_major_strg, rout, illegal(a, r.family), value, fortran_info};
    *bad = a;
    return std::nullopt;
  }
  if (fortran_info) {
    // The Fortran number + 1, as reference CBLAS's xerbla_ forwards it; a row-major one swapped back by
    // cblas_xerbla (RowMajorStrg) where the column-major call exchanged two arguments.
    const int reported = fortran_info + 1;
    const int info = row ? unswap_row_major(r, reported) : reported;
    *error = {info, reported, row, rout, "", 0, fortran_info};
    *bad = r.args[info - 2];
    return std::nullopt;
  }
  return col;
}

Level3Shape cblas_as_made(const Level3Spec& r, const CblasLevel3Enums& e, const Level3Shape& sizes) {
  Level3Shape s = with_characters(r, e, sizes, false);
  for (int i = 0; i < r.nargs; ++i)
    if (r.args[i] <= Arg::Diag && !(s.*character_slot(r.args[i]).fortran)) s.*character_slot(r.args[i]).fortran = '?';
  return s;
}

bool level3_quick_return(const Level3Spec& r, const Level3Shape& s, bool alpha_zero, bool beta_one) {
  switch (r.family) {
    case Family::Rank:
    case Family::Gemmt:
      return s.n == 0 || ((alpha_zero || s.k == 0) && beta_one);
    case Family::Symmetric:
      return s.m == 0 || s.n == 0 || (alpha_zero && beta_one);
    default:
      return s.m == 0 || s.n == 0;
  }
}

bool level3_no_product(const Level3Spec& r, const Level3Shape& s, bool alpha_zero) {
  return alpha_zero || ((r.family == Family::Rank || r.family == Family::Gemmt) && s.k == 0);
}

GemmDims level3_gemm_dims(const Level3Spec& r, const Level3Shape& s) {
  switch (r.family) {
    case Family::Rank:
    case Family::Gemmt:
      return {s.n, s.n, s.k};
    default:
      return {s.m, s.n, s.side == 'L' ? s.m : s.n};
  }
}

Level3LibraryCall level3_library_call(const Level3Spec& r, const Level3Shape& col, bool row) {
  // Undo the row-major swaps: column_major() exchanges the same pairs again, and the layout's mapping of side and
  // uplo is its own inverse.
  Level3Shape s = column_major(r, col, row);
  if (row) {
    s.side = s.side == 'L' ? 'R' : 'L';
    s.uplo = s.uplo == 'U' ? 'L' : 'U';
    // The column-major 'N' was the caller's (conjugate) transpose, the other one the caller's NoTrans.
    if (r.row_trans != RowTrans::Same) s.trans = s.trans != 'N' ? 'N' : r.row_trans == RowTrans::Transpose ? 'T' : 'C';
  }
  return {row, s, row && r.family == Family::Gemmt};
}

}  // namespace bf16x::blas
