// The plain BLAS names of the GEMMs, sgemm_/dgemm_/cgemm_/zgemm_ (Fortran, gfortran and f2c naming) and
// cblas_sgemm/cblas_dgemm/cblas_cgemm/cblas_zgemm, and of the other level-3 routines likewise (dsyrk_, cblas_dsyrk,
// ...: level3_entry.hpp), in the integer model of the library they are built into
// (bf16x_add_blas_shim's INDEX, src/blas/CMakeLists.txt):
//   - LP64 (libbf16x_blas.so): int, errors to xerbla_ / cblas_xerbla (and reference CBLAS's RowMajorStrg); the
//     Fortran routines also under the plain sgemm/dgemm/cgemm/zgemm and upper-case SGEMM/DGEMM/CGEMM/ZGEMM names
//     some C programs call, each the function sgemm_ and so on itself (identical prototypes);
//   - ILP64 (libbf16x_blas64.so, BF16X_BLAS_ILP64): Debian's libblas64.so.3 (netlib and OpenBLAS alternatives) and
//     libopenblas64.so.0 keep these names and change only the integer width, so these are those names with 64-bit
//     integers. Preloaded in front of a program linked with -lblas64 (or -lopenblas64), the next definition is that
//     library's. Errors go to the same handlers with a 64-bit INFO (netlib libblas64 has RowMajorStrg too).
// Names ending in a second underscore (g77 -fsecond-underscore) only apply to routine names that contain an
// underscore, which xGEMM do not, so sgemm__ and the like are not defined.
#include <cstdint>

#include "blas/gemm_entry.hpp"
#include "blas/level3_entry.hpp"

namespace {

#if BF16X_BLAS_ILP64
using Int = std::int64_t;
constexpr bf16x::blas::ErrorHandlers kHandlers{"xerbla_", "cblas_xerbla", "RowMajorStrg", true};
#define BF16X_LP64_ALIASES(p, P, T)
#define BF16X_LP64_LEVEL3_ALIASES(r, R, p, P, T)
#else
using Int = int;
constexpr bf16x::blas::ErrorHandlers kHandlers = bf16x::blas::kLp64Handlers;
#define BF16X_LP64_ALIASES(p, P, T)                   \
  BF16X_BLAS_FORTRAN_ALIAS(T, int, p##gemm, p##gemm_) \
  BF16X_BLAS_FORTRAN_ALIAS(T, int, P##GEMM, p##gemm_)
#define BF16X_LP64_LEVEL3_ALIASES(r, R, p, P, T)    \
  BF16X_BLAS_LEVEL3_ALIAS(r, T, int, p##r, p##r##_) \
  BF16X_BLAS_LEVEL3_ALIAS(r, T, int, P##R, p##r##_)
#endif

}  // namespace

#define BF16X_PLAIN_NAMES(p, P, T)                          \
  BF16X_BLAS_FORTRAN_GEMM(T, Int, p##gemm_, kHandlers)      \
  BF16X_BLAS_CBLAS_GEMM(T, Int, cblas_##p##gemm, kHandlers) \
  BF16X_LP64_ALIASES(p, P, T)

BF16X_PLAIN_NAMES(s, S, float)
BF16X_PLAIN_NAMES(d, D, double)
BF16X_PLAIN_NAMES(c, C, bf16x_complex_float)
BF16X_PLAIN_NAMES(z, Z, bf16x_complex_double)

// The other level-3 routines (level3_entry.hpp): Fortran ?xxx_, cblas_?xxx and, LP64, the aliases ?xxx and ?XXX.
#define BF16X_PLAIN_LEVEL3(r, R, p, P, T)                      \
  BF16X_BLAS_LEVEL3(r, fortran, T, Int, p##r##_, kHandlers)    \
  BF16X_BLAS_LEVEL3(r, cblas, T, Int, cblas_##p##r, kHandlers) \
  BF16X_LP64_LEVEL3_ALIASES(r, R, p, P, T)
BF16X_LEVEL3_EACH(BF16X_PLAIN_LEVEL3)
