// The raw single-product BF16 GEMM (engine/raw_gemm.hpp) on the AVX512-BF16 and reference engines: every element
// within the FP32 summation bound of the exact sum of its k BF16 products (one rounding per product at most, so
// |C - exact| <= k u S with S = sum |a b|, u = 2^-24), the two engines within 2 k u S of each other, and the
// packed-operand entry equal to the unpacked one bit for bit. Odd shapes, both transposes, ldc > m.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/features.hpp"
#include "engine/raw_gemm.hpp"

using namespace bf16x;

namespace {

struct Case {
  std::int64_t m, n, k;
  bool ta, tb;
};

void check(const Case& cs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  const std::int64_t lda = (cs.ta ? cs.k : cs.m) + 2, ldb = (cs.tb ? cs.n : cs.k) + 1, ldc = cs.m + 3;
  std::vector<bf16_t> a(std::size_t(lda * (cs.ta ? cs.m : cs.k))), b(std::size_t(ldb * (cs.tb ? cs.k : cs.n)));
  for (auto& x : a) x = float_to_bf16(u(rng));
  for (auto& x : b) x = float_to_bf16(u(rng));
  const pack::MatrixView<bf16_t> av{a.data(), lda, cs.ta}, bv{b.data(), ldb, cs.tb};
  std::vector<float> cr(std::size_t(ldc * cs.n), -5.f), ca = cr, cp = cr;
  ASSERT_TRUE(engine::raw_gemm(engine::reference_engine(), cs.m, cs.n, cs.k, av, bv, cr.data(), ldc));
  ASSERT_TRUE(engine::raw_gemm(engine::avx512bf16_engine(), cs.m, cs.n, cs.k, av, bv, ca.data(), ldc));
  engine::RawPacked packed;
  engine::raw_pack(av, bv, cs.m, cs.n, cs.k, packed);
  ASSERT_TRUE(engine::raw_gemm_packed(engine::avx512bf16_engine(), packed, cp.data(), ldc));
  ASSERT_EQ(0, std::memcmp(ca.data(), cp.data(), ca.size() * sizeof(float))) << "packed entry differs";
  const double kU = 0x1p-24;
  for (std::int64_t j = 0; j < cs.n; ++j) {
    for (std::int64_t i = 0; i < cs.m; ++i) {
      double exact = 0, s = 0;
      for (std::int64_t l = 0; l < cs.k; ++l) {
        const double p = double(bf16_to_float(av(i, l))) * double(bf16_to_float(bv(l, j)));
        exact += p;  // FP64 sum: its error is far below the FP32 bound
        s += std::fabs(p);
      }
      const double x = cr[std::size_t(i + j * ldc)], y = ca[std::size_t(i + j * ldc)];
      const double bound = double(cs.k) * kU * s * 1.001 + double(cs.k) * 0x1p-126;
      ASSERT_LE(std::fabs(x - exact), bound) << "reference (" << i << "," << j << ")";
      ASSERT_LE(std::fabs(y - exact), bound) << "avx512bf16 (" << i << "," << j << ")";
      ASSERT_LE(std::fabs(x - y), 2 * bound) << "(" << i << "," << j << ")";
    }
    for (std::int64_t i = cs.m; i < ldc; ++i) ASSERT_EQ(ca[std::size_t(i + j * ldc)], -5.f) << "wrote past m";
  }
}

}  // namespace

TEST(Avx512Bf16RawGemm, WithinSummationBoundOfExactAndOfReference) {
  if (!cpu::has_avx512bf16()) GTEST_SKIP() << "no AVX512-BF16 here";
  std::uint64_t seed = 1;
  for (const Case& c : {Case{1, 1, 1, false, false}, Case{2, 15, 17, false, true}, Case{33, 31, 63, true, false},
                        Case{65, 16, 257, true, true}, Case{257, 33, 65, false, false}, Case{31, 255, 32, false, true},
                        Case{63, 65, 513, false, false}}) {
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.n << "x" << c.k << (c.ta ? " T" : " N") << (c.tb ? "T" : "N"));
    check(c, seed++);
    if (HasFatalFailure()) return;
  }
}
