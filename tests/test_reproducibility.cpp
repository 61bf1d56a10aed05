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
#include "support/stored_product.hpp"

namespace bf16x::test {
namespace {

template <typename T>
void expect_same_bits_in_every_layout(int mode) {
  const StoredProduct<T> p(71, 45, 300, 7);  // odd sizes, k over two k-blocks
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
