// Reproducibility of bf16x_cgemm / bf16x_zgemm (docs/numerics.md, "Reproducibility"): an emulated mode gives the
// same bits for the same product whatever the layout of the call, the transposes (conjugation included) that
// express it and the thread count, with 4M and 3M. A row-major call reads its operands as their column-major
// transposes and writes C in place; computing it as C^T = B^T A^T would swap the roles of the row scales and
// column scales of the real products and reorder their sums. Small blocks (set_complex_blocking) make the calls
// cross block boundaries in m and n and run several chunks of k.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x_runtime.h"
#include "complex/blocking.hpp"

namespace bf16x::test {
namespace {

template <typename T>
using Cx = std::conditional_t<sizeof(T) == 4, bf16x_complex_float, bf16x_complex_double>;

// One product, op(A) m x k, op(B) k x n and C m x n drawn once (column-major), stored in any layout and transpose.
template <typename T>
struct CProduct {
  std::int64_t m, n, k;
  std::vector<Cx<T>> opa, opb, c0;

  CProduct(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::uint64_t seed) : m(m_), n(n_), k(k_) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1), e(-6, 6);  // scales over 2^+-6: every slice carries bits
    auto draw = [&] { return Cx<T>{T(u(rng) * std::exp2(e(rng))), T(u(rng) * std::exp2(e(rng)))}; };
    opa.resize(std::size_t(m * k));
    opb.resize(std::size_t(k * n));
    c0.resize(std::size_t(m * n));
    for (auto& x : opa) x = draw();
    for (auto& x : opb) x = draw();
    for (auto& x : c0) x = Cx<T>{T(u(rng)), T(u(rng))};
  }

  // The stored matrix whose op() (with `trans`, in `layout`) is the column-major r x c matrix `op`, ld padded by 3.
  static std::vector<Cx<T>> store(const std::vector<Cx<T>>& op, std::int64_t r, std::int64_t c, int layout, int trans,
                                  std::int64_t& ld) {
    const bool tr = trans != BF16X_NO_TRANS, cj = trans == BF16X_CONJ_TRANS;
    const std::int64_t sr = tr ? c : r, sc = tr ? r : c;  // the stored matrix: sr x sc
    const bool col = layout == BF16X_COL_MAJOR;
    ld = (col ? sr : sc) + 3;
    std::vector<Cx<T>> s(std::size_t(ld * (col ? sc : sr)), Cx<T>{T(NAN), T(NAN)});
    for (std::int64_t i = 0; i < sr; ++i)
      for (std::int64_t j = 0; j < sc; ++j) {
        Cx<T> v = tr ? op[std::size_t(j + i * r)] : op[std::size_t(i + j * r)];
        if (cj) v.im = -v.im;
        s[std::size_t(col ? i + j * ld : j + i * ld)] = v;
      }
    return s;
  }

  // C = alpha op(A) op(B) + beta C in `mode`, returned column-major.
  std::vector<Cx<T>> run(int layout, int ta, int tb, int mode, int method, int threads) const {
    std::int64_t lda, ldb, ldc;
    const auto a = store(opa, m, k, layout, ta, lda);
    const auto b = store(opb, k, n, layout, tb, ldb);
    auto c = store(c0, m, n, layout, BF16X_NO_TRANS, ldc);
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    o.complex_method = method;
    o.guard = BF16X_GUARD_OFF;  // the modes' own bits (tests/support/stored_product.hpp says why)
    const Cx<T> alpha{T(-0.75), T(0.5)}, beta{T(0.5), T(-0.25)};
    const int before = bf16x_get_num_threads();
    bf16x_set_num_threads(threads);
    int st;
    const auto lay = bf16x_layout(layout);
    if constexpr (sizeof(T) == 8)
      st = bf16x_zgemm_ex(lay, bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(), lda, b.data(), ldb,
                          beta, c.data(), ldc, &o);
    else
      st = bf16x_cgemm_ex(lay, bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(), lda, b.data(), ldb,
                          beta, c.data(), ldc, &o);
    bf16x_set_num_threads(before);
    EXPECT_EQ(st, BF16X_OK);
    std::vector<Cx<T>> out(std::size_t(m * n));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i)
        out[std::size_t(i + j * m)] = c[std::size_t(layout == BF16X_COL_MAJOR ? i + j * ldc : j + i * ldc)];
    return out;
  }
};

// Blocks of 16 x 24 and chunks of 256 for one test: 40 x 36 x 600 is 3 x 2 blocks of C and 3 chunks.
struct SmallBlocks {
  SmallBlocks() { complex::set_complex_blocking(16, 24, 256); }
  ~SmallBlocks() { complex::set_complex_blocking(0, 0, 0); }
};

template <typename T>
void expect_same_bits_in_every_layout(int mode) {
  const SmallBlocks blocks;
  const CProduct<T> p(40, 36, 600, 11);
  const int ts[] = {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS};
  for (int method : {BF16X_COMPLEX_4M, BF16X_COMPLEX_3M}) {
    const auto base = p.run(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, mode, method, 1);
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
      for (int ta : ts)
        for (int tb : ts)
          for (int threads : {1, 2}) {
            const char tc[] = "NTC";
            SCOPED_TRACE(std::string(bf16x_mode_name(mode)) + (method == BF16X_COMPLEX_3M ? " 3M" : " 4M") +
                         (layout == BF16X_ROW_MAJOR ? " row " : " col ") + tc[ta - BF16X_NO_TRANS] +
                         tc[tb - BF16X_NO_TRANS] + " threads " + std::to_string(threads));
            const auto c = p.run(layout, ta, tb, mode, method, threads);
            EXPECT_EQ(std::memcmp(c.data(), base.data(), c.size() * sizeof(c[0])), 0);
          }
  }
}

TEST(ComplexReproducibility, ZgemmGivesTheSameBitsInEveryLayoutTransposeAndThreadCount) {
  for (int mode : {int(BF16X_MODE_FP64X21), int(BF16X_MODE_FP64X6), int(BF16X_MODE_FP64C(15))})
    expect_same_bits_in_every_layout<double>(mode);
}

TEST(ComplexReproducibility, CgemmGivesTheSameBitsInEveryLayoutTransposeAndThreadCount) {
  expect_same_bits_in_every_layout<float>(BF16X_MODE_FP32X6);
}

}  // namespace
}  // namespace bf16x::test
