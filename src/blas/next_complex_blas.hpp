// The host definitions of the complex GEMM entry points (cgemm_/zgemm_, cblas_cgemm/cblas_zgemm) after the shim,
// as next_blas.hpp finds the real ones.
#pragma once
#include <cstddef>

namespace bf16x::blas {

// Fortran CGEMM/ZGEMM (LP64, gfortran convention): complex scalars and matrices by address.
using FortranComplexGemm = void (*)(const char*, const char*, const int*, const int*, const int*, const void*,
                                    const void*, const int*, const void*, const int*, const void*, void*, const int*,
                                    std::size_t, std::size_t);
// cblas_cgemm/cblas_zgemm: alpha and beta by address, as reference CBLAS declares them.
using CblasComplexGemm = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,
                                  const void*, void*, int);

FortranComplexGemm next_cgemm();
FortranComplexGemm next_zgemm();
CblasComplexGemm next_cblas_cgemm();
CblasComplexGemm next_cblas_zgemm();

}  // namespace bf16x::blas
