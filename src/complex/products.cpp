#include "complex/products.hpp"

#include <algorithm>
#include <type_traits>

#include "util/team.hpp"

namespace bf16x::complex {
namespace {

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
                                   bool first, const RealGemm<T>& real) {
  int st;
  if constexpr (std::is_same_v<T, double>) {
    // The real GEMM adds the chunk's product to the accumulator itself (beta 1): one FP64 rounding.
    st = real(m, n, k, a, b, first ? 0.0 : 1.0, acc);
  } else {
    T* q = q_.get();
    st = real(m, n, k, a, b, 0.0f, q);
    const std::int64_t len = m * n;
    if (st == BF16X_OK) {
      util::for_each_index(len, len, [&](std::int64_t i) { acc[i] = first ? double(q[i]) : acc[i] + double(q[i]); });
    }
  }
  return st;
}

template <typename T>
int ComplexProducts<T>::block_4m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0,
                                 std::int64_t r, std::int64_t j0, std::int64_t c, const RealGemm<T>& real) {
  const std::int64_t k = a.cols;
  for (std::int64_t l0 = 0; l0 < k; l0 += kb_) {
    const std::int64_t kc = std::min(kb_, k - l0), k2 = 2 * kc;
    T* ae = ta_.get();
    T* be = tb_.get();
    // [Ar Ai], and the first block column [Br; -Bi] of the B operand.
    split_parts(a, i0, l0, r, kc, ae, r, ae + r * kc, r, false);
    split_parts(b, l0, j0, kc, c, be, k2, be + kc, k2, true);
    // Second block column [Bi; Br] from the first.
    util::for_each_index(c, c * k2, [&](std::int64_t j) {
      const T* src = be + j * k2;
      T* dst = be + (c + j) * k2;
      for (std::int64_t l = 0; l < kc; ++l) {
        dst[l] = -src[kc + l];
        dst[kc + l] = src[l];
      }
    });
    if (const int st = accumulate(r, 2 * c, k2, ae, be, p_.get(), l0 == 0, real); st != BF16X_OK) return st;
  }
  return BF16X_OK;
}

template <typename T>
int ComplexProducts<T>::block_3m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0,
                                 std::int64_t r, std::int64_t j0, std::int64_t c, const RealGemm<T>& real) {
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
    util::for_each_index(la, la, [&](std::int64_t i) { as[i] = ar[i] + ai[i]; });
    util::for_each_index(lb, lb, [&](std::int64_t i) { bs[i] = br[i] + bi[i]; });
    const bool first = l0 == 0;
    int st = accumulate(r, c, kc, ar, br, t1, first, real);
    if (st == BF16X_OK) st = accumulate(r, c, kc, ai, bi, t2, first, real);
    if (st == BF16X_OK) st = accumulate(r, c, kc, as, bs, t3, first, real);
    if (st != BF16X_OK) return st;
  }
  util::for_each_index(rc, rc, [&](std::int64_t i) {
    const double re = t1[i] - t2[i], im = t3[i] - t1[i] - t2[i];
    t1[i] = re;  // Re P over T1, Im P over T2
    t2[i] = im;
  });
  return BF16X_OK;
}

template <typename T>
int ComplexProducts<T>::block(const ComplexOperand<T>& a, const ComplexOperand<T>& b, std::int64_t i0, std::int64_t r,
                              std::int64_t j0, std::int64_t c, const RealGemm<T>& real) {
  return method_ == BF16X_COMPLEX_3M ? block_3m(a, b, i0, r, j0, c, real) : block_4m(a, b, i0, r, j0, c, real);
}

template class ComplexProducts<float>;
template class ComplexProducts<double>;

}  // namespace bf16x::complex
