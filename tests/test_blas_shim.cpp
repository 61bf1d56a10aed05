// The BLAS shim (libbf16x_blas.so) loaded as a program loads it, next to the library's C API in this process: a
// row-major cblas_cgemm / cblas_zgemm gives the bits of bf16x_cgemm / bf16x_zgemm on the same arguments (and so of
// the column-major call of the same product, docs/numerics.md "Reproducibility"). The shim once passed a row-major
// call on as its column-major C^T = B^T A^T, which swaps the row and column scales of the real products: 477 of
// 480 entries differed in fp32x6 while the C API's two layouts agreed.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"

namespace {

#ifdef BF16X_BLAS_SHIM

using CblasComplexGemm = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,
                                  const void*, void*, int);
using SetMode = int (*)(int);

// The shim, loaded once and kept (its OpenMP threads outlive any test); RTLD_LOCAL keeps its names out of this
// process's own lookups.
void* shim() {
  static void* h = dlopen(BF16X_BLAS_SHIM, RTLD_NOW | RTLD_LOCAL);
  return h;
}

template <typename Cx>
std::vector<Cx> draw(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Cx> v(count);
  for (Cx& x : v) x = Cx{decltype(x.re)(u(rng)), decltype(x.im)(u(rng))};
  return v;
}

// One call through the shim and through the C API, for every layout and pair of transposes; the bits must agree.
template <typename Cx>
void same_bits(const char* routine, int mode) {
  constexpr bool dbl = sizeof(Cx) == 16;
  ASSERT_NE(shim(), nullptr) << dlerror();
  const auto gemm = reinterpret_cast<CblasComplexGemm>(dlsym(shim(), routine));
  const auto set_mode = reinterpret_cast<SetMode>(dlsym(shim(), dbl ? "bf16x_set_dgemm_mode" : "bf16x_set_sgemm_mode"));
  ASSERT_NE(gemm, nullptr);
  ASSERT_NE(set_mode, nullptr);
  ASSERT_EQ(set_mode(mode), BF16X_OK);
  const int m = 24, n = 20, k = 70;
  std::mt19937_64 rng(7 + std::uint64_t(mode));
  const Cx alpha{decltype(Cx::re)(0.75), decltype(Cx::re)(-1.5)}, beta{decltype(Cx::re)(0.5), decltype(Cx::re)(0.25)};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  for (int layout : {BF16X_ROW_MAJOR, BF16X_COL_MAJOR})
    for (int ta : {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS})
      for (int tb : {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS}) {
        const bool row = layout == BF16X_ROW_MAJOR;
        // Stored shapes: op(A) is m x k, op(B) k x n; leading dimensions padded by 2.
        const int ar = ta == BF16X_NO_TRANS ? m : k, ac = ta == BF16X_NO_TRANS ? k : m;
        const int br = tb == BF16X_NO_TRANS ? k : n, bc = tb == BF16X_NO_TRANS ? n : k;
        const int lda = (row ? ac : ar) + 2, ldb = (row ? bc : br) + 2, ldc = (row ? n : m) + 2;
        const auto a = draw<Cx>(std::size_t(lda) * (row ? ar : ac), rng);
        const auto b = draw<Cx>(std::size_t(ldb) * (row ? br : bc), rng);
        const auto c0 = draw<Cx>(std::size_t(ldc) * (row ? m : n), rng);
        auto c_shim = c0, c_api = c0;
        gemm(layout, ta, tb, m, n, k, &alpha, a.data(), lda, b.data(), ldb, &beta, c_shim.data(), ldc);
        int st;
        if constexpr (dbl)
          st = bf16x_zgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(),
                              lda, b.data(), ldb, beta, c_api.data(), ldc, &o);
        else
          st = bf16x_cgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(),
                              lda, b.data(), ldb, beta, c_api.data(), ldc, &o);
        ASSERT_EQ(st, BF16X_OK);
        int differ = 0;
        for (std::size_t e = 0; e < c_api.size(); ++e) differ += std::memcmp(&c_api[e], &c_shim[e], sizeof(Cx)) != 0;
        EXPECT_EQ(differ, 0) << routine << " " << bf16x_mode_name(mode) << (row ? " row-major" : " column-major")
                             << " ta " << ta << " tb " << tb << ": " << differ << " of " << m * n
                             << " entries differ from the C API's";
      }
  ASSERT_EQ(set_mode(BF16X_MODE_DEFAULT), BF16X_OK);
}

TEST(BlasShim, CblasCgemmGivesTheCApisBitsInBothLayouts) {
  same_bits<bf16x_complex_float>("cblas_cgemm", BF16X_MODE_FP32X6);
  same_bits<bf16x_complex_float>("cblas_cgemm", BF16X_MODE_FP32C(8));
}

TEST(BlasShim, CblasZgemmGivesTheCApisBitsInBothLayouts) {
  same_bits<bf16x_complex_double>("cblas_zgemm", BF16X_MODE_FP64X21);
  same_bits<bf16x_complex_double>("cblas_zgemm", BF16X_MODE_FP64C(15));
}

#else

TEST(BlasShim, CblasCgemmGivesTheCApisBitsInBothLayouts) { GTEST_SKIP() << "libbf16x_blas is not built"; }

#endif

}  // namespace
