// Packing round trip: every packed slice sits where the layout says, padding is zero, and the slices of each
// element add back to the element (times its power-of-two scale) within the split's stated bound.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "check/inputs.hpp"
#include "pack/panels.hpp"
#include "split/bf16.hpp"

using namespace bf16x;
using namespace bf16x::pack;

namespace {

// Independent index arithmetic for the two layouts (see pack/layout.hpp).
std::int64_t a_index(const PackedPanels& p, std::int64_t i, std::int64_t l, int s) {
  const int bk = p.kblk.bk;
  const std::int64_t kb = l / bk, kp = p.kblk.padded(kb);
  const std::int64_t block = kb * bk * p.padded_extent * p.slices;
  return block + ((i / 32) * p.slices + s) * 32 * kp + (i % 32) * kp + (l % bk);
}
std::int64_t b_index(const PackedPanels& p, std::int64_t l, std::int64_t j, int s) {
  const int bk = p.kblk.bk;
  const std::int64_t kb = l / bk, kp = p.kblk.padded(kb), lk = l % bk;
  const std::int64_t block = kb * bk * p.padded_extent * p.slices;
  return block + ((j / 32) * p.slices + s) * 32 * kp + (lk / 2) * 64 + (j % 32) * 2 + (lk % 2);
}

template <typename T>
void round_trip(std::int64_t m, std::int64_t k, int bk, int slices, bool trans, check::Dist dist) {
  const auto x = check::make_input<T>(dist, trans ? k : m, trans ? m : k, 3, 0, 40);
  const MatrixView<T> view{x.data(), trans ? k : m, trans};
  for (int side = 0; side < 2; ++side) {  // side 0: as op(A) (m x k); side 1: its transpose as op(B) (k x m)
    PackedPanels p;
    init_panels(p, m, k, bk, slices);
    std::vector<bf16_t> buf(std::size_t(p.elems()), 0xffff);  // poison: padding must be overwritten with zeros
    p.data = buf.data();
    const MatrixView<T> bview{x.data(), trans ? k : m, !trans};  // (l, i) of op(B) = (i, l) of op(A)
    if (side == 0) {
      ASSERT_FALSE(scan_scales_a(view, m, k, true, p.scale_exp).nonfinite);
      pack_a(view, {slices, true}, p);
    } else {
      ASSERT_FALSE(scan_scales_b(bview, k, m, true, p.scale_exp).nonfinite);
      pack_b_vnni(bview, {slices, true}, p);
    }
    std::vector<char> seen(buf.size(), 0);
    for (std::int64_t i = 0; i < m; ++i) {
      double rowmax = 0;
      for (std::int64_t l = 0; l < k; ++l) rowmax = std::max(rowmax, std::fabs(double(view(i, l))));
      const int E = p.scale_exp[std::size_t(i)];
      for (std::int64_t l = 0; l < k; ++l) {
        double sum = 0;
        for (int s = 0; s < slices; ++s) {
          const std::int64_t idx = side == 0 ? a_index(p, i, l, s) : b_index(p, l, i, s);
          seen[std::size_t(idx)] = 1;
          sum += bf16_to_float(buf[std::size_t(idx)]);
        }
        const double xv = double(view(i, l)), back = std::ldexp(sum, E);
        // FP64: six slices reach the 2^(E-53) grid (error <= 2^(E-54)); FP32: three slices are exact unless a
        // slice falls below the BF16 normal range (2^-126 of the row scale).
        const double tol = sizeof(T) == 8 ? std::ldexp(1.0, E - 54) : std::ldexp(1.0, E - 126);
        ASSERT_LE(std::fabs(back - xv), tol) << "side " << side << " (" << i << "," << l << ") rowmax " << rowmax;
      }
    }
    for (std::size_t q = 0; q < buf.size(); ++q)
      if (!seen[q]) {
        ASSERT_EQ(buf[q], 0) << "padding at " << q << " not zero";
      }
  }
}

}  // namespace

TEST(Pack, Fp64RoundTripOddShapes) {
  for (auto [m, k] : {std::pair{1, 1}, {33, 257}, {65, 31}, {17, 300}})
    for (bool t : {false, true}) round_trip<double>(m, k, 256, 6, t, check::Dist::uniform);
}

TEST(Pack, Fp64RoundTripLogUniformAndShortBlocks) {
  round_trip<double>(40, 100, 64, 6, false, check::Dist::loguniform);
  round_trip<double>(40, 100, 32, 6, true, check::Dist::loguniform);
}

TEST(Pack, Fp32RoundTrip) {
  for (auto [m, k] : {std::pair{1, 1}, {33, 130}, {64, 64}})
    for (bool t : {false, true}) round_trip<float>(m, k, 64, 3, t, check::Dist::uniform);
  round_trip<float>(50, 70, 64, 3, false, check::Dist::loguniform);
}

// Enough k-blocks that a k-contiguous side (op(B) of an untransposed operand, op(A) of a transposed one) is packed in
// jobs of several blocks (up to 1 KiB of each line): whole groups, a rest of whole blocks, a partial last block.
TEST(Pack, RoundTripOverManyKBlocks) {
  for (bool t : {false, true}) {
    round_trip<float>(70, 64 * 9 + 17, 64, 3, t, check::Dist::uniform);
    round_trip<float>(33, 32 * 11, 32, 3, t, check::Dist::loguniform);
    round_trip<double>(40, 32 * 9 + 5, 32, 6, t, check::Dist::uniform);
  }
}
