// The bodies of driver/block_loops.hpp, included once by each variant's translation unit. Everything here has
// internal linkage, so each variant keeps its own code: the linker never merges a copy built for one ISA into
// another.
#pragma once
#include <cstdint>

#include "driver/block_loops.hpp"
#include "pack/layout.hpp"

namespace bf16x::driver {
namespace {

using pack::kTileM;
using pack::kTileN;

void add_tile_fp32_loop(float* dst, int ld, const float* part) {
  for (int r = 0; r < kTileM; ++r)
    for (int c = 0; c < kTileN; ++c) dst[std::int64_t(r) * ld + c] += part[r * kTileN + c];
}

void add_groups_fp64_loop(double* dst, int ld, const float* const* src, int n, bool first) {
  for (int r = 0; r < kTileM; ++r) {
    double row[kTileN];
    double* d = dst + std::int64_t(r) * ld;
    for (int c = 0; c < kTileN; ++c) row[c] = first ? 0.0 : d[c];
    for (int g = 0; g < n; ++g) {
      const float* s = src[g] + r * kTileN;
      for (int c = 0; c < kTileN; ++c) row[c] += double(s[c]);
    }
    for (int c = 0; c < kTileN; ++c) d[c] = row[c];
  }
}

template <typename T>
void write_column_loop(T* col, const T* acc, int ld, int rows, double alpha, double beta, const double* s) {
  if (beta == 0.0) {
    for (int r = 0; r < rows; ++r) col[r] = T((alpha * double(acc[std::int64_t(r) * ld])) * s[r]);
  } else {
    for (int r = 0; r < rows; ++r) {
      const double v = (alpha * double(acc[std::int64_t(r) * ld])) * s[r];
      const double w = beta * double(col[r]);
      col[r] = T(v + w);
    }
  }
}

constexpr BlockLoops make_block_loops() {
  return {add_tile_fp32_loop, add_groups_fp64_loop, write_column_loop<float>, write_column_loop<double>};
}

}  // namespace
}  // namespace bf16x::driver
