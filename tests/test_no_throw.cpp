// No exception leaves the C API and none is thrown inside a parallel region (where it would end the process): a
// call whose bookkeeping the machine cannot hold returns BF16X_ERR_NOMEM with C untouched. m = 2^40 rows need a
// 4 TiB scale vector (FP64 modes) or complex block buffers before any operand is read; the operands are never read,
// so small buffers stand in for them. The address space is capped 64 GiB above its size for each call, so that these
// allocations fail on a machine that overcommits memory without limit (vm.overcommit_memory = 1) too. Left out of
// the sanitizer stages: ASan refuses such allocations by aborting.
#include <gtest/gtest.h>

#include <vector>

#include "bf16x/bf16x.h"
#include "support/address_space_limit.hpp"

namespace {

constexpr int64_t kHuge = int64_t(1) << 40;
constexpr std::size_t kHeadroom = std::size_t(64) << 30;  // 64 GiB: far more than the call's small allocations

using bf16x::test::AddressSpaceLimit;

TEST(NoThrow, DgemmWhoseScaleVectorCannotBeAllocatedIsNoMem) {
  std::vector<double> a(16, 1.0), c(16, 7.0);
  for (int mode : {int(BF16X_MODE_FP64X21), int(BF16X_MODE_FP64C(15))}) {
    // op(A) = A^T with k = 1: lda = 1 is valid for any m.
    const AddressSpaceLimit limit(kHeadroom);
    ASSERT_TRUE(limit.ok());
    EXPECT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, kHuge, 1, 1, 1.0, a.data(), 1, a.data(), 1, 0.0,
                          c.data(), kHuge, bf16x_mode(mode)),
              BF16X_ERR_NOMEM)
        << bf16x_mode_name(mode);
    for (double x : c) ASSERT_EQ(x, 7.0);
  }
}

TEST(NoThrow, ZgemmWhoseBlocksCannotBeAllocatedIsNoMem) {
  std::vector<bf16x_complex_double> a(16, {1.0, 0.5}), c(16, {7.0, 7.0});
  const AddressSpaceLimit limit(kHeadroom);
  ASSERT_TRUE(limit.ok());
  const int st = bf16x_zgemm(BF16X_COL_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, kHuge, 1, 1, {1.0, 0.0}, a.data(), 1,
                             a.data(), 1, {0.0, 0.0}, c.data(), kHuge, BF16X_MODE_FP64X21);
  EXPECT_EQ(st, BF16X_ERR_NOMEM);
  for (const auto& x : c) ASSERT_TRUE(x.re == 7.0 && x.im == 7.0);
}

}  // namespace
