#include "method/call.hpp"

#include "host/host_blas.hpp"
#include "method/guard.hpp"

namespace bf16x::method {
namespace {
int flip(int t) { return t == BF16X_NO_TRANS ? BF16X_TRANS : BF16X_NO_TRANS; }
}  // namespace

template <typename T>
bool host_gemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
               const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, bool c_rows) {
  // The column-major host GEMM computes a row-major C as C^T = op(B)^T op(A)^T.
  if (c_rows) return host_gemm<T>(flip(tb), flip(ta), n, m, k, alpha, b, ldb, a, lda, beta, c, ldc, false);
  return host::gemm<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int host_missing() { return *host::library_name() ? BF16X_ERR_ENGINE : BF16X_ERR_NO_HOST; }

int call_status(util::DriverStatus s) {
  switch (s) {
    case util::DriverStatus::no_memory:
      return BF16X_ERR_NOMEM;
    case util::DriverStatus::wrong_precision:
      return BF16X_ERR_MODE;
    case util::DriverStatus::engine_unavailable:
      return BF16X_ERR_ENGINE;
    default:
      return BF16X_OK;
  }
}

template <typename T>
int Call<T>::host_guarded() const {
  if (!c_rows)
    return host_in_range<T>(repair(), m, n, [this] {
      return host_gemm_untransposed<T>(m, n, k, alpha, opa(), opb(), beta, c, ldc) ? int(BF16X_OK) : host_missing();
    });
  std::vector<T> w(std::size_t(m * n));
  if (beta != T(0))
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) w[std::size_t(i + j * m)] = c[i * ldc + j];
  Call col = *this;
  col.c = w.data();
  col.ldc = std::max<std::int64_t>(m, 1);
  col.c_rows = false;
  const int st = col.host_guarded();
  if (st == BF16X_OK)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c[i * ldc + j] = w[std::size_t(i + j * m)];
  return st;
}

template struct Call<float>;
template struct Call<double>;
template bool host_gemm(int, int, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                        const float*, std::int64_t, float, float*, std::int64_t, bool);
template bool host_gemm(int, int, std::int64_t, std::int64_t, std::int64_t, double, const double*, std::int64_t,
                        const double*, std::int64_t, double, double*, std::int64_t, bool);

}  // namespace bf16x::method
