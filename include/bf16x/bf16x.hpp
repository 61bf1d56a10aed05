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
// Level 3 (bf16x/level3.h): which triangle is stored, which side the triangular or symmetric A is on, unit diagonal.
enum class Uplo { upper = BF16X_UPPER, lower = BF16X_LOWER };
enum class Side { left = BF16X_LEFT, right = BF16X_RIGHT };
enum class Diag { non_unit = BF16X_NON_UNIT, unit = BF16X_UNIT };
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
  fp32x3 = BF16X_MODE_FP32X3,
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

// Level 3 beyond GEMM (bf16x/level3.h), one name per routine overloaded by element type: float, double,
// std::complex<float>, std::complex<double> (the C API's s, d, c, z). CBLAS argument order; the element type is
// taken from the array arguments, so alpha and beta convert to it (bf16x::syrk(..., 1.0, a, lda, 0.0, c, ldc) on
// float arrays is ssyrk). The last argument is a mode (the default: BF16X_SGEMM_MODE for float and complex<float>,
// BF16X_DGEMM_MODE for double and complex<double>) or the full bf16x_options. herk, her2k and hemm take the complex
// types only; herk's alpha and beta and her2k's beta are real.
namespace detail {
template <typename T>
struct Level3;  // the C entry points of element type T (defined for the four types only); one declaration each,
                // since a declaration list's auto must deduce one type for all (clang holds to that)
template <>
struct Level3<float> {
  using Scalar = float;
  static constexpr auto syrk = &bf16x_ssyrk_ex;
  static constexpr auto syr2k = &bf16x_ssyr2k_ex;
  static constexpr auto symm = &bf16x_ssymm_ex;
  static constexpr auto trmm = &bf16x_strmm_ex;
  static constexpr auto trsm = &bf16x_strsm_ex;
  static constexpr auto gemmt = &bf16x_sgemmt_ex;
};
template <>
struct Level3<double> {
  using Scalar = double;
  static constexpr auto syrk = &bf16x_dsyrk_ex;
  static constexpr auto syr2k = &bf16x_dsyr2k_ex;
  static constexpr auto symm = &bf16x_dsymm_ex;
  static constexpr auto trmm = &bf16x_dtrmm_ex;
  static constexpr auto trsm = &bf16x_dtrsm_ex;
  static constexpr auto gemmt = &bf16x_dgemmt_ex;
};
template <>
struct Level3<std::complex<float>> {
  using Scalar = std::complex<float>;
  using Real = float;  // herk's alpha and beta, her2k's beta; defined for the complex types only
  static constexpr auto syrk = &bf16x_csyrk_ex;
  static constexpr auto syr2k = &bf16x_csyr2k_ex;
  static constexpr auto symm = &bf16x_csymm_ex;
  static constexpr auto trmm = &bf16x_ctrmm_ex;
  static constexpr auto trsm = &bf16x_ctrsm_ex;
  static constexpr auto gemmt = &bf16x_cgemmt_ex;
  static constexpr auto herk = &bf16x_cherk_ex;
  static constexpr auto her2k = &bf16x_cher2k_ex;
  static constexpr auto hemm = &bf16x_chemm_ex;
};
template <>
struct Level3<std::complex<double>> {
  using Scalar = std::complex<double>;
  using Real = double;
  static constexpr auto syrk = &bf16x_zsyrk_ex;
  static constexpr auto syr2k = &bf16x_zsyr2k_ex;
  static constexpr auto symm = &bf16x_zsymm_ex;
  static constexpr auto trmm = &bf16x_ztrmm_ex;
  static constexpr auto trsm = &bf16x_ztrsm_ex;
  static constexpr auto gemmt = &bf16x_zgemmt_ex;
  static constexpr auto herk = &bf16x_zherk_ex;
  static constexpr auto her2k = &bf16x_zher2k_ex;
  static constexpr auto hemm = &bf16x_zhemm_ex;
};
// Not deduced from (so converted to) the element type of the arrays; no overload for other element types.
template <typename T>
using Scalar = typename Level3<T>::Scalar;
template <typename T>
using Real = typename Level3<T>::Real;

// The C API's view of an argument: std::complex<T> has the layout of bf16x_complex_float/double.
inline float c_api(float x) { return x; }
inline double c_api(double x) { return x; }
inline bf16x_complex_float c_api(std::complex<float> z) { return {z.real(), z.imag()}; }
inline bf16x_complex_double c_api(std::complex<double> z) { return {z.real(), z.imag()}; }
inline const float* c_api(const float* p) { return p; }
inline const double* c_api(const double* p) { return p; }
inline float* c_api(float* p) { return p; }
inline double* c_api(double* p) { return p; }
inline const bf16x_complex_float* c_api(const std::complex<float>* p) {
  return reinterpret_cast<const bf16x_complex_float*>(p);
}
inline const bf16x_complex_double* c_api(const std::complex<double>* p) {
  return reinterpret_cast<const bf16x_complex_double*>(p);
}
inline bf16x_complex_float* c_api(std::complex<float>* p) { return reinterpret_cast<bf16x_complex_float*>(p); }
inline bf16x_complex_double* c_api(std::complex<double>* p) { return reinterpret_cast<bf16x_complex_double*>(p); }

inline bf16x_options options_of(Mode mode) {
  bf16x_options o{};  // size set, every other field its default
  o.mode = int(mode);
  return o;
}
}  // namespace detail

// C = alpha op(A) op(A)^T + beta C on uplo's triangle of the n x n C (op(A) n x k).
template <typename T>
void syrk(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha, const T* a,
          std::int64_t lda, detail::Scalar<T> beta, T* c, std::int64_t ldc, const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::syrk(bf16x_layout(layout), bf16x_uplo(uplo), bf16x_transpose(trans), n, k, c_api(alpha),
                                c_api(a), lda, c_api(beta), c_api(c), ldc, &opt));
}
template <typename T>
void syrk(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha, const T* a,
          std::int64_t lda, detail::Scalar<T> beta, T* c, std::int64_t ldc, Mode mode = Mode::default_mode) {
  syrk(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc, detail::options_of(mode));
}

// C = alpha op(A) op(A)^H + beta C, alpha and beta real (trans: Op::none or Op::conj_trans); complex only.
template <typename T>
void herk(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Real<T> alpha, const T* a,
          std::int64_t lda, detail::Real<T> beta, T* c, std::int64_t ldc, const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::herk(bf16x_layout(layout), bf16x_uplo(uplo), bf16x_transpose(trans), n, k, alpha, c_api(a),
                                lda, beta, c_api(c), ldc, &opt));
}
template <typename T>
void herk(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Real<T> alpha, const T* a,
          std::int64_t lda, detail::Real<T> beta, T* c, std::int64_t ldc, Mode mode = Mode::default_mode) {
  herk(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc, detail::options_of(mode));
}

// C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C.
template <typename T>
void syr2k(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha, const T* a,
           std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
           const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::syr2k(bf16x_layout(layout), bf16x_uplo(uplo), bf16x_transpose(trans), n, k, c_api(alpha),
                                 c_api(a), lda, c_api(b), ldb, c_api(beta), c_api(c), ldc, &opt));
}
template <typename T>
void syr2k(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha, const T* a,
           std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
           Mode mode = Mode::default_mode) {
  syr2k(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, detail::options_of(mode));
}

// C = alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C, beta real; complex only.
template <typename T>
void her2k(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha, const T* a,
           std::int64_t lda, const T* b, std::int64_t ldb, detail::Real<T> beta, T* c, std::int64_t ldc,
           const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::her2k(bf16x_layout(layout), bf16x_uplo(uplo), bf16x_transpose(trans), n, k, c_api(alpha),
                                 c_api(a), lda, c_api(b), ldb, beta, c_api(c), ldc, &opt));
}
template <typename T>
void her2k(Layout layout, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha, const T* a,
           std::int64_t lda, const T* b, std::int64_t ldb, detail::Real<T> beta, T* c, std::int64_t ldc,
           Mode mode = Mode::default_mode) {
  her2k(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, detail::options_of(mode));
}

// C = alpha A B + beta C (Side::left, A m x m) or alpha B A + beta C (Side::right, A n x n), A symmetric with
// uplo's triangle stored.
template <typename T>
void symm(Layout layout, Side side, Uplo uplo, std::int64_t m, std::int64_t n, detail::Scalar<T> alpha, const T* a,
          std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
          const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::symm(bf16x_layout(layout), bf16x_side(side), bf16x_uplo(uplo), m, n, c_api(alpha), c_api(a),
                                lda, c_api(b), ldb, c_api(beta), c_api(c), ldc, &opt));
}
template <typename T>
void symm(Layout layout, Side side, Uplo uplo, std::int64_t m, std::int64_t n, detail::Scalar<T> alpha, const T* a,
          std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
          Mode mode = Mode::default_mode) {
  symm(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, detail::options_of(mode));
}

// As symm with A Hermitian (the imaginary parts of its diagonal are not read); complex only.
template <typename T, typename = detail::Real<T>>
void hemm(Layout layout, Side side, Uplo uplo, std::int64_t m, std::int64_t n, detail::Scalar<T> alpha, const T* a,
          std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
          const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::hemm(bf16x_layout(layout), bf16x_side(side), bf16x_uplo(uplo), m, n, c_api(alpha), c_api(a),
                                lda, c_api(b), ldb, c_api(beta), c_api(c), ldc, &opt));
}
template <typename T, typename = detail::Real<T>>
void hemm(Layout layout, Side side, Uplo uplo, std::int64_t m, std::int64_t n, detail::Scalar<T> alpha, const T* a,
          std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
          Mode mode = Mode::default_mode) {
  hemm(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, detail::options_of(mode));
}

// B = alpha op(A) B (Side::left, A m x m) or alpha B op(A) (Side::right, A n x n), A triangular, in place.
template <typename T>
void trmm(Layout layout, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n,
          detail::Scalar<T> alpha, const T* a, std::int64_t lda, T* b, std::int64_t ldb, const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::trmm(bf16x_layout(layout), bf16x_side(side), bf16x_uplo(uplo), bf16x_transpose(transa),
                                bf16x_diag(diag), m, n, c_api(alpha), c_api(a), lda, c_api(b), ldb, &opt));
}
template <typename T>
void trmm(Layout layout, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n,
          detail::Scalar<T> alpha, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
          Mode mode = Mode::default_mode) {
  trmm(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, detail::options_of(mode));
}

// Solves op(A) X = alpha B (Side::left) or X op(A) = alpha B (Side::right), X over B; a singular A is not detected.
template <typename T>
void trsm(Layout layout, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n,
          detail::Scalar<T> alpha, const T* a, std::int64_t lda, T* b, std::int64_t ldb, const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::trsm(bf16x_layout(layout), bf16x_side(side), bf16x_uplo(uplo), bf16x_transpose(transa),
                                bf16x_diag(diag), m, n, c_api(alpha), c_api(a), lda, c_api(b), ldb, &opt));
}
template <typename T>
void trsm(Layout layout, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n,
          detail::Scalar<T> alpha, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
          Mode mode = Mode::default_mode) {
  trsm(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, detail::options_of(mode));
}

// C = alpha op(A) op(B) + beta C on uplo's triangle of the n x n C only (op(A) n x k, op(B) k x n).
template <typename T>
void gemmt(Layout layout, Uplo uplo, Op transa, Op transb, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha,
           const T* a, std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
           const bf16x_options& opt) {
  using detail::c_api;
  check(detail::Level3<T>::gemmt(bf16x_layout(layout), bf16x_uplo(uplo), bf16x_transpose(transa),
                                 bf16x_transpose(transb), n, k, c_api(alpha), c_api(a), lda, c_api(b), ldb, c_api(beta),
                                 c_api(c), ldc, &opt));
}
template <typename T>
void gemmt(Layout layout, Uplo uplo, Op transa, Op transb, std::int64_t n, std::int64_t k, detail::Scalar<T> alpha,
           const T* a, std::int64_t lda, const T* b, std::int64_t ldb, detail::Scalar<T> beta, T* c, std::int64_t ldc,
           Mode mode = Mode::default_mode) {
  gemmt(layout, uplo, transa, transb, n, k, alpha, a, lda, b, ldb, beta, c, ldc, detail::options_of(mode));
}

}  // namespace bf16x
