// Strided batched GEMM (bf16x_?gemm_batch_strided): every item has the bits of the single call on it, small items
// (run in parallel over the batch) and large ones (one after another) alike, in both layouts, with broadcast
// operands; every argument is checked before any item runs, so an error writes no C; stats sum over the items.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <type_traits>
#include <vector>

#include "bf16x/bf16x.h"

namespace {

template <typename T>
struct Api;
template <>
struct Api<double> {
  static constexpr auto single = bf16x_dgemm_ex;
  static constexpr auto batch = bf16x_dgemm_batch_strided;
  static double value(double x, double) { return x; }
};
template <>
struct Api<float> {
  static constexpr auto single = bf16x_sgemm_ex;
  static constexpr auto batch = bf16x_sgemm_batch_strided;
  static float value(double x, double) { return float(x); }
};
template <>
struct Api<bf16x_complex_double> {
  static constexpr auto single = bf16x_zgemm_ex;
  static constexpr auto batch = bf16x_zgemm_batch_strided;
  static bf16x_complex_double value(double x, double y) { return {x, y}; }
};
template <>
struct Api<bf16x_complex_float> {
  static constexpr auto single = bf16x_cgemm_ex;
  static constexpr auto batch = bf16x_cgemm_batch_strided;
  static bf16x_complex_float value(double x, double y) { return {float(x), float(y)}; }
};

struct Shape {
  bf16x_layout layout;
  bf16x_transpose ta, tb;
  std::int64_t m, n, k, count;
  bool broadcast_b;  // stride_b = 0: one B for every item
};

// A batch of `s` with padded leading dimensions and gaps between the C items; C starts as a pattern, so that the
// gaps show any write outside the items.
template <typename T>
struct BatchCase {
  Shape s;
  std::int64_t lda, ldb, ldc, sa, sb, sc;
  std::vector<T> a, b, c;
  T alpha, beta;
  explicit BatchCase(const Shape& shape, unsigned seed = 1) : s(shape) {
    const bool col = s.layout == BF16X_COL_MAJOR;
    const bool ta = s.ta != BF16X_NO_TRANS, tb = s.tb != BF16X_NO_TRANS;
    const std::int64_t a_len = col != ta ? s.m : s.k, a_lines = col != ta ? s.k : s.m;
    const std::int64_t b_len = col != tb ? s.k : s.n, b_lines = col != tb ? s.n : s.k;
    const std::int64_t c_len = col ? s.m : s.n, c_lines = col ? s.n : s.m;
    lda = a_len + 3, ldb = b_len + 1, ldc = c_len + 2;
    sa = lda * a_lines + 5, sb = s.broadcast_b ? 0 : ldb * b_lines, sc = ldc * c_lines + 7;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    a.resize(std::size_t(sa * s.count));
    b.resize(std::size_t(s.broadcast_b ? ldb * b_lines : sb * s.count));
    c.resize(std::size_t(sc * s.count));
    for (T& x : a) x = Api<T>::value(u(rng), u(rng));
    for (T& x : b) x = Api<T>::value(u(rng), u(rng));
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = Api<T>::value(double(i % 13) - 6, 0.5);
    alpha = Api<T>::value(0.75, -0.25);
    beta = Api<T>::value(-0.5, 0.125);
  }
  int run_batch(const bf16x_options* o) {
    return Api<T>::batch(s.layout, s.ta, s.tb, s.m, s.n, s.k, alpha, a.data(), lda, sa, b.data(), ldb, sb, beta,
                         c.data(), ldc, sc, s.count, o);
  }
  // The single calls, item by item, on a copy of the initial C.
  std::vector<T> singles(const bf16x_options* o) const {
    std::vector<T> r = c;
    for (std::int64_t i = 0; i < s.count; ++i)
      EXPECT_EQ(Api<T>::single(s.layout, s.ta, s.tb, s.m, s.n, s.k, alpha, a.data() + i * sa, lda, b.data() + i * sb,
                               ldb, beta, r.data() + i * sc, ldc, o),
                BF16X_OK);
    return r;
  }
};

template <typename T>
void expect_items_match_single_calls(const Shape& s, int mode) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  BatchCase<T> bc(s);
  const std::vector<T> want = bc.singles(&o);  // the gaps between items keep their pattern there too
  ASSERT_EQ(bc.run_batch(&o), BF16X_OK);
  EXPECT_EQ(std::memcmp(bc.c.data(), want.data(), want.size() * sizeof(T)), 0)
      << "mode " << bf16x_mode_name(mode) << " m n k " << s.m << " " << s.n << " " << s.k << " count " << s.count
      << (s.layout == BF16X_ROW_MAJOR ? " row-major" : " column-major");
}

const bf16x_transpose N = BF16X_NO_TRANS, T_ = BF16X_TRANS;

std::vector<Shape> shapes() {
  std::vector<Shape> r;
  for (bf16x_layout l : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
    r.push_back({l, N, N, 5, 7, 9, 37, false});  // small: parallel over the batch
    r.push_back({l, T_, N, 4, 4, 4, 64, true});  // 4x4 items, one B for all
    r.push_back({l, N, T_, 33, 17, 40, 9, false});
    r.push_back({l, N, N, 132, 130, 128, 2, false});  // 2.2M multiply-adds: items one after another
  }
  return r;
}

TEST(BatchGemm, DgemmItemsHaveTheSingleCallsBits) {
  for (const Shape& s : shapes())
    for (int mode : {int(BF16X_MODE_FP64X6), int(BF16X_MODE_FP64X21), int(BF16X_MODE_FP64C(15)), int(BF16X_MODE_NATIVE),
                     int(BF16X_MODE_AUTO)})
      expect_items_match_single_calls<double>(s, mode);
}

TEST(BatchGemm, SgemmItemsHaveTheSingleCallsBits) {
  for (const Shape& s : shapes())
    for (int mode : {int(BF16X_MODE_FP32X6), int(BF16X_MODE_FP32C(7)), int(BF16X_MODE_NATIVE)})
      expect_items_match_single_calls<float>(s, mode);
}

TEST(BatchGemm, ComplexItemsHaveTheSingleCallsBits) {
  for (bf16x_layout l : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
    const Shape small{l, BF16X_CONJ_TRANS, N, 6, 5, 7, 21, false};
    expect_items_match_single_calls<bf16x_complex_double>(small, BF16X_MODE_FP64X21);
    expect_items_match_single_calls<bf16x_complex_double>(small, BF16X_MODE_NATIVE);
    expect_items_match_single_calls<bf16x_complex_float>(small, BF16X_MODE_FP32X6);
    expect_items_match_single_calls<bf16x_complex_float>({l, N, T_, 130, 129, 128, 2, true}, BF16X_MODE_FP32X6);
  }
}

// The thread count changes who computes which item, not the bits.
TEST(BatchGemm, OneThreadGivesTheSameBits) {
  const Shape s{BF16X_ROW_MAJOR, N, N, 8, 8, 8, 50, false};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64X10;
  BatchCase<double> many(s), one(s);
  ASSERT_EQ(many.run_batch(&o), BF16X_OK);
  const int before = bf16x_get_num_threads();
  ASSERT_EQ(bf16x_set_num_threads(1), BF16X_OK);
  EXPECT_EQ(one.run_batch(&o), BF16X_OK);
  bf16x_set_num_threads(0);
  EXPECT_EQ(bf16x_get_num_threads(), before);
  EXPECT_EQ(many.c, one.c);
}

constexpr int kSingle = -1;  // the status the single call gives

TEST(BatchGemm, ArgumentsAreCheckedBeforeAnyItemRuns) {
  const Shape s{BF16X_COL_MAJOR, N, N, 6, 5, 4, 3, false};
  struct Bad {
    const char* what;
    int want;
    std::function<void(BatchCase<double>&, bf16x_options&)> spoil;
  };
  const std::vector<Bad> bad = {
      {"negative stride_a", BF16X_ERR_LDA, [](auto& b, auto&) { b.sa = -1; }},
      {"negative stride_b", BF16X_ERR_LDB, [](auto& b, auto&) { b.sb = -4; }},
      {"negative stride_c", BF16X_ERR_LDC, [](auto& b, auto&) { b.sc = -1; }},
      {"C items overlap", BF16X_ERR_LDC, [](auto& b, auto&) { b.sc = b.ldc * (b.s.n - 1) + b.s.m - 1; }},
      {"C items the same", BF16X_ERR_LDC, [](auto& b, auto&) { b.sc = 0; }},
      {"negative count", BF16X_ERR_SIZE, [](auto& b, auto&) { b.s.count = -1; }},
      {"span past int64", BF16X_ERR_SIZE, [](auto& b, auto&) { b.sa = INT64_MAX / 2; }},
      {"lda", BF16X_ERR_LDA, [](auto& b, auto&) { b.lda = 5; }},
      {"m", BF16X_ERR_M, [](auto& b, auto&) { b.s.m = -1; }},
      {"transb", BF16X_ERR_TRANS_B, [](auto& b, auto&) { b.s.tb = bf16x_transpose(7); }},
      {"mode of sgemm", BF16X_ERR_MODE, [](auto&, auto& o) { o.mode = BF16X_MODE_FP32X6; }},
      {"block_k", BF16X_ERR_OPTIONS, [](auto&, auto& o) { o.block_k = 33; }},
      // Found only when the items run, and by every one of them before it writes: still no C written. The status
      // is the single call's (kSingle).
      {"INT8 engine for a BF16 mode", kSingle, [](auto&, auto& o) { o.engine = BF16X_ENGINE_AVX512VNNI; }},
  };
  for (const Bad& x : bad) {
    BatchCase<double> bc(s);
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = BF16X_MODE_FP64X6;
    x.spoil(bc, o);
    const std::vector<double> before = bc.c;
    int want = x.want;
    if (want == kSingle) {
      std::vector<double> scratch = bc.c;
      want = bf16x_dgemm_ex(s.layout, N, N, s.m, s.n, s.k, bc.alpha, bc.a.data(), bc.lda, bc.b.data(), bc.ldb, bc.beta,
                            scratch.data(), bc.ldc, &o);
      ASSERT_NE(want, BF16X_OK) << x.what;
    }
    EXPECT_EQ(bc.run_batch(&o), want) << x.what;
    EXPECT_EQ(bc.c, before) << x.what;
  }
  BatchCase<double> null_a(s);
  const std::vector<double> before = null_a.c;
  EXPECT_EQ(
      bf16x_dgemm_batch_strided(s.layout, N, N, s.m, s.n, s.k, 1.0, nullptr, null_a.lda, null_a.sa, null_a.b.data(),
                                null_a.ldb, null_a.sb, 0.0, null_a.c.data(), null_a.ldc, null_a.sc, s.count, nullptr),
      BF16X_ERR_NULL);
  EXPECT_EQ(null_a.c, before);
  // No items: checked, nothing done.
  BatchCase<double> none(s);
  none.s.count = 0;
  EXPECT_EQ(none.run_batch(nullptr), BF16X_OK);
}

TEST(BatchGemm, StatsSumOverTheItems) {
  const Shape s{BF16X_COL_MAJOR, N, N, 40, 40, 40, 6, false};
  bf16x_stats one{}, all{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64X6;
  o.stats = &one;
  BatchCase<double> bc(s);
  bc.singles(&o);  // the last item's stats: every item has the same shape and mode
  o.stats = &all;
  ASSERT_EQ(bc.run_batch(&o), BF16X_OK);
  EXPECT_EQ(all.mode, BF16X_MODE_FP64X6);
  EXPECT_EQ(all.engine, one.engine);
  EXPECT_GT(one.micro_tiles, 0u);
  EXPECT_EQ(all.micro_tiles, one.micro_tiles * std::uint64_t(s.count));
  EXPECT_EQ(all.dot_products, one.dot_products * std::uint64_t(s.count));
  EXPECT_EQ(all.bytes_pack, one.bytes_pack * std::uint64_t(s.count));
  EXPECT_EQ(all.bytes_write, one.bytes_write * std::uint64_t(s.count));
  EXPECT_GT(all.seconds_products, 0.0);
  EXPECT_EQ(all.size, sizeof(bf16x_stats));
}

}  // namespace
