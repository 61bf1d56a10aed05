// One product C = -0.75 op(A) op(B) + 0.5 C drawn once and stored in any layout and transpose, run through the C
// API: the operands of the reproducibility and differential suites.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bf16x/bf16x.h"

namespace bf16x::test {

// One product, op(A) m x k, op(B) k x n and C m x n drawn once, stored in any layout and transpose.
template <typename T>
struct StoredProduct {
  std::int64_t m, n, k;
  std::vector<T> opa, opb, c0;  // column-major

  StoredProduct(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::uint64_t seed) : m(m_), n(n_), k(k_) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1), e(-6, 6);  // scales over 2^+-6: every slice carries bits
    auto draw = [&] { return T(u(rng) * std::exp2(e(rng))); };
    for (auto* v : {&opa, &opb, &c0}) v->resize(std::size_t(v == &opa ? m * k : v == &opb ? k * n : m * n));
    for (T& x : opa) x = draw();
    for (T& x : opb) x = draw();
    for (T& x : c0) x = T(u(rng));
  }

  // The stored matrix whose op() (with `trans`, in `layout`) is the column-major r x c matrix `op`, ld padded by 3.
  static std::vector<T> store(const std::vector<T>& op, std::int64_t r, std::int64_t c, int layout, bool trans,
                              std::int64_t& ld) {
    const std::int64_t sr = trans ? c : r, sc = trans ? r : c;  // the stored matrix: sr x sc
    const bool col = layout == BF16X_COL_MAJOR;
    ld = (col ? sr : sc) + 3;
    std::vector<T> s(std::size_t(ld * (col ? sc : sr)), T(NAN));
    for (std::int64_t i = 0; i < sr; ++i)
      for (std::int64_t j = 0; j < sc; ++j)
        s[std::size_t(col ? i + j * ld : j + i * ld)] = trans ? op[std::size_t(j + i * r)] : op[std::size_t(i + j * r)];
    return s;
  }

  // C = -0.75 op(A) op(B) + 0.5 C in `mode` on `engine` with `threads` threads, returned column-major.
  std::vector<T> run(int layout, int ta, int tb, int mode, int threads, int engine = BF16X_ENGINE_AUTO) const {
    std::int64_t lda, ldb, ldc;
    const std::vector<T> a = store(opa, m, k, layout, ta != BF16X_NO_TRANS, lda);
    const std::vector<T> b = store(opb, k, n, layout, tb != BF16X_NO_TRANS, ldb);
    std::vector<T> c = store(c0, m, n, layout, false, ldc);
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    o.engine = engine;
    // The modes' own bits: the guard (tests/test_guard.cpp) may send a call to the host GEMM, whose bits depend on
    // the layout and its own threads.
    o.guard = BF16X_GUARD_OFF;
    const int before = bf16x_get_num_threads();
    bf16x_set_num_threads(threads);
    int st;
    const auto lay = bf16x_layout(layout);
    if constexpr (sizeof(T) == 8)
      st = bf16x_dgemm_ex(lay, bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, -0.75, a.data(), lda, b.data(), ldb,
                          0.5, c.data(), ldc, &o);
    else
      st = bf16x_sgemm_ex(lay, bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, -0.75f, a.data(), lda, b.data(), ldb,
                          0.5f, c.data(), ldc, &o);
    bf16x_set_num_threads(before);
    EXPECT_EQ(st, BF16X_OK);
    std::vector<T> out(std::size_t(m * n));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i)
        out[std::size_t(i + j * m)] = c[std::size_t(layout == BF16X_COL_MAJOR ? i + j * ldc : j + i * ldc)];
    return out;
  }
};

}  // namespace bf16x::test
