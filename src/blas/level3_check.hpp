// The level-3 routines beside GEMM (SYRK, HERK, SYR2K, HER2K, SYMM, HEMM, TRMM, TRSM, GEMMT) described by their
// argument lists, and the argument checks of the reference BLAS (dsyrk.f, zherk.f, dsyr2k.f, dsymm.f, zhemm.f,
// dtrmm.f, dtrsm.f; dgemmtr.f for GEMMT) and of reference CBLAS (cblas_dsyrk.c, ...) read off those lists: the
// reference checks every routine's arguments in the order of its argument list and reports the position of the
// first bad one, so one check serves all of them. Not templates: level3_entry.hpp instantiates the entry points.
#pragma once
#include <cstdint>
#include <optional>

#include "bf16x/bf16x.h"
#include "blas/xerbla.hpp"

namespace bf16x::blas {

// What one argument of a Fortran level-3 routine is. The CBLAS form is the same list after the layout.
// BInOut: TRMM/TRSM's B, read and overwritten (its leading dimension is Ldb); Layout: the CBLAS form's first.
enum class Arg : unsigned char {
  Side,
  Uplo,
  Trans,
  TransB,
  Diag,
  M,
  N,
  K,
  Alpha,
  A,
  Lda,
  B,
  Ldb,
  Beta,
  C,
  Ldc,
  BInOut,
  Layout
};

// The operation's shape: which sizes the operands have (NROWA/NROWB of the reference) and how a CBLAS row-major call
// becomes the column-major one (the reference's swaps).
enum class Family : unsigned char {
  Rank,        // SYRK, HERK, SYR2K, HER2K: C n x n, op(A), op(B) n x k
  Symmetric,   // SYMM, HEMM: C m x n, A m x m (side L) or n x n, B m x n
  Triangular,  // TRMM, TRSM: B m x n in place, A m x m (side L) or n x n
  Gemmt,       // GEMMT: C n x n, op(A) n x k, op(B) k x n
};

// How a row-major CBLAS call's transpose becomes the column-major call's (reference CBLAS).
enum class RowTrans : unsigned char {
  Same,       // TRMM, TRSM, GEMMT (whose two transposes change places instead)
  Transpose,  // SYRK, SYR2K: NoTrans -> 'T', Trans and ConjTrans -> 'N'
  ConjTrans,  // HERK, HER2K: NoTrans -> 'C', Trans and ConjTrans -> 'N'
};

struct Level3Spec {
  const char* name;  // "syrk" (the routine without its letter)
  Family family;
  RowTrans row_trans;
  const char* trans_real;     // the TRANS values the Fortran routine of a real type accepts ("NTC"); nullptr: none
  const char* trans_complex;  // and of a complex type ("NT" for CSYRK, "NC" for CHERK)
  int row_uplo_info;          // the number reference CBLAS gives a bad Uplo in a row-major call (3 for SYRK, HERK
                              // and SYR2K, 2 for HER2K: not always the argument's position)
  Arg args[13];               // the Fortran argument list, in order (its INFO numbers are the positions)
  int nargs;
};

// SYR2K and HER2K among the rank updates: two products, A and B.
constexpr bool two_products(const Level3Spec& r) { return r.family == Family::Rank && r.nargs == 12; }

// The Fortran view of a call: the upper-case first letter of each character argument ('\0' where the routine has
// none, or a CBLAS value was not one of its enumerators), the sizes.
struct Level3Shape {
  char side = 0, uplo = 0, trans = 0, transb = 0, diag = 0;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
};

// The raw CBLAS arguments of a call: the layout and the enumerators (0 where the routine has no such argument).
struct CblasLevel3Enums {
  int layout, side, uplo, trans, transb, diag;
};

// Where character argument a (Side .. Diag) is kept: in the Fortran view and among the raw CBLAS enumerators.
struct CharacterSlot {
  char Level3Shape::*fortran;
  int CblasLevel3Enums::*cblas;
};
constexpr CharacterSlot character_slot(Arg a) {
  switch (a) {
    case Arg::Side:
      return {&Level3Shape::side, &CblasLevel3Enums::side};
    case Arg::Uplo:
      return {&Level3Shape::uplo, &CblasLevel3Enums::uplo};
    case Arg::Trans:
      return {&Level3Shape::trans, &CblasLevel3Enums::trans};
    case Arg::TransB:
      return {&Level3Shape::transb, &CblasLevel3Enums::transb};
    default:
      return {&Level3Shape::diag, &CblasLevel3Enums::diag};
  }
}

// LSAME's view of a Fortran character: its upper case.
constexpr char fortran_upper(char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }

// INFO of the reference Fortran routine: 0, or the position of the first bad argument.
int fortran_level3_info(const Level3Spec& r, bool is_complex, const Level3Shape& s);

// Reference CBLAS: checks the layout and the enumerators in the order of the list, then the Fortran routine checks
// the column-major call (row-major: side and uplo swap, m and n of SYMM/TRMM swap, GEMMT's A and B change places, the
// transposes as RowTrans says). Returns that column-major call (sizes in `sizes`' fields), or fills *error with
// the reference's numbers.
// *bad: the argument the error is about, in the caller's list (Layout for the layout).
std::optional<Level3Shape> cblas_level3_shape(const Level3Spec& r, bool is_complex, const CblasLevel3Enums& e,
                                              const Level3Shape& sizes, const char* rout, CblasError* error, Arg* bad);
// The call as made, for a verbose line: the CBLAS enumerators as characters, '?' where one is none.
Level3Shape cblas_as_made(const Level3Spec& r, const CblasLevel3Enums& e, const Level3Shape& sizes);

// The reference's quick return (nothing to compute, C or B untouched): alpha_zero and beta_one say whether alpha is
// 0 and beta is 1.
bool level3_quick_return(const Level3Spec& r, const Level3Shape& s, bool alpha_zero, bool beta_one);
// Whether the call leaves nothing to multiply (alpha = 0, or k = 0 for the rank updates and GEMMT): C = beta C or
// B = 0 only.
bool level3_no_product(const Level3Spec& r, const Level3Shape& s, bool alpha_zero);

// The m x n x k GEMM the call amounts to, for the mode choice (BF16X_MIN_SIZE, auto's cost model) of GEMM's plan.
struct GemmDims {
  std::int64_t m, n, k;
};
GemmDims level3_gemm_dims(const Level3Spec& r, const Level3Shape& s);

// The call as its caller made it: a row-major CBLAS call gets its layout and arguments back (the reference's swaps
// undone; a transpose it accepts in a form the C API does not, as HERK's row-major Trans, in the C API's form), so
// that the library computes what the reference would, with the bits of the C API on the same arguments
// (docs/numerics.md, Reproducibility). The characters of s are the caller's, in the C API's enumerators below.
struct Level3LibraryCall {
  bool row_major;
  Level3Shape s;
  bool swap_ab;  // GEMMT row-major: the column-major call's A is the caller's B

  bf16x_layout layout() const { return row_major ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR; }
  bf16x_side side() const { return s.side == 'L' ? BF16X_LEFT : BF16X_RIGHT; }
  bf16x_uplo uplo() const { return s.uplo == 'U' ? BF16X_UPPER : BF16X_LOWER; }
  bf16x_transpose trans() const { return api_trans(s.trans); }
  bf16x_transpose transb() const { return api_trans(s.transb); }
  bf16x_diag diag() const { return s.diag == 'U' ? BF16X_UNIT : BF16X_NON_UNIT; }
  static bf16x_transpose api_trans(char t) {
    return t == 'N' ? BF16X_NO_TRANS : t == 'T' ? BF16X_TRANS : BF16X_CONJ_TRANS;
  }
};
Level3LibraryCall level3_library_call(const Level3Spec& r, const Level3Shape& s, bool row_major);

}  // namespace bf16x::blas
