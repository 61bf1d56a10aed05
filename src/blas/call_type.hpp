// The four GEMM call types of the BLAS (s, d, c, z) as one set of traits, and the prototypes of their entry points
// for either integer model (Int: int for LP64, std::int64_t for ILP64). Every part of the shim is written once over
// these: the checks, the dispatch, the entry points and the lookup of the next definition.
#pragma once
#include <cstddef>
#include <type_traits>

#include "bf16x/bf16x.h"

namespace bf16x::blas {

// What one call type is: its real type (float or double), its routine name ("dgemm"), the name XERBLA gets
// ("DGEMM ") and the C API routine that computes it (bf16x_dgemm_ex).
template <typename R, char Letter, auto GemmEx>
struct CallTypeOf {
  using Real = R;
  static constexpr char name[] = {Letter, 'g', 'e', 'm', 'm', '\0'};
  static constexpr char name6[] = {char(Letter - 'a' + 'A'), 'G', 'E', 'M', 'M', ' ', '\0'};
  static constexpr auto gemm_ex = GemmEx;
};
template <typename T>
struct CallType;
template <>
struct CallType<float> : CallTypeOf<float, 's', bf16x_sgemm_ex> {};
template <>
struct CallType<double> : CallTypeOf<double, 'd', bf16x_dgemm_ex> {};
template <>
struct CallType<bf16x_complex_float> : CallTypeOf<float, 'c', bf16x_cgemm_ex> {};
template <>
struct CallType<bf16x_complex_double> : CallTypeOf<double, 'z', bf16x_zgemm_ex> {};

template <typename T>
inline constexpr bool is_complex = !std::is_same_v<T, typename CallType<T>::Real>;
// The precision, which chooses the mode: CGEMM runs on SGEMM's, ZGEMM on DGEMM's (docs/blas.md).
template <typename T>
inline constexpr bool is_double = std::is_same_v<typename CallType<T>::Real, double>;

// Real and imaginary parts of a scalar, for the tests of the reference quick return and for verbose lines.
template <typename T>
double real_part(const T& x) {
  if constexpr (is_complex<T>)
    return double(x.re);
  else
    return double(x);
}
template <typename T>
double imag_part(const T& x) {
  if constexpr (is_complex<T>)
    return double(x.im);
  else
    return 0.0;
}

// CBLAS passes real alpha and beta by value, complex ones by address (as reference CBLAS declares them).
template <typename T>
using CblasScalar = std::conditional_t<is_complex<T>, const T*, T>;
template <typename T>
T scalar_value(CblasScalar<T> x) {
  if constexpr (is_complex<T>)
    return *x;
  else
    return x;
}

// Fortran xGEMM with INTEGER of type Int, as exported (gfortran/f2c convention).
template <typename T, typename Int>
using FortranGemm = void(const char*, const char*, const Int*, const Int*, const Int*, const T*, const T*, const Int*,
                         const T*, const Int*, const T*, T*, const Int*);
// The same as called: the hidden character lengths last (never read for TRANSA/TRANSB, CHARACTER*1; passed as 1).
template <typename T, typename Int>
using FortranGemmWithLengths = void(const char*, const char*, const Int*, const Int*, const Int*, const T*, const T*,
                                    const Int*, const T*, const Int*, const T*, T*, const Int*, std::size_t,
                                    std::size_t);
// cblas_xgemm with CBLAS_INT Int (layout and transposes stay C enums, int).
template <typename T, typename Int>
using CblasGemm = void(int, int, int, Int, Int, Int, CblasScalar<T>, const T*, Int, const T*, Int, CblasScalar<T>, T*,
                       Int);

}  // namespace bf16x::blas
