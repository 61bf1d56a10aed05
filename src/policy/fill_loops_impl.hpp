// The bodies of policy/fill_loops.hpp, included once by each variant's translation unit; internal linkage, so the
// linker never merges a copy built for one ISA into another.
#pragma once
#include <cstdint>
#include <type_traits>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "policy/fill_loops.hpp"

namespace bf16x::policy {
namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
using Keys = __m512i;
// The keys (bits 50..62 of each entry as FP64) of 16 entries in two vectors, as 16 int32: the high dwords.
inline Keys keys_of(__m512d a, __m512d b) {
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512i hi = _mm512_permutex2var_epi32(_mm512_castpd_si512(a), odd, _mm512_castpd_si512(b));
  return _mm512_srli_epi32(_mm512_slli_epi32(hi, 1), 19);
}
inline Keys keys_of(const double* x) { return keys_of(_mm512_loadu_pd(x), _mm512_loadu_pd(x + 8)); }
inline Keys keys_of(const float* x) {  // exact: every float is a double
  return keys_of(_mm512_cvtps_pd(_mm256_loadu_ps(x)), _mm512_cvtps_pd(_mm256_loadu_ps(x + 8)));
}
inline Keys load_keys(const int* p) { return _mm512_loadu_si512(p); }
inline Keys set_keys(int v) { return _mm512_set1_epi32(v); }
inline Keys lane_index() { return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
inline Keys bins_of(Keys key, Keys c) { return _mm512_max_epi32(_mm512_add_epi32(key, c), _mm512_setzero_si512()); }
inline Keys add(Keys a, Keys b) { return _mm512_add_epi32(a, b); }
inline Keys shift_left(Keys b, int s) { return _mm512_sll_epi32(b, _mm_cvtsi32_si128(s)); }
inline void store_keys(int* p, Keys v) { _mm512_storeu_si512(p, v); }
#elif defined(__AVX2__)
constexpr int kLanes = 8;
using Keys = __m256i;
// The keys of 8 entries in two vectors, as 8 int32: the high dwords of the FP64 patterns, in order.
inline Keys keys_of(__m256d a, __m256d b) {
  const __m256 odd = _mm256_shuffle_ps(_mm256_castpd_ps(a), _mm256_castpd_ps(b), _MM_SHUFFLE(3, 1, 3, 1));
  const __m256i words = _mm256_permute4x64_epi64(_mm256_castps_si256(odd), _MM_SHUFFLE(3, 1, 2, 0));
  return _mm256_srli_epi32(_mm256_slli_epi32(words, 1), 19);
}
inline Keys keys_of(const double* x) { return keys_of(_mm256_loadu_pd(x), _mm256_loadu_pd(x + 4)); }
inline Keys keys_of(const float* x) {  // exact: every float is a double
  return keys_of(_mm256_cvtps_pd(_mm_loadu_ps(x)), _mm256_cvtps_pd(_mm_loadu_ps(x + 4)));
}
inline Keys load_keys(const int* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline Keys set_keys(int v) { return _mm256_set1_epi32(v); }
inline Keys lane_index() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
inline Keys bins_of(Keys key, Keys c) { return _mm256_max_epi32(_mm256_add_epi32(key, c), _mm256_setzero_si256()); }
inline Keys add(Keys a, Keys b) { return _mm256_add_epi32(a, b); }
inline Keys shift_left(Keys b, int s) { return _mm256_sll_epi32(b, _mm_cvtsi32_si128(s)); }
inline void store_keys(int* p, Keys v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
#endif

#if defined(__AVX2__)
// Lane i of a vector at entry l (a multiple of kLanes) counts into copy (l + i) % kAlongCopies = i % kAlongCopies.
static_assert(kLanes % kAlongCopies == 0);
inline Keys copy_offsets(int bins) {
  alignas(64) int o[kLanes];
  for (int i = 0; i < kLanes; ++i) o[i] = (i % kAlongCopies) * bins;
  return load_keys(o);
}

// The increments of one vector of counter indices, read back from memory: one load each (extracting the lanes from
// the register instead, as the compiler would, takes two or three operations each).
inline void count(std::uint32_t* h, Keys v) {
  alignas(64) int idx[kLanes];
  store_keys(idx, v);
  asm volatile("" : : "r"(idx) : "memory");
  for (int i = 0; i < kLanes; ++i) ++h[idx[i]];
}
#endif

template <typename T>
void count_along_loop(const T* x, std::int64_t len, int c, int bins, std::uint32_t* h) {
  std::int64_t l = 0;
#if defined(__AVX2__)
  const Keys cv = set_keys(c), copies = copy_offsets(bins);
  for (; l + kLanes <= len; l += kLanes) count(h, add(bins_of(keys_of(x + l), cv), copies));
#endif
  for (; l < len; ++l) ++h[(l % kAlongCopies) * bins + fast_bin(double(x[l]), c)];
}

template <typename T>
void count_across_loop(const T* x, std::int64_t sl, int nr, std::int64_t len, const int* c, int shift,
                       std::uint32_t* h) {
  for (std::int64_t l = 0; l < len; ++l) {
    const T* col = x + l * sl;
    if (l + kAhead < len) prefetch_piece(col + kAhead * sl, nr);
    int r = 0;
#if defined(__AVX2__)
    for (; r + kLanes <= nr; r += kLanes)
      count(h, add(shift_left(bins_of(keys_of(col + r), load_keys(c + r)), shift), add(lane_index(), set_keys(r))));
#endif
    for (; r < nr; ++r) ++h[(fast_bin(double(col[r]), c[r]) << shift) + r];
  }
}

template <typename T>
int max_field_loop(const T* x, std::int64_t ld, std::int64_t inner, std::int64_t outer) {
  constexpr int kShift = sizeof(T) == 8 ? 32 : 0, kMant = sizeof(T) == 8 ? 20 : 23;
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  std::int32_t hi = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    const T* p = x + o * ld;
    for (std::int64_t l = 0; l < inner; ++l) {
      Bits b;
      std::memcpy(&b, p + l, sizeof b);
      const std::int32_t w = std::int32_t(std::uint32_t(b >> kShift) & 0x7fffffffu);
      hi = w > hi ? w : hi;
    }
  }
  return hi >> kMant;
}

double least_sum_loop(const double* va, const double* vb, std::int64_t m, std::int64_t n, std::int64_t nn,
                      std::int64_t k) {
  constexpr double kInf = __builtin_inf();
  double least = kInf;
  for (std::int64_t i = 0; i < m; ++i) {
    const double* v = va + i * k;
    for (std::int64_t j0 = 0; j0 < n; j0 += kLeastStrip) {
      alignas(64) double s[kLeastStrip] = {};
#if defined(__AVX512F__)
      __m512d acc = _mm512_setzero_pd();
      for (std::int64_t l = 0; l < k; ++l)
        acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_set1_pd(v[l]), _mm512_loadu_pd(vb + l * nn + j0)));
      _mm512_store_pd(s, acc);
#elif defined(__AVX2__)
      __m256d lo = _mm256_setzero_pd(), hi = lo;
      for (std::int64_t l = 0; l < k; ++l) {
        const __m256d w = _mm256_set1_pd(v[l]);
        lo = _mm256_add_pd(lo, _mm256_mul_pd(w, _mm256_loadu_pd(vb + l * nn + j0)));
        hi = _mm256_add_pd(hi, _mm256_mul_pd(w, _mm256_loadu_pd(vb + l * nn + j0 + 4)));
      }
      _mm256_store_pd(s, lo), _mm256_store_pd(s + 4, hi);
#else
      for (std::int64_t l = 0; l < k; ++l)
        for (std::int64_t q = 0; q < kLeastStrip; ++q) s[q] += v[l] * vb[l * nn + j0 + q];
#endif
      for (std::int64_t q = 0; q < kLeastStrip && q < n - j0; ++q)
        if (s[q] > 0 && s[q] < least) least = s[q];
    }
  }
  return least;
}

constexpr FillLoops make_fill_loops() {
  return {count_along_loop<float>,
          count_along_loop<double>,
          count_across_loop<float>,
          count_across_loop<double>,
          max_field_loop<float>,
          max_field_loop<double>,
          least_sum_loop};
}

}  // namespace
}  // namespace bf16x::policy
