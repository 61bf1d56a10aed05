// A scheme = (slices per operand, reconstruction type, ordered product list). The triangular product set
// S_d = {(i,j): i+j<d} decides membership; the order is an execution choice (operand reuse, small terms first).
#pragma once
#include <vector>

#include "split/product.hpp"

namespace bf16x::split {

enum class Reconstruction {
  fp32,  // all products in one FP32 accumulator (fp32x6)
  fp64   // each product's exact FP32 panel sum widened to FP64 and accumulated there (fp64x*)
};

struct Scheme {
  const char* name;
  int mode;       // bf16x_mode
  int slices;     // BF16 slices per operand
  int diagonals;  // d: products with i+j<d
  Reconstruction reconstruction;
  std::vector<Product> products;  // execution order
};

// nullptr for native/auto/default or an unknown mode.
const Scheme* scheme_for_mode(int mode);

// Accumulator groups for one k-block of padded depth kb. FP32 path: one group, products in reuse order.
// FP64 path: one group per product (the paper), or with fuse_diagonals the products of one anti-diagonal share an
// accumulator, at most max_fused_products(kb) at a time, which keeps every FP32 sum exact (docs/numerics.md).
struct GroupPlan {
  std::vector<Product> products;     // storage the groups point into
  std::vector<ProductGroup> groups;  // in accumulation order
  std::vector<int> diagonal;         // i+j of each group
};
GroupPlan plan_groups(const Scheme& scheme, bool fuse_diagonals, int kb);

// The largest number of slice products whose kb-term sums may share one exact FP32 accumulator:
// each term is an integer of magnitude <= 2^16 on the diagonal's grid and the sum must stay <= 2^24.
inline int max_fused_products(int kb) { return kb > 0 ? (1 << 8) / kb : 0; }

}  // namespace bf16x::split
