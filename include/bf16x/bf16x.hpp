// C++ interface to bf16x: scoped enums, exceptions for bad arguments, the same semantics as the C API.
#pragma once
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bf16x/bf16x.h"

namespace bf16x {

enum class Layout { row_major = BF16X_ROW_MAJOR, col_major = BF16X_COL_MAJOR };
enum class Op { none = BF16X_NO_TRANS, trans = BF16X_TRANS, conj_trans = BF16X_CONJ_TRANS };
// Every mode of the C API (tests/test_api.cpp checks each bf16x_mode has its enumerator here).
enum class Mode {
  default_mode = BF16X_MODE_DEFAULT,
  native = BF16X_MODE_NATIVE,
  fp32x6 = BF16X_MODE_FP32X6,
  fp64x6 = BF16X_MODE_FP64X6,
  fp64x10 = BF16X_MODE_FP64X10,
  fp64x15 = BF16X_MODE_FP64X15,
  fp64x21 = BF16X_MODE_FP64X21,
  automatic = BF16X_MODE_AUTO,
  // Correctly rounded: every entry RN(alpha op(A) op(B) + beta C).
  fp64cr = BF16X_MODE_FP64CR,
  fp32cr = BF16X_MODE_FP32CR,
  // Ozaki scheme II (CRT) on INT8 products, N moduli: fp64c8..fp64c20 (dgemm), fp32c5..fp32c10 (sgemm).
  fp64c8 = BF16X_MODE_FP64C(8),
  fp64c9 = BF16X_MODE_FP64C(9),
  fp64c10 = BF16X_MODE_FP64C(10),
  fp64c11 = BF16X_MODE_FP64C(11),
  fp64c12 = BF16X_MODE_FP64C(12),
  fp64c13 = BF16X_MODE_FP64C(13),
  fp64c14 = BF16X_MODE_FP64C(14),
  fp64c15 = BF16X_MODE_FP64C(15),
  fp64c16 = BF16X_MODE_FP64C(16),
  fp64c17 = BF16X_MODE_FP64C(17),
  fp64c18 = BF16X_MODE_FP64C(18),
  fp64c19 = BF16X_MODE_FP64C(19),
  fp64c20 = BF16X_MODE_FP64C(20),
  fp32c5 = BF16X_MODE_FP32C(5),
  fp32c6 = BF16X_MODE_FP32C(6),
  fp32c7 = BF16X_MODE_FP32C(7),
  fp32c8 = BF16X_MODE_FP32C(8),
  fp32c9 = BF16X_MODE_FP32C(9),
  fp32c10 = BF16X_MODE_FP32C(10)
};

// Thrown for any non-zero bf16x_status; status() gives the code.
class Error : public std::runtime_error {
 public:
  explicit Error(int status) : std::runtime_error(std::string("bf16x: ") + bf16x_status_string(status)), s_(status) {}
  int status() const noexcept { return s_; }

 private:
  int s_;
};

inline void check(int status) {
  if (status != BF16X_OK) throw Error(status);
}

inline void sgemm(Layout layout, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                  const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                  std::int64_t ldc, Mode mode = Mode::default_mode) {
  check(bf16x_sgemm(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a, lda, b, ldb,
                    beta, c, ldc, bf16x_mode(mode)));
}

inline void dgemm(Layout layout, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
                  const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
                  std::int64_t ldc, Mode mode = Mode::default_mode) {
  check(bf16x_dgemm(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a, lda, b, ldb,
                    beta, c, ldc, bf16x_mode(mode)));
}

// Full control (engine, split, fusion, statistics) through bf16x_options.
inline void dgemm(Layout layout, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
                  const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
                  std::int64_t ldc, const bf16x_options& opt) {
  check(bf16x_dgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a, lda, b,
                       ldb, beta, c, ldc, &opt));
}
inline void sgemm(Layout layout, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                  const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                  std::int64_t ldc, const bf16x_options& opt) {
  check(bf16x_sgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a, lda, b,
                       ldb, beta, c, ldc, &opt));
}

// Complex: std::complex<T> has the layout of bf16x_complex_float/double (an array of two T, [complex.numbers]).
inline void cgemm(Layout layout, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                  std::complex<float> alpha, const std::complex<float>* a, std::int64_t lda,
                  const std::complex<float>* b, std::int64_t ldb, std::complex<float> beta, std::complex<float>* c,
                  std::int64_t ldc, Mode mode = Mode::default_mode) {
  using C = bf16x_complex_float;
  check(bf16x_cgemm(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k,
                    C{alpha.real(), alpha.imag()}, reinterpret_cast<const C*>(a), lda, reinterpret_cast<const C*>(b),
                    ldb, C{beta.real(), beta.imag()}, reinterpret_cast<C*>(c), ldc, bf16x_mode(mode)));
}

inline void zgemm(Layout layout, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                  std::complex<double> alpha, const std::complex<double>* a, std::int64_t lda,
                  const std::complex<double>* b, std::int64_t ldb, std::complex<double> beta, std::complex<double>* c,
                  std::int64_t ldc, Mode mode = Mode::default_mode) {
  using C = bf16x_complex_double;
  check(bf16x_zgemm(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k,
                    C{alpha.real(), alpha.imag()}, reinterpret_cast<const C*>(a), lda, reinterpret_cast<const C*>(b),
                    ldb, C{beta.real(), beta.imag()}, reinterpret_cast<C*>(c), ldc, bf16x_mode(mode)));
}

}  // namespace bf16x
