// The definitions the shim stands in front of: the next sgemm_/dgemm_/cblas_?gemm after libbf16x_blas.so in the
// process's symbol lookup order. Native calls go there, so they reach exactly the routine the program would have
// called without the shim.
#pragma once
#include <atomic>
#include <cstddef>

namespace bf16x::blas {

// Fortran BLAS, LP64, gfortran convention (hidden character lengths last).
using FortranSgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                              const int*, const float*, const int*, const float*, float*, const int*, std::size_t,
                              std::size_t);
using FortranDgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const double*,
                              const double*, const int*, const double*, const int*, const double*, double*, const int*,
                              std::size_t, std::size_t);
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                            int);
using CblasDgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                            double*, int);

// nullptr where the process holds no other definition (then the library's own native path is used).
FortranSgemm next_sgemm();
FortranDgemm next_dgemm();
CblasSgemm next_cblas_sgemm();
CblasDgemm next_cblas_dgemm();

// The next definition of name after the shim, cached in slot once found (nullptr while there is none); for the
// ILP64 and complex entry points.
void* next_definition(std::atomic<void*>& slot, const char* name);

// File name (without directories) of the shared object that defines fn, for verbose lines.
const char* library_of(const void* fn);

}  // namespace bf16x::blas
