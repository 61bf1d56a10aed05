// Reproducibility, a stated feature (docs/numerics.md): an emulated mode gives the same bits for the same product
// whatever the layout of the call (row- or column-major), the transposes that express it, the thread count and the
// engine. The layout case holds because a row-major call is computed in the same orientation as the column-major
// one (only C's addressing differs); swapping it into C^T = B^T A^T would reorder the FP32 and FP64 sums of the
// slice products of fp32x6, fp64x15 and fp64x21.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x_runtime.h"

namespace bf16x::test {
namespace {

// One product, op(A) m x k, op(B) k x n and C m x n drawn once, stored in any layout and transpose.
template <typename T>
struct Product {
  std::int64_t m, n, k;
  std::vector<T> opa, opb, c0;  // column-major

  Product(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::uint64_t seed) : m(m_), n(n_), k(k_) {
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

  // C = -0.75 op(A) op(B) + 0.5 C in `mode`, returned column-major.
  std::vector<T> run(int layout, int ta, int tb, int mode, int threads) const {
    std::int64_t lda, ldb, ldc;
    const std::vector<T> a = store(opa, m, k, layout, ta != BF16X_NO_TRANS, lda);
    const std::vector<T> b = store(opb, k, n, layout, tb != BF16X_NO_TRANS, ldb);
    std::vector<T> c = store(c0, m, n, layout, false, ldc);
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
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

template <typename T>
void expect_same_bits_in_every_layout(int mode) {
  const Product<T> p(71, 45, 300, 7);  // odd sizes, k over two k-blocks
  const std::vector<T> base = p.run(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, mode, 1);
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (int ta : {BF16X_NO_TRANS, BF16X_TRANS})
      for (int tb : {BF16X_NO_TRANS, BF16X_CONJ_TRANS})
        for (int threads : {1, 2}) {
          SCOPED_TRACE(std::string(bf16x_mode_name(mode)) + (layout == BF16X_ROW_MAJOR ? " row" : " col") +
                       (ta == BF16X_NO_TRANS ? " N" : " T") + (tb == BF16X_NO_TRANS ? "N" : "C") + " threads " +
                       std::to_string(threads));
          const std::vector<T> c = p.run(layout, ta, tb, mode, threads);
          EXPECT_EQ(std::memcmp(c.data(), base.data(), c.size() * sizeof(T)), 0);
        }
}

TEST(Reproducibility, Fp32ModesGiveTheSameBitsInEveryLayoutTransposeAndThreadCount) {
  for (int mode : {int(BF16X_MODE_FP32X6), int(BF16X_MODE_FP32C(5)), int(BF16X_MODE_FP32C(9))})
    expect_same_bits_in_every_layout<float>(mode);
}

TEST(Reproducibility, Fp64ModesGiveTheSameBitsInEveryLayoutTransposeAndThreadCount) {
  for (int mode : {int(BF16X_MODE_FP64X6), int(BF16X_MODE_FP64X10), int(BF16X_MODE_FP64X15), int(BF16X_MODE_FP64X21),
                   int(BF16X_MODE_FP64C(8)), int(BF16X_MODE_FP64C(15)), int(BF16X_MODE_FP64C(20))})
    expect_same_bits_in_every_layout<double>(mode);
}

}  // namespace
}  // namespace bf16x::test
