// The AVX-512 and AVX2 packers against the element-by-element packer, bit for bit: both orientations of the source
// (k-contiguous, u-contiguous) into both layouts (A rows, VNNI B), float / double / bf16 operands, 1..6 slices,
// scaled and unscaled splits, partial panels and depths, and awkward values (signed zeros, FP32 subnormals,
// magnitudes near the overflow threshold, scale exponents at the ends of the range on the unscaled path).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pack/panel_job.hpp"
#include "split/slice_fp64.hpp"

using namespace bf16x;
using namespace bf16x::pack;

namespace {

template <typename T>
T draw(std::mt19937_64& rng, int kind) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (std::is_same_v<T, bf16_t>) {
    return bf16_t(rng());
  } else {
    switch (kind) {
      case 0:
        return T(u(rng));
      case 1:
        return T(u(rng) * std::exp2(std::round(u(rng) * 60)));
      case 2: {  // specials mixed in
        const int r = int(rng() % 8);
        if (r == 0) return T(-0.0);
        if (r == 1) return T(std::numeric_limits<T>::denorm_min() * double(rng() % 1000));
        if (r == 2) return T(std::numeric_limits<T>::max() * u(rng));
        if (r == 3) return T(std::numeric_limits<float>::min() * u(rng));
        if (r == 4)
          return T(u(rng) < 0 ? -std::numeric_limits<T>::max() : std::numeric_limits<T>::max());  // -> Inf, NaN slices
        return T(u(rng) * std::exp2(std::round(u(rng) * 20)));
      }
    }
    return T(0);
  }
}

template <typename T>
using Packer = void (*)(const PanelJob<T>&);

// kblocks > 1: a job over several k-blocks of padded depth block_kp (PanelJob::kblocks), the blocks' panels apart
// by more than their size, so that a write into the gap between them shows.
template <typename T>
void compare(Packer<T> vector, bool k_contiguous, PanelLayout layout, int panels, int extent, int depth, int slices,
             bool scaled, int kind, std::uint64_t seed, int below, int kblocks = 1, int block_kp = 0) {
  std::mt19937_64 rng(seed);
  const int kp = kblocks > 1 ? block_kp : int(round_up(depth, kKChunk));
  const std::int64_t block_elems = std::int64_t(kTileM) * kp * slices * panels;
  const std::int64_t block_stride = kblocks > 1 ? block_elems + 96 : 0;
  const auto in_gap = [&](std::size_t i) { return kblocks > 1 && std::int64_t(i) % block_stride >= block_elems; };
  const std::int64_t ld = (k_contiguous ? depth : extent) + 3;  // ld > the contiguous extent
  const std::int64_t outer = k_contiguous ? extent : depth;
  std::vector<T> src(std::size_t(ld * outer + 16));
  for (auto& x : src) x = draw<T>(rng, kind);
  // Scaled splits need |x| < 2^E over the row or column (what scan_scales gives; here up to 3 above it), the
  // unscaled path takes any exponent, including the ends of the range. `below` > 0: every third row's exponent up to
  // that much under its maximum's (a scale that does not bound the row: slices of more than 8 bits, which the
  // packer must round as the element path does).
  std::vector<int> exps(static_cast<std::size_t>(extent));
  for (int u = 0; u < extent; ++u) {
    double mx = 0;
    for (int l = 0; l < depth; ++l) {
      const T x = src[std::size_t(k_contiguous ? u * ld + l : l * ld + u)];
      if constexpr (!std::is_same_v<T, bf16_t>) mx = std::max(mx, std::fabs(double(x)));
    }
    int& E = exps[std::size_t(u)];
    if (scaled)
      E = split::scale_exponent(mx) + int(rng() % 4) - (below > 0 && u % 3 == 1 ? int(rng() % (below + 1)) : 0);
    else if constexpr (std::is_same_v<T, double>)
      E = kind == 2 && u % 5 == 0 ? int(rng() % 2090) - 1070 : int(rng() % 80) - 40;
    else
      E = kind == 2 && u % 5 == 0 ? int(rng() % 270) - 140 : int(rng() % 40) - 20;
  }
  const std::size_t total = std::size_t(kblocks > 1 ? block_stride * (kblocks - 1) + block_elems : block_elems);
  std::vector<bf16_t> want(total, 0xdead), got(want.size(), 0xbeef);
  PanelJob<T> job{src.data(),
                  k_contiguous ? ld : 1,
                  k_contiguous ? 1 : ld,
                  panels,
                  extent,
                  depth,
                  kp,
                  exps.data(),
                  scaled,
                  slices,
                  layout,
                  want.data()};
  job.kblocks = kblocks;
  job.block_stride = block_stride;
  split_panel_generic(job);
  job.dst = got.data();
  vector(job);
  for (std::size_t i = 0; i < want.size(); ++i)
    if (in_gap(i) ? want[i] != 0xdead || got[i] != 0xbeef : want[i] != got[i]) {
      FAIL() << "slice " << i / (std::size_t(kTileM) * kp) << " element " << i % (std::size_t(kTileM) * kp)
             << ": generic 0x" << std::hex << want[i] << " vector 0x" << got[i];
    }
  // Streaming stores (SplitOptions::stream) into a 64-byte-aligned destination, as the driver's workspace is.
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  const std::size_t bytes = (want.size() * sizeof(bf16_t) + 63) / 64 * 64;
  std::unique_ptr<bf16_t, Free> aligned(static_cast<bf16_t*>(std::aligned_alloc(64, bytes)));
  ASSERT_TRUE(aligned);
  std::memset(aligned.get(), 0xa5, bytes);
  job.dst = aligned.get();
  job.stream = true;
  vector(job);
  for (std::size_t i = 0; i < want.size(); ++i)
    if (in_gap(i) ? aligned.get()[i] != 0xa5a5 : want[i] != aligned.get()[i]) {
      FAIL() << "streaming stores: slice " << i / (std::size_t(kTileM) * kp) << " element "
             << i % (std::size_t(kTileM) * kp) << ": generic 0x" << std::hex << want[i] << " vector 0x"
             << aligned.get()[i];
    }
}

template <typename T>
void sweep(Packer<T> vector, int max_slices, int below = 0) {
  std::uint64_t seed = 1;
  for (bool kc : {true, false})
    for (PanelLayout lay : {PanelLayout::a_rows, PanelLayout::b_vnni})
      for (auto [panels, extent] :
           {std::pair{1, 1}, {1, 15}, {1, 16}, {1, 17}, {1, 31}, {1, 32}, {2, 33}, {3, 96}, {8, 255}})
        for (int depth : {1, 2, 15, 31, 32, 33, 63, 64, 100, 256})
          for (int kind : {0, 1, 2})
            for (bool scaled : {true, false}) {
              if (panels > 1 && (depth % 2 == 0 || kind == 1)) continue;  // runs: odd depths, two value kinds
              const int slices = std::is_same_v<T, bf16_t> ? 1 : 1 + int(seed % std::uint64_t(max_slices));
              SCOPED_TRACE(std::string(kc ? "k-contiguous" : "u-contiguous") +
                           (lay == PanelLayout::a_rows ? " -> A" : " -> B") + " panels " + std::to_string(panels) +
                           " extent " + std::to_string(extent) + " depth " + std::to_string(depth) + " kind " +
                           std::to_string(kind) + (scaled ? " scaled" : " unscaled") + " slices " +
                           std::to_string(slices));
              compare<T>(vector, kc, lay, panels, extent, depth, slices, scaled, kind, seed++, below);
              if (::testing::Test::HasFatalFailure()) return;
            }
  // Jobs over several k-blocks (pack_a / pack_b_vnni give them k-contiguous sources): whole blocks, the last one
  // whole or partial.
  for (bool kc : {true, false})
    for (PanelLayout lay : {PanelLayout::a_rows, PanelLayout::b_vnni})
      for (auto [panels, extent] : {std::pair{1, 17}, {1, 32}, {2, 40}})
        for (int block_kp : {32, 64})
          for (int kblocks : {2, 4})
            for (int last : {1, block_kp / 2 + 1, block_kp}) {
              const int depth = (kblocks - 1) * block_kp + last;
              const int slices = std::is_same_v<T, bf16_t> ? 1 : 1 + int(seed % std::uint64_t(max_slices));
              SCOPED_TRACE(std::string(kc ? "k-contiguous" : "u-contiguous") +
                           (lay == PanelLayout::a_rows ? " -> A" : " -> B") + " panels " + std::to_string(panels) +
                           " extent " + std::to_string(extent) + " k-blocks " + std::to_string(kblocks) + " of " +
                           std::to_string(block_kp) + " depth " + std::to_string(depth) + " slices " +
                           std::to_string(slices));
              compare<T>(vector, kc, lay, panels, extent, depth, slices, true, int(seed % 3), seed, below, kblocks,
                         block_kp);
              ++seed;
              if (::testing::Test::HasFatalFailure()) return;
            }
}

}  // namespace

TEST(Avx512Bf16Pack, VectorPackerEqualsElementPackerFp64) {
  if (!split_panel_avx512_usable()) GTEST_SKIP() << "no AVX-512 here";
  sweep<double>(split_panel_avx512<double>, kMaxSlices);
}

TEST(Avx512Bf16Pack, VectorPackerEqualsElementPackerFp32) {
  if (!split_panel_avx512_usable()) GTEST_SKIP() << "no AVX-512 here";
  sweep<float>(split_panel_avx512<float>, 3);
}

TEST(Avx512Bf16Pack, VectorPackerEqualsElementPackerBf16) {
  if (!split_panel_avx512_usable()) GTEST_SKIP() << "no AVX-512 here";
  sweep<bf16_t>(split_panel_avx512<bf16_t>, 1);
}

// The AVX2 packer (the scaled FP64 and FP32 paths; BF16 and the unscaled split fall through to the element packer
// inside it).
TEST(Avx2Pack, VectorPackerEqualsElementPackerFp64) {
  if (!split_panel_avx2_usable()) GTEST_SKIP() << "no AVX2 here";
  sweep<double>(split_panel_avx2<double>, kMaxSlices);
  sweep<double>(split_panel_avx2<double>, kMaxSlices, 12);
}

TEST(Avx2Pack, VectorPackerEqualsElementPackerFp32AndBf16) {
  if (!split_panel_avx2_usable()) GTEST_SKIP() << "no AVX2 here";
  sweep<float>(split_panel_avx2<float>, 3);
  sweep<bf16_t>(split_panel_avx2<bf16_t>, 1);
}
