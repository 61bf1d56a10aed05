#include "split/scheme.hpp"

#include <algorithm>

#include "bf16x/bf16x.h"

namespace bf16x::split {
namespace {

// FP64 products of S_d, smallest anti-diagonal first so the FP64 sums add small terms before large ones.
std::vector<Product> triangle(int d) {
  std::vector<Product> p;
  for (int t = d - 1; t >= 0; --t)
    for (int i = 0; i <= t; ++i) p.push_back({std::uint8_t(i), std::uint8_t(t - i)});
  return p;
}

const std::vector<Scheme>& all_schemes() {
  static const std::vector<Scheme> s = {
      // fp32x6: operand-reuse order; consecutive products share A or B, so 7 panel loads per k-chunk, not 12.
      {"fp32x6", BF16X_MODE_FP32X6, 3, 3, Reconstruction::fp32, {{1, 1}, {1, 0}, {2, 0}, {0, 0}, {0, 1}, {0, 2}}},
      {"fp64x6", BF16X_MODE_FP64X6, 6, 3, Reconstruction::fp64, triangle(3)},
      {"fp64x10", BF16X_MODE_FP64X10, 6, 4, Reconstruction::fp64, triangle(4)},
      {"fp64x15", BF16X_MODE_FP64X15, 6, 5, Reconstruction::fp64, triangle(5)},
      {"fp64x21", BF16X_MODE_FP64X21, 6, 6, Reconstruction::fp64, triangle(6)},
      // fp32x3: A1B0 and A0B0 share B0, A0B0 and A0B1 share A0.
      {"fp32x3", BF16X_MODE_FP32X3, 2, 2, Reconstruction::fp32, {{1, 0}, {0, 0}, {0, 1}}},
  };
  return s;
}

}  // namespace

const Scheme* scheme_for_mode(int mode) {
  for (const Scheme& s : all_schemes())
    if (s.mode == mode) return &s;
  return nullptr;
}

GroupPlan plan_groups(const Scheme& scheme, bool fuse_diagonals, int kb) {
  GroupPlan plan;
  plan.products = scheme.products;
  std::vector<std::pair<int, int>> ranges;  // [begin, end) into products
  if (scheme.reconstruction == Reconstruction::fp32) {
    ranges.push_back({0, int(plan.products.size())});
  } else {
    const int cap = fuse_diagonals ? std::max(1, max_fused_products(kb)) : 1;
    int begin = 0;
    while (begin < int(plan.products.size())) {
      const int t = plan.products[begin].a + plan.products[begin].b;
      int end = begin;
      while (end < int(plan.products.size()) && end - begin < cap && plan.products[end].a + plan.products[end].b == t)
        ++end;
      ranges.push_back({begin, end});
      begin = end;
    }
  }
  for (auto [b, e] : ranges) {
    plan.groups.push_back({plan.products.data() + b, e - b});
    plan.diagonal.push_back(plan.products[b].a + plan.products[b].b);
  }
  return plan;
}

}  // namespace bf16x::split
