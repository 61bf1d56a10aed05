#include "api/complex_products.hpp"

#include <algorithm>
#include <type_traits>

namespace bf16x::api {
namespace {

// Sums of counters and times over the real GEMMs of one complex call; mode and engine of the last, the first
// non-empty why (auto's measurement is made by the first real GEMM).
void merge(Outcome& total, const Outcome& one) {
  total.mode = one.mode;
  total.engine = one.engine;
  if (total.why.empty()) total.why = one.why;
  total.counters.add(one.counters);
  total.seconds_split += one.seconds_split;
  total.seconds_compute += one.seconds_compute;
  total.workspace_bytes = std::max(total.workspace_bytes, one.workspace_bytes);
  total.guard = std::max(total.guard, one.guard);  // the strongest step any real product needed
  total.repaired += one.repaired;
  total.seconds_guard += one.seconds_guard;
}

template <typename U>
std::unique_ptr<U[]> buffer(std::size_t n, std::size_t& bytes) {
  bytes += n * sizeof(U);
  return std::unique_ptr<U[]>(new U[n]);  // not zeroed: every entry read is written first
}

}  // namespace

template <typename T>
ComplexProducts<T>::ComplexProducts(int method, std::int64_t mb, std::int64_t nb, std::int64_t kb)
    : method_(method), kb_(kb) {
  const auto sz = [](std::int64_t x) { return static_cast<std::size_t>(x); };
  if (method == BF16X_COMPLEX_3M) {
    ta_ = buffer<T>(sz(3 * mb * kb), bytes_);
    tb_ = buffer<T>(sz(3 * kb * nb), bytes_);
    p_ = buffer<double>(sz(2 * mb * nb), bytes_);
    t3_ = buffer<double>(sz(mb * nb), bytes_);
    if constexpr (std::is_same_v<T, float>) q_ = buffer<T>(sz(mb * nb), bytes_);
  } else {
    ta_ = buffer<T>(sz(2 * mb * kb), bytes_);
    tb_ = buffer<T>(sz(4 * kb * nb), bytes_);
    p_ = buffer<double>(sz(2 * mb * nb), bytes_);
    if constexpr (std::is_same_v<T, float>) q_ = buffer<T>(sz(2 * mb * nb), bytes_);
  }
}

template <typename T>
int ComplexProducts<T>::accumulate(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, double* acc,
                                   bool first, const bf16x_options& opt, Outcome& out) {
  Outcome one;
  int st;
  bf16x_options o = opt;
  if (pinned_mode_ >= 0) o.mode = pinned_mode_;
  if constexpr (std::is_same_v<T, double>) {
    // The real GEMM adds the chunk's product to the accumulator itself (beta 1): one FP64 rounding.
    st =
        run_gemm<T>(BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0, a, m, b, k, first ? 0.0 : 1.0, acc, m, false, o, one);
  } else {
    T* q = q_.get();
    st = run_gemm<T>(BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0f, a, m, b, k, 0.0f, q, m, false, o, one);
    const std::int64_t len = m * n;
    if (st == BF16X_OK) {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < len; ++i) acc[i] = first ? double(q[i]) : acc[i] + double(q[i]);
    }
  }
  if (st == BF16X_OK && pinned_mode_ < 0) pinned_mode_ = one.mode;
  merge(out, one);
  return st;
}

template <typename T>
int ComplexProducts<T>::block_4m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0,
                                 std::int64_t r, std::int64_t j0, std::int64_t c, const bf16x_options& opt,
                                 Outcome& out) {
  const std::int64_t k = a.cols;
  for (std::int64_t l0 = 0; l0 < k; l0 += kb_) {
    const std::int64_t kc = std::min(kb_, k - l0), k2 = 2 * kc;
    T* ae = ta_.get();
    T* be = tb_.get();
    // [Ar Ai], and the first block column [Br; -Bi] of the B operand.
    split_parts(a, i0, l0, r, kc, ae, r, ae + r * kc, r, false);
    split_parts(b, l0, j0, kc, c, be, k2, be + kc, k2, true);
    // Second block column [Bi; Br] from the first.
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < c; ++j) {
      const T* src = be + j * k2;
      T* dst = be + (c + j) * k2;
      for (std::int64_t l = 0; l < kc; ++l) {
        dst[l] = -src[kc + l];
        dst[kc + l] = src[l];
      }
    }
    if (const int st = accumulate(r, 2 * c, k2, ae, be, p_.get(), l0 == 0, opt, out); st != BF16X_OK) return st;
  }
  return BF16X_OK;
}

template <typename T>
int ComplexProducts<T>::block_3m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0,
                                 std::int64_t r, std::int64_t j0, std::int64_t c, const bf16x_options& opt,
                                 Outcome& out) {
  const std::int64_t k = a.cols, rc = r * c;
  double* t1 = p_.get();
  double* t2 = t1 + rc;
  double* t3 = t3_.get();
  for (std::int64_t l0 = 0; l0 < k; l0 += kb_) {
    const std::int64_t kc = std::min(kb_, k - l0), la = r * kc, lb = kc * c;
    T *ar = ta_.get(), *ai = ar + la, *as = ai + la;
    T *br = tb_.get(), *bi = br + lb, *bs = bi + lb;
    split_parts(a, i0, l0, r, kc, ar, r, ai, r, false);
    split_parts(b, l0, j0, kc, c, br, kc, bi, kc, false);
    // The sums in T (finite: every part of the scaled operands is below 1).
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < la; ++i) as[i] = ar[i] + ai[i];
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < lb; ++i) bs[i] = br[i] + bi[i];
    const bool first = l0 == 0;
    int st = accumulate(r, c, kc, ar, br, t1, first, opt, out);
    if (st == BF16X_OK) st = accumulate(r, c, kc, ai, bi, t2, first, opt, out);
    if (st == BF16X_OK) st = accumulate(r, c, kc, as, bs, t3, first, opt, out);
    if (st != BF16X_OK) return st;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rc; ++i) {
    const double re = t1[i] - t2[i], im = t3[i] - t1[i] - t2[i];
    t1[i] = re;  // Re P over T1, Im P over T2
    t2[i] = im;
  }
  return BF16X_OK;
}

template <typename T>
int ComplexProducts<T>::block(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0, std::int64_t r,
                              std::int64_t j0, std::int64_t c, const bf16x_options& opt, Outcome& out) {
  return method_ == BF16X_COMPLEX_3M ? block_3m(a, b, i0, r, j0, c, opt, out) : block_4m(a, b, i0, r, j0, c, opt, out);
}

template class ComplexProducts<float>;
template class ComplexProducts<double>;

}  // namespace bf16x::api
