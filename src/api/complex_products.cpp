#include "api/complex_products.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace bf16x::api {
namespace {

// Sums of counters and times over the real GEMMs of one complex call; mode, engine and why of the last.
void merge(Outcome& total, const Outcome& one) {
  total.mode = one.mode;
  total.engine = one.engine;
  total.why = one.why;
  total.counters.add(one.counters);
  total.seconds_split += one.seconds_split;
  total.seconds_compute += one.seconds_compute;
  total.workspace_bytes = std::max(total.workspace_bytes, one.workspace_bytes);
}

template <typename T>
int real_product(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, T* c, const bf16x_options& opt,
                 Outcome& out) {
  Outcome one;
  const int st = run_gemm<T>(BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, T(1), a, m, b, k, T(0), c, m, false, opt, one);
  merge(out, one);
  return st;
}

template <typename T>
int product_4m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, T* p, const bf16x_options& opt, Outcome& out,
               ComplexProduct& done) {
  const std::int64_t m = a.rows, k = a.cols, n = b.cols, k2 = 2 * k;
  std::vector<T> ae(std::size_t(2 * m * k)), be(std::size_t(4 * k * n));
  // [Ar Ai], and the first block column [Br; -Bi] of the B operand.
  if (!split_parts(a, ae.data(), m, ae.data() + m * k, m, false) ||
      !split_parts(b, be.data(), k2, be.data() + k, k2, true)) {
    done.nonfinite = true;
    return BF16X_OK;
  }
  // Second block column [Bi; Br] from the first.
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < n; ++j) {
    const T* src = be.data() + j * k2;
    T* dst = be.data() + (n + j) * k2;
    for (std::int64_t l = 0; l < k; ++l) {
      dst[l] = -src[k + l];
      dst[k + l] = src[l];
    }
  }
  done.method = BF16X_COMPLEX_4M;
  const int st = real_product<T>(m, 2 * n, k2, ae.data(), be.data(), p, opt, out);
  out.workspace_bytes += (ae.size() + be.size()) * sizeof(T);
  return st;
}

// x + y into s, false if a sum overflows.
template <typename T>
bool add_parts(const std::vector<T>& x, const std::vector<T>& y, std::vector<T>& s) {
  bool finite = true;
  const std::int64_t len = std::int64_t(s.size());
#pragma omp parallel for schedule(static) reduction(&& : finite)
  for (std::int64_t i = 0; i < len; ++i) {
    s[i] = x[i] + y[i];
    finite = finite && std::isfinite(s[i]);
  }
  return finite;
}

template <typename T>
int product_3m(const ComplexOperand<T>& a, const ComplexOperand<T>& b, T* p, const bf16x_options& opt, Outcome& out,
               ComplexProduct& done) {
  const std::int64_t m = a.rows, k = a.cols, n = b.cols, mn = m * n;
  std::vector<T> ar(std::size_t(m * k)), ai(ar.size()), as(ar.size());
  std::vector<T> br(std::size_t(k * n)), bi(br.size()), bs(br.size());
  if (!split_parts(a, ar.data(), m, ai.data(), m, false) || !split_parts(b, br.data(), k, bi.data(), k, false)) {
    done.nonfinite = true;
    return BF16X_OK;
  }
  // Sums that overflow would make T3 infinite where P is finite: 4M needs no sums.
  if (!add_parts(ar, ai, as) || !add_parts(br, bi, bs)) return product_4m(a, b, p, opt, out, done);
  done.method = BF16X_COMPLEX_3M;
  std::vector<T> t3(static_cast<std::size_t>(mn));
  T* t1 = p;
  T* t2 = p + mn;
  int st = real_product<T>(m, n, k, ar.data(), br.data(), t1, opt, out);
  if (st == BF16X_OK) st = real_product<T>(m, n, k, ai.data(), bi.data(), t2, opt, out);
  if (st == BF16X_OK) st = real_product<T>(m, n, k, as.data(), bs.data(), t3.data(), opt, out);
  if (st != BF16X_OK) return st;
  out.workspace_bytes += (3 * ar.size() + 3 * br.size() + t3.size()) * sizeof(T);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < mn; ++i) {
    const T re = t1[i] - t2[i], im = t3[i] - t1[i] - t2[i];
    t1[i] = re;  // Re P over T1, Im P over T2
    t2[i] = im;
  }
  return BF16X_OK;
}

}  // namespace

template <typename T>
int complex_product(int method, const ComplexOperand<T>& a, const ComplexOperand<T>& b, T* p, const bf16x_options& opt,
                    Outcome& out, ComplexProduct& done) {
  return method == BF16X_COMPLEX_3M ? product_3m(a, b, p, opt, out, done) : product_4m(a, b, p, opt, out, done);
}

template int complex_product(int, const ComplexOperand<float>&, const ComplexOperand<float>&, float*,
                             const bf16x_options&, Outcome&, ComplexProduct&);
template int complex_product(int, const ComplexOperand<double>&, const ComplexOperand<double>&, double*,
                             const bf16x_options&, Outcome&, ComplexProduct&);

}  // namespace bf16x::api
