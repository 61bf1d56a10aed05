// dpbf16_peak_loop: the VDPBF16PS throughput probe behind `bf16x bench --peak` and bench/bench_peak. Register
// operands only, `chains` independent accumulators, so the loop measures the instruction's issue rate (enough
// chains) or its latency (one chain) and nothing else.
#include <immintrin.h>

#include "engine/avx512bf16/kernel_avx512bf16.hpp"

namespace bf16x::engine::avx512bf16 {
namespace {

template <int N>
std::uint64_t loop(std::uint64_t iters) {
  __m512 acc[N];
  // Distinct starting values: the compiler cannot merge chains that start apart.
  for (int i = 0; i < N; ++i) acc[i] = _mm512_set1_ps(float(i));
  __m512i a = _mm512_set1_epi32(0x3f803f80), b = _mm512_set1_epi32(0x3c003c00);  // (1, 1) and (2^-7, 2^-7)
  for (std::uint64_t it = 0; it < iters; ++it) {
    __asm__ volatile("" : "+v"(a), "+v"(b));  // opaque operands: nothing is hoisted or folded
#pragma GCC unroll 24
    for (int i = 0; i < N; ++i)
      acc[i] = _mm512_dpbf16_ps(acc[i], reinterpret_cast<__m512bh>(a), reinterpret_cast<__m512bh>(b));
  }
  __m512 s = acc[0];
  for (int i = 1; i < N; ++i) s = _mm512_add_ps(s, acc[i]);
  alignas(64) float sink[16];
  _mm512_store_ps(sink, s);
  __asm__ volatile("" : : "r"(sink) : "memory");
  return iters * N;
}

}  // namespace

std::uint64_t dpbf16_peak_loop(std::uint64_t iters, int chains) {
  switch (chains) {
    case 1:
      return loop<1>(iters);
    case 2:
      return loop<2>(iters);
    case 4:
      return loop<4>(iters);
    case 6:
      return loop<6>(iters);
    case 8:
      return loop<8>(iters);
    case 12:
      return loop<12>(iters);
    case 16:
      return loop<16>(iters);
    default:
      return loop<24>(iters);
  }
}

}  // namespace bf16x::engine::avx512bf16
