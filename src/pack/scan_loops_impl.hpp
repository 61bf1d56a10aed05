// The bodies of pack/scan_loops.hpp, included once by each variant's translation unit; internal linkage, so the
// linker never merges a copy built for one ISA into another.
#pragma once
#include <cstdint>
#include <cstring>

#include "pack/scan_loops.hpp"

namespace bf16x::pack {
namespace {

template <typename U, typename T>
U magnitude_bits(T x) {
  U u;
  std::memcpy(&u, &x, sizeof u);
  return u & (~U(0) >> 1);
}

template <typename U, typename T>
U line_max_loop(const T* x, std::int64_t len) {
  U m = 0;
  for (std::int64_t l = 0; l < len; ++l) {
    const U u = magnitude_bits<U>(x[l]);
    m = u > m ? u : m;
  }
  return m;
}

template <typename U, typename T>
void lane_max_loop(const T* x, std::int64_t len, U* m) {
  for (std::int64_t i = 0; i < len; ++i) {
    const U u = magnitude_bits<U>(x[i]);
    m[i] = u > m[i] ? u : m[i];
  }
}

constexpr ScanLoops make_scan_loops() {
  return {line_max_loop<std::uint32_t, float>, line_max_loop<std::uint64_t, double>,
          lane_max_loop<std::uint32_t, float>, lane_max_loop<std::uint64_t, double>};
}

}  // namespace
}  // namespace bf16x::pack
