// Vectors of doubles for the ISA variants' loops (*_isa.cpp: the correctly rounded tile sums, the CRT loops), one
// source for both widths: F64x4 (AVX2 + FMA) and F64x8 (AVX-512 F/DQ/BW), and F64x1 for the generic builds. Internal
// linkage: each variant's translation unit has its own, built with its flags, which the linker never merges.
#pragma once
#include <cstdint>
#include <cstring>
#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace bf16x::util {
namespace {

// One lane: the generic builds' form of the loops written over V (the operations they use).
struct F64x1 {
  using reg = double;
  static constexpr int kLanes = 1;
  static reg load(const double* p) { return *p; }
  static void store(double* p, reg x) { *p = x; }
  static reg set1(double x) { return x; }
  static reg zero() { return 0.0; }
  static reg add(reg a, reg b) { return a + b; }
  static reg sub(reg a, reg b) { return a - b; }
  static reg mul(reg a, reg b) { return a * b; }
  static reg from_i8(const std::int8_t* x) { return double(*x); }
  static reg abs(reg x) { return x < 0 ? -x : x; }
  static reg max(reg a, reg b) { return a > b ? a : b; }
  static reg max_magnitude(reg top, reg x) { return max(top, abs(x)); }  // top >= 0
  static double sum(reg x) { return x; }
  static double largest(reg x) { return x; }
};

#ifdef __AVX2__
struct F64x4 {
  using reg = __m256d;
  static constexpr int kLanes = 4;
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  static reg load(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }  // exact
  static void store(double* p, reg x) { _mm256_storeu_pd(p, x); }
  // The first n lanes (0 <= n <= 4) only, the others zero / untouched; nothing past them is read or written.
  static __m256i first(int n) { return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3)); }
  static reg load_first(const double* p, int n) { return _mm256_maskload_pd(p, first(n)); }
  static void store_first(double* p, reg x, int n) { _mm256_maskstore_pd(p, first(n), x); }
  // p[x stride] for the lanes x (of the first n)
  static __m256i strides(std::int64_t stride) { return _mm256_setr_epi64x(0, stride, 2 * stride, 3 * stride); }
  static reg gather(const double* p, std::int64_t stride) { return _mm256_i64gather_pd(p, strides(stride), 8); }
  static reg gather_first(const double* p, std::int64_t stride, int n) {
    return _mm256_mask_i64gather_pd(zero(), p, strides(stride), _mm256_castsi256_pd(first(n)), 8);
  }
  static reg set1(double x) { return _mm256_set1_pd(x); }
  static reg zero() { return _mm256_setzero_pd(); }
  static reg bcast(const double* p) { return _mm256_broadcast_sd(p); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
  static reg fmsub(reg a, reg b, reg c) { return _mm256_fmsub_pd(a, b, c); }
  static reg fnmadd(reg a, reg b, reg c) { return _mm256_fnmadd_pd(a, b, c); }
  static reg abs(reg x) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x); }
  static reg max(reg a, reg b) { return _mm256_max_pd(a, b); }
  static reg max_magnitude(reg top, reg x) { return _mm256_max_pd(top, abs(x)); }  // max(top, |x|), top >= 0
  // The lanes' sum (in pairs: the order of a tree) and their largest value.
  static double sum(reg x) {
    const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
  }
  static double largest(reg x) {
    const __m128d h = _mm_max_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
    return _mm_cvtsd_f64(_mm_max_sd(h, _mm_unpackhi_pd(h, h)));
  }
  // Lane i's comparison as bit i (false where either is NaN).
  static int lt(reg a, reg b) { return _mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_LT_OQ)); }
  static int le(reg a, reg b) { return _mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_LE_OQ)); }
  static int eq(reg a, reg b) { return _mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_EQ_OQ)); }
  static reg to_float(reg x) { return _mm256_cvtps_pd(_mm256_cvtpd_ps(x)); }  // each lane RN to FP32 (MXCSR)
  // Lane i: x where bit i of `bits` is set, else y.
  static reg select(int bits, reg x, reg y) {
    const __m256i lane = _mm256_setr_epi64x(1, 2, 4, 8);
    const __m256i on = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(bits), lane), lane);
    return _mm256_blendv_pd(y, x, _mm256_castsi256_pd(on));
  }
  // The power of two of each value's exponent (its sign and mantissa cleared).
  static reg power(reg x) { return _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff0000000000000ll))); }
  // 1 / p for each normal power of two p with 1 / p normal, exactly: its exponent field from 2046's.
  static reg inverse_power(reg p) {
    return _mm256_castsi256_pd(_mm256_sub_epi64(_mm256_set1_epi64x(2046ll << 52), _mm256_castpd_si256(p)));
  }
  // 2^e for integral e in [-1022, 1023]: e's bits in e + 1.5 2^52, moved into the exponent field
  static reg pow2i(reg e) {
    const __m256i v = _mm256_castpd_si256(_mm256_add_pd(e, _mm256_set1_pd(0x1.8p52)));
    const __m256i x = _mm256_sub_epi64(v, _mm256_set1_epi64x(0x4338000000000000ll - 1023));
    return _mm256_castsi256_pd(_mm256_slli_epi64(x, 52));
  }
  static reg min(reg a, reg b) { return _mm256_min_pd(a, b); }
  static reg bits_or(reg a, reg b) { return _mm256_or_pd(a, b); }
  static reg rint(reg x) { return _mm256_round_pd(x, _MM_FROUND_CUR_DIRECTION); }  // the current rounding mode
  static reg nearest(reg x) { return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static reg trunc(reg x) { return _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static reg ceil(reg x) { return _mm256_round_pd(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
  static reg floor(reg x) { return _mm256_round_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  // into_range(), operation for operation.
  static reg into_range(reg r, reg p, reg hi, reg lo) {
    r = _mm256_sub_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, hi, _CMP_GT_OQ), p));
    return _mm256_add_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, lo, _CMP_LT_OQ), p));
  }
  static reg from_i32(const std::int32_t* x) {
    return _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x)));
  }
  static reg from_i8(const std::int8_t* x) {
    std::int32_t w;
    std::memcpy(&w, x, sizeof w);
    return _mm256_cvtepi32_pd(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(w)));
  }
  static void store_i32(std::int32_t* p, reg x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvttpd_epi32(x));
  }
  // 16 integer values (four registers) as 16 bytes, saturated.
  static __m128i bytes16(const reg* q) {
    return _mm_packs_epi16(_mm_packs_epi32(_mm256_cvttpd_epi32(q[0]), _mm256_cvttpd_epi32(q[1])),
                           _mm_packs_epi32(_mm256_cvttpd_epi32(q[2]), _mm256_cvttpd_epi32(q[3])));
  }
};
#endif

#ifdef __AVX512F__
struct F64x8 {
  using reg = __m512d;
  static constexpr int kLanes = 8;
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static reg load(const float* p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }  // exact
  static void store(double* p, reg x) { _mm512_storeu_pd(p, x); }
  // The first n lanes (0 <= n <= 8) only, the others zero / untouched; nothing past them is read or written.
  static reg load_first(const double* p, int n) { return _mm512_maskz_loadu_pd(__mmask8((1u << n) - 1), p); }
  static void store_first(double* p, reg x, int n) { _mm512_mask_storeu_pd(p, __mmask8((1u << n) - 1), x); }
  // p[x stride] for the lanes x (of the first n)
  static __m512i strides(std::int64_t stride) {
    return _mm512_mullo_epi64(_mm512_set1_epi64(stride), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static reg gather(const double* p, std::int64_t stride) { return _mm512_i64gather_pd(strides(stride), p, 8); }
  static reg gather_first(const double* p, std::int64_t stride, int n) {
    return _mm512_mask_i64gather_pd(zero(), __mmask8((1u << n) - 1), strides(stride), p, 8);
  }
  static reg set1(double x) { return _mm512_set1_pd(x); }
  static reg zero() { return _mm512_setzero_pd(); }
  static reg bcast(const double* p) { return _mm512_set1_pd(*p); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
  static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
  static reg fmsub(reg a, reg b, reg c) { return _mm512_fmsub_pd(a, b, c); }
  static reg fnmadd(reg a, reg b, reg c) { return _mm512_fnmadd_pd(a, b, c); }
  static reg abs(reg x) { return _mm512_abs_pd(x); }
  // a > b ? a : b, as MAXPD; written as a compare and blend (GCC 12 warns on _mm512_max_pd's undefined source)
  static reg max(reg a, reg b) { return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_GT_OQ), b, a); }
  // max(top, |x|) for top >= 0 (and x not NaN): the larger bit pattern, one integer maximum
  static reg max_magnitude(reg top, reg x) {
    return _mm512_castsi512_pd(_mm512_max_epu64(_mm512_castpd_si512(top), _mm512_castpd_si512(abs(x))));
  }
  // The lanes' sum (in pairs: the order of a tree) and their largest value.
  static double sum(reg x) {
    const __m256d h = _mm256_add_pd(_mm512_castpd512_pd256(x), _mm512_extractf64x4_pd(x, 1));
    return F64x4::sum(h);
  }
  static double largest(reg x) {
    const __m256d h = _mm256_max_pd(_mm512_castpd512_pd256(x), _mm512_extractf64x4_pd(x, 1));
    return F64x4::largest(h);
  }
  static int lt(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
  static int le(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
  static int eq(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
  static reg to_float(reg x) { return _mm512_cvtps_pd(_mm512_cvtpd_ps(x)); }
  static reg select(int bits, reg x, reg y) { return _mm512_mask_blend_pd(__mmask8(bits), y, x); }
  static reg power(reg x) { return _mm512_and_pd(x, _mm512_castsi512_pd(_mm512_set1_epi64(0x7ff0000000000000ll))); }
  static reg inverse_power(reg p) {
    return _mm512_castsi512_pd(_mm512_sub_epi64(_mm512_set1_epi64(2046ll << 52), _mm512_castpd_si512(p)));
  }
  // 2^e for integral e in [-1022, 1023]: e's bits in e + 1.5 2^52, moved into the exponent field
  static reg pow2i(reg e) {
    const __m512i v = _mm512_castpd_si512(_mm512_add_pd(e, _mm512_set1_pd(0x1.8p52)));
    const __m512i x = _mm512_sub_epi64(v, _mm512_set1_epi64(0x4338000000000000ll - 1023));
    return _mm512_castsi512_pd(_mm512_slli_epi64(x, 52));
  }
  static reg min(reg a, reg b) { return _mm512_min_pd(a, b); }
  static reg bits_or(reg a, reg b) { return _mm512_or_pd(a, b); }
  static reg rint(reg x) { return _mm512_roundscale_pd(x, _MM_FROUND_CUR_DIRECTION); }
  static reg nearest(reg x) { return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static reg trunc(reg x) { return _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static reg ceil(reg x) { return _mm512_roundscale_pd(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
  static reg floor(reg x) { return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  // The masked subtraction and addition leave the other lanes as they are (V4's form adds +0 there, which only
  // turns a -0 into +0; every caller converts r to an integer or multiplies it into a sum that starts at +0, so the
  // results are the same bits).
  static reg into_range(reg r, reg p, reg hi, reg lo) {
    r = _mm512_mask_sub_pd(r, _mm512_cmp_pd_mask(r, hi, _CMP_GT_OQ), r, p);
    return _mm512_mask_add_pd(r, _mm512_cmp_pd_mask(r, lo, _CMP_LT_OQ), r, p);
  }
  static reg from_i32(const std::int32_t* x) {
    return _mm512_cvtepi32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)));
  }
  static reg from_i8(const std::int8_t* x) {
    return _mm512_cvtepi32_pd(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x))));
  }
  static void store_i32(std::int32_t* p, reg x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvttpd_epi32(x));
  }
  // 16 integer values (two registers) as 16 bytes, by one signed-saturating narrowing.
  static __m128i bytes16(const reg* q) {
    return _mm512_cvtsepi32_epi8(
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvttpd_epi32(q[0])), _mm512_cvttpd_epi32(q[1]), 1));
  }
};
#endif

}  // namespace
}  // namespace bf16x::util
