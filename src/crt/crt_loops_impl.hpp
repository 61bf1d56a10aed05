// The bodies of crt/crt_loops.hpp, included once by each variant's translation unit; internal linkage, so the
// linker never merges a copy built for one ISA into another.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "crt/crt_loops.hpp"
#include "util/f64_vectors.hpp"
#if defined(__AVX512F__)
#include "pack/transpose_avx512.hpp"
#endif

namespace bf16x::crt {
namespace {

#if defined(__AVX512F__)
using VD = util::F64x8;  // the widest vector of doubles this variant has
#elif defined(__AVX2__)
using VD = util::F64x4;
#endif

// One scaled element as `kind` says (crt_loops.hpp); the vector forms below take the same operations in this order.
inline double scaled_one(double x, double f1, double f2, Scaled kind) {
  if (kind == Scaled::guard) return x == 0 ? 0.0 : std::max(1.0, std::ceil(((std::fabs(x) * f1) * f2) * kGuardDigit));
  return kind == Scaled::digits ? std::ceil(std::fabs(x * f1 * f2)) : std::trunc(x * f1 * f2);
}

#ifdef __AVX2__
// VD::kLanes scaled elements x[l] f1 f2 (each line's own f1 f2, or a line's each), as scaled_one forms them.
template <typename T>
inline VD::reg scaled(const T* x, VD::reg f1, VD::reg f2, Scaled kind) {
  const VD::reg v = VD::load(x);
  if (kind == Scaled::guard) {
    const VD::reg d =
        VD::max(VD::set1(1.0), VD::ceil(VD::mul(VD::mul(VD::mul(VD::abs(v), f1), f2), VD::set1(kGuardDigit))));
#ifdef __AVX512F__
    return _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(v, _mm512_setzero_pd(), _CMP_NEQ_UQ), d);
#else
    return _mm256_and_pd(_mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NEQ_UQ), d);
#endif
  }
  const VD::reg s = VD::mul(VD::mul(v, f1), f2);
  return kind == Scaled::digits ? VD::ceil(VD::abs(s)) : VD::trunc(s);
}
#endif

// The scaled elements of a line: explicitly in vectors where the variant has them (GCC's -O2 leaves loops that need a
// run-time alias check scalar): the same operations on each element.
template <typename T>
void load_scaled_loop(const T* x, int len, double f1, double f2, Scaled kind, double* out) {
  int l = 0;
#ifdef __AVX2__
  const VD::reg a = VD::set1(f1), b = VD::set1(f2);
  for (; l + VD::kLanes <= len; l += VD::kLanes) VD::store(out + l, scaled(x + l, a, b, kind));
#endif
  for (; l < len; ++l) out[l] = scaled_one(double(x[l]), f1, f2, kind);
}

template <typename T>
void load_across_column(const T* x, int rows, const double* f1, const double* f2, Scaled kind, double* out) {
  for (int r = 0; r < rows; ++r) out[r] = scaled_one(double(x[r]), f1[r], f2[r], kind);
}

#ifdef __AVX2__
// The VD::kLanes x VD::kLanes block v (v[q]: element q of each line) transposed in place (v[r]: line r).
#ifdef __AVX512F__
inline void transpose_lanes(__m512d* v) { pack::transpose8(v); }
#else
inline void transpose_lanes(__m256d* v) {
  const __m256d t0 = _mm256_unpacklo_pd(v[0], v[1]), t1 = _mm256_unpackhi_pd(v[0], v[1]);
  const __m256d t2 = _mm256_unpacklo_pd(v[2], v[3]), t3 = _mm256_unpackhi_pd(v[2], v[3]);
  v[0] = _mm256_permute2f128_pd(t0, t2, 0x20), v[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  v[2] = _mm256_permute2f128_pd(t0, t2, 0x31), v[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}
#endif
#endif

// yb[r kcp + l] = the scaled element (r, l) = x[r + l ld], r < rows, l < len: the lines run across memory, so
// VD::kLanes of them (eight with AVX-512, four with AVX2) are computed along the contiguous direction and transposed
// into yb in registers (through a small buffer without AVX2, and for the last few lines or elements).
template <typename T>
void load_across_loop(const T* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2, Scaled kind,
                      double* yb, int kcp) {
  int lb = 0;
#ifdef __AVX2__
  constexpr int kL = VD::kLanes;
  const int whole = rows / kL * kL;  // lines in whole groups of kL
  for (; lb + kL <= len; lb += kL) {
    for (int r0 = 0; r0 < whole; r0 += kL) {
      const VD::reg a = VD::load(f1 + r0), b = VD::load(f2 + r0);
      VD::reg v[kL];
      for (int q = 0; q < kL; ++q) v[q] = scaled(x + r0 + (lb + q) * ld, a, b, kind);
      transpose_lanes(v);
      for (int r = 0; r < kL; ++r) VD::store(yb + std::size_t(r0 + r) * kcp + lb, v[r]);
    }
    for (int q = 0; q < kL && whole < rows; ++q) {
      double t[kL] = {};
      load_across_column(x + whole + (lb + q) * ld, rows - whole, f1 + whole, f2 + whole, kind, t);
      for (int r = whole; r < rows; ++r) yb[std::size_t(r) * kcp + lb + q] = t[r - whole];
    }
  }
#endif
  double t8[8][32];
  for (; lb < len; lb += 8) {
    const int nl = std::min(8, len - lb);
    for (int r0 = 0; r0 < rows; r0 += 32) {  // 32 rows at a time through the buffer
      const int nr = std::min(32, rows - r0);
      for (int q = 0; q < nl; ++q) load_across_column(x + r0 + (lb + q) * ld, nr, f1 + r0, f2 + r0, kind, t8[q]);
      for (int r = 0; r < nr; ++r)
        for (int q = 0; q < nl; ++q) yb[std::size_t(r0 + r) * kcp + lb + q] = t8[q][r];
    }
  }
}

// r, congruent to its residue and within p of [lo, hi], moved into [lo, hi]: 0 or p subtracted or added (no
// branch, so the loops vectorise).
inline double into_range(double r, double p, double hi, double lo) {
  r -= r > hi ? p : 0.0;
  r += r < lo ? p : 0.0;
  return r;
}

// r - q p with q = rint(r / p) (approximately) is exact: its true value is an integer below 2^53 in magnitude.
// One step leaves |r| < 1.5 p for |r| < 2^51 p; `big` adds a first step for |r| up to 2^100.
inline double residue(double y, double p, double invp, double hi, double lo, bool big) {
  double r = y;
  if (big) r = std::fma(-std::rint(r * invp), p, r);
  r = std::fma(-std::rint(r * invp), p, r);
  return into_range(r, p, hi, lo);
}

// The element path's steps for |y| < 2^bits.
inline bool two_steps(int bits) { return bits > 50; }

void residues_loop(const double* y, int len, double p, double invp, double hi, double lo, int bits, std::int8_t* out) {
  for (int l = 0; l < len; ++l) out[l] = std::int8_t(int(residue(y[l], p, invp, hi, lo, two_steps(bits))));
}

// The vector paths of line_residues form the same symmetric residues of |y| < 2^bits with fewer operations:
//   direct (bits <= 51): for odd p, q = round(y / p) is exact: y / p is never a half-integer, so it lies at least
//     1/(2p) from one, and the two roundings of y fl(1/p) move it by less (2^-52 |y| / p); y - q p is then the
//     symmetric residue itself, no correction. p = 256: q = floor((y + 128) / 256), every step exact.
//   split (bits <= 75): y = yh 2^32 + yl (yh = round(y 2^-32), |yl| <= 2^31, both exact), and r = yh (2^32 mod p) + yl
//     is congruent to y and below 2^50 in magnitude (|yh| <= 2^43, |2^32 mod p| <= 127): then direct on r.
//   else: residue()'s two steps and into_range().
// Both round with explicit directions, so MXCSR's rounding mode does not matter.
enum class ResidueWay { direct, split, two_steps };
inline ResidueWay residue_way(int bits) {
  return bits <= 51 ? ResidueWay::direct : bits <= 75 ? ResidueWay::split : ResidueWay::two_steps;
}
#ifdef __AVX2__
// The vectors of the loops below (util/f64_vectors.hpp): each lane takes the operations of the scalar loops, in
// their order.
using V4 = util::F64x4;
#endif
#ifdef __AVX512F__
using V8 = util::F64x8;
#endif

#ifdef __AVX2__
// 16 residues modulo one p from 16 / kLanes vectors of y, as 16 bytes; the same operations as residue() (rint: the
// current rounding mode).
template <typename V>
__m128i residues16(const typename V::reg* y, typename V::reg p, typename V::reg invp, typename V::reg hi,
                   typename V::reg lo, bool big) {
  typename V::reg q[16 / V::kLanes];
  for (int v = 0; v < 16 / V::kLanes; ++v) {
    typename V::reg r = y[v];
    if (big) r = V::fnmadd(V::rint(V::mul(r, invp)), p, r);
    r = V::fnmadd(V::rint(V::mul(r, invp)), p, r);
    q[v] = V::into_range(r, p, hi, lo);
  }
  return V::bytes16(q);
}

// The direct way on values below 2^51 (residue_way): the symmetric residue modulo p (p256: p is 256).
template <typename V>
typename V::reg exact_residue(typename V::reg r, typename V::reg p, typename V::reg invp, bool p256) {
  const typename V::reg q =
      p256 ? V::floor(V::mul(V::add(r, V::set1(128)), V::set1(0x1p-8))) : V::nearest(V::mul(r, invp));
  return V::fnmadd(q, p, r);
}

// line_residues() on vectors: 16 values of y at a time.
template <typename V>
void line_residues_vec(const double* y, int len, const CrtPlan& plan, int bits, std::int8_t* out, std::size_t stride) {
  using R = typename V::reg;
  constexpr int n = 16 / V::kLanes;
  const ResidueWay way = residue_way(bits);
  const R two32 = V::set1(0x1p32), inv_two32 = V::set1(0x1p-32);
  for (int l = 0; l < len; l += 16) {
    R yv[n];
    for (int v = 0; v < n; ++v) yv[v] = V::load(y + l + v * V::kLanes);
    std::int8_t* o = out + l;
    if (way == ResidueWay::two_steps) {
      for (int t = 0; t < plan.n; ++t)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o + std::size_t(t) * stride),
                         residues16<V>(yv, V::set1(plan.p[t]), V::set1(plan.invp[t]), V::set1(plan.hi[t]),
                                       V::set1(plan.lo[t]), true));
      continue;
    }
    R yh[n] = {}, yl[n] = {};
    for (int v = 0; v < n && way == ResidueWay::split; ++v) {
      yh[v] = V::nearest(V::mul(yv[v], inv_two32));
      yl[v] = V::fnmadd(yh[v], two32, yv[v]);
    }
    for (int t = 0; t < plan.n; ++t) {
      const R p = V::set1(plan.p[t]), invp = V::set1(plan.invp[t]), w = V::set1(plan.two32[t]);
      R q[n];
      for (int v = 0; v < n; ++v)
        q[v] =
            exact_residue<V>(way == ResidueWay::split ? V::fmadd(yh[v], w, yl[v]) : yv[v], p, invp, plan.p[t] == 256);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + std::size_t(t) * stride), V::bytes16(q));
    }
  }
}
#endif

#ifdef __AVX512VNNI__
// The digit way (|y| < 2^62, where VNNI runs): y as an int64 in balanced base-256 digits, d_i = byte i of
// y + 0x8080...80 with its top bit flipped, in [-128, 127]: eight such digits represent every integer from about
// -1.004 2^63 to 0.996 2^63 exactly once, so for |y| < 2^62 they are y's own, y = sum_i d_i 2^(8i). Modulo an odd p, a
// = sum_i d_i w_i with w_i = 2^(8i) mod p in [0, p) (CrtPlan:: byte_weights) is congruent to y and |a| <= 8 * 128 * 254
// < 2^18: two VPDPBUSD per 16 values, the weights as the unsigned bytes. FP32 holds a exactly; q = nearest(a fl(1/p))
// is round(a / p), since a / p is never a half-integer (it lies at least 1/(2p) from one) and the two roundings move it
// by at most 2^-23 |a| / p < 2^-5 / p; a - q p (one FMA, exact) is then the symmetric residue. p = 256: d_0 itself, in
// [-128, 127]. Per modulus and 16 residues about eight operations against the split way's twelve, in 16 lanes.
struct Digits16 {
  __m512i lo, hi;  // digits 0-3 and 4-7 of 16 values, one value per 32-bit lane
};
inline Digits16 digits16(const double* y) {
  const __m512i bias = _mm512_set1_epi64(std::int64_t(0x8080808080808080ull));
  const __m512i flip = _mm512_set1_epi8(std::int8_t(0x80));
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512i u0 = _mm512_xor_si512(_mm512_add_epi64(_mm512_cvttpd_epi64(_mm512_loadu_pd(y)), bias), flip);
  const __m512i u1 = _mm512_xor_si512(_mm512_add_epi64(_mm512_cvttpd_epi64(_mm512_loadu_pd(y + 8)), bias), flip);
  return {_mm512_permutex2var_epi32(u0, even, u1), _mm512_permutex2var_epi32(u0, odd, u1)};
}

// The end of both integer ways below: a (|a| < 2^18, congruent to the value x) to the symmetric residue modulo p_t, as
// int32, by the FP32 quotient; p = 256: x's low byte, sign-extended.
struct NearestResidue {
  __m512 p, invp;
  bool p256;
  NearestResidue(const CrtPlan& plan, int t)
      : p(_mm512_set1_ps(plan.pf[t])), invp(_mm512_set1_ps(plan.invpf[t])), p256(plan.p[t] == 256) {}
  __m512i operator()(__m512i a) const {
    const __m512 f = _mm512_cvtepi32_ps(a);
    const __m512 q = _mm512_roundscale_ps(_mm512_mul_ps(f, invp), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm512_cvttps_epi32(_mm512_fnmadd_ps(q, p, f));
  }
  static __m512i low_byte(__m512i x) { return _mm512_srai_epi32(_mm512_slli_epi32(x, 24), 24); }
};

// The 16 residues modulo p_t (t of the plan) of a Digits16, as int32.
struct DigitWay {
  __m512i wlo, whi;
  NearestResidue end;
  DigitWay(const CrtPlan& plan, int t)
      : wlo(_mm512_set1_epi32(std::int32_t(plan.byte_weights[t][0]))),
        whi(_mm512_set1_epi32(std::int32_t(plan.byte_weights[t][1]))),
        end(plan, t) {}
  __m512i operator()(const Digits16& d) const {
    if (end.p256) return NearestResidue::low_byte(d.lo);
    return end(_mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), wlo, d.lo), whi, d.hi));
  }
};

// The symmetric residues of 16 int32 values by the same kind of sum: x = b_0 + b_1 2^8 + b_2 2^16 + (b'_3 - 128) 2^24,
// b_i its bytes and b'_3 the top one with its top bit flipped, all unsigned; modulo an odd p, a = sum_i b'_i v_i -
// 128 v_3 (v_i = 2^(8i) mod p, symmetric: |v_i| <= 127) is one VPDPBUSD from the constant -128 v_3, |a| <= 4 * 255 *
// 127 + 128 * 127 < 2^18, and NearestResidue ends it.
struct WordWay {
  __m512i v, start;
  NearestResidue end;
  WordWay(const CrtPlan& plan, int t) : end(plan, t) {
    std::uint32_t bytes = 0;
    int vi = 0;  // v_i, and after the loop v_3
    for (int i = 0; i < 4; ++i) {
      const int w = int(plan.byte_weights[t][0] >> (8 * i) & 0xff);
      vi = w > int(plan.hi[t]) ? w - int(plan.p[t]) : w;
      bytes |= std::uint32_t(std::uint8_t(vi)) << (8 * i);
    }
    v = _mm512_set1_epi32(std::int32_t(bytes));
    start = _mm512_set1_epi32(-128 * vi);
  }
  __m512i operator()(const std::int32_t* x) const { return (*this)(_mm512_loadu_si512(x)); }
  __m512i operator()(__m512i w) const {
    if (end.p256) return NearestResidue::low_byte(w);
    return end(_mm512_dpbusd_epi32(start, _mm512_xor_si512(w, _mm512_set1_epi32(std::int32_t(0x80000000u))), v));
  }
};

// Four vectors of 16 int32 within [-128, 127] as their 64 bytes in order: two saturating packs, which keep the
// values, and one permutation that undoes their lane interleaving.
inline __m512i bytes64(__m512i a, __m512i b, __m512i c, __m512i d) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, _mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d)));
}

// line_residues() by the digit way: 64 values at a time into whole 64-byte pieces, the rest 16 at a time.
void line_residues_digits(const double* y, int len, const CrtPlan& plan, std::int8_t* out, std::size_t stride) {
  int l = 0;
  for (; l + 64 <= len; l += 64) {
    const Digits16 d[4] = {digits16(y + l), digits16(y + l + 16), digits16(y + l + 32), digits16(y + l + 48)};
    for (int t = 0; t < plan.n; ++t) {
      const DigitWay way(plan, t);
      _mm512_storeu_si512(out + std::size_t(t) * stride + l, bytes64(way(d[0]), way(d[1]), way(d[2]), way(d[3])));
    }
  }
  for (; l < len; l += 16) {
    const Digits16 d = digits16(y + l);
    for (int t = 0; t < plan.n; ++t)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + std::size_t(t) * stride + l),
                       _mm512_cvtepi32_epi8(DigitWay(plan, t)(d)));
  }
}
#endif

// out[t * stride + l] = y[l] modulo p_t for every modulus of the plan (one pass over y, |y| < 2^bits), or the values
// themselves (the digits, at out) when plan is null. len: a multiple of 16.
void line_residues(const double* y, int len, const CrtPlan* plan, int bits, std::int8_t* out, std::size_t stride) {
  if (!plan) {
    for (int l = 0; l < len; ++l) out[l] = std::int8_t(int(y[l]));
    return;
  }
#if defined(__AVX512VNNI__)
  if (bits <= 62) return line_residues_digits(y, len, *plan, out, stride);
#endif
#if defined(__AVX512F__)
  line_residues_vec<V8>(y, len, *plan, bits, out, stride);
#elif defined(__AVX2__)
  line_residues_vec<V4>(y, len, *plan, bits, out, stride);
#else
  for (int t = 0; t < plan->n; ++t)
    residues_loop(y, len, plan->p[t], plan->invp[t], plan->hi[t], plan->lo[t], bits, out + std::size_t(t) * stride);
#endif
}

// A 64-byte piece of a panel (64-byte aligned source): streaming stores where asked and the destination is a whole
// line, else a copy.
#if defined(__AVX512F__)
inline void put_line(std::int8_t* dst, __m512i v, bool stream) {
  if (stream && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), v);
  else
    _mm512_storeu_si512(dst, v);
}
inline void put_line(std::int8_t* dst, const std::int8_t* src, bool stream) {
  put_line(dst, _mm512_load_si512(src), stream);
}
#elif defined(__AVX2__)
inline void put_line(std::int8_t* dst, const std::int8_t* src, bool stream) {
  const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(src));
  const __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(src + 32));
  if (stream && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), lo);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 32), hi);
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32), hi);
  }
}
#else
inline void put_line(std::int8_t* dst, const std::int8_t* src, bool) { std::memcpy(dst, src, 64); }
#endif

// The sum of 64 int8 values (64-byte aligned).
inline std::int32_t sum64(const std::int8_t* x) {
#if defined(__AVX512BW__)
  // Biased to unsigned bytes, summed eight at a time against zero, the bias taken back.
  const __m512i u = _mm512_xor_si512(_mm512_load_si512(x), _mm512_set1_epi8(-128));
  return std::int32_t(_mm512_reduce_add_epi64(_mm512_sad_epu8(u, _mm512_setzero_si512()))) - 64 * 128;
#elif defined(__AVX2__)
  const __m256i bias = _mm256_set1_epi8(-128), zero = _mm256_setzero_si256();
  const __m256i lo = _mm256_xor_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(x)), bias);
  const __m256i hi = _mm256_xor_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(x + 32)), bias);
  const __m256i s4 = _mm256_add_epi64(_mm256_sad_epu8(lo, zero), _mm256_sad_epu8(hi, zero));
  const __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(s4), _mm256_extracti128_si256(s4, 1));
  return std::int32_t(_mm_cvtsi128_si64(_mm_add_epi64(s2, _mm_unpackhi_epi64(s2, s2)))) - 64 * 128;
#else
  std::int32_t s = 0;
  for (int l = 0; l < 64; ++l) s += x[l];
  return s;
#endif
}

// The residues (or digits) of the k of one 64-k chunk that hold live values, `live` of them (a multiple of 16),
// into res (modulus t at res + t * 64), the chunk's other bytes zero.
inline void chunk_residues(const double* y, int live, const CrtPlan* plan, int bits, std::int8_t* res) {
  if (live < 64) std::memset(res, 0, std::size_t(plan ? plan->n : 1) * 64);  // one fill, not one per modulus
  if (live > 0) line_residues(y, live, plan, bits, res, 64);
}

// The live k of the chunk at l0 of a line whose values end at len (yb zero from there), rounded up to 16.
inline int live_k(int len, int l0) { return std::clamp((len - l0 + 15) / 16 * 16, 0, 64); }

// Row by row, 64 k at a time: each modulus's 64 residues in L1 first, then one whole line of its panel (the panel
// of one modulus holds the chunk's rows at 64-byte steps), the row sums from the same lines. pad: the rows past
// `lines` zero; else not written, row sums included. Residues only of the k below len (rounded up to 16). carry:
// the row sums added into carry[t * 32 + r] instead of written after the kcp of the panel (a panel packed a few
// chunks at a time).
void pack_a_loop(const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits, std::int8_t* panel,
                 std::size_t stride, bool stream, bool pad, std::int32_t* carry) {
  const int moduli = plan ? plan->n : 1;
  alignas(64) std::int8_t res[kMaxModuli * 64];
  for (int r = 0; r < (pad ? 32 : lines); ++r) {
    std::int32_t sums[kMaxModuli] = {};
    if (r >= lines) std::memset(res, 0, sizeof res);  // padding: zero residues, zero sum
    for (int ch = 0; ch < kcp / 64; ++ch) {
      if (r < lines) chunk_residues(yb + std::size_t(r) * kcp + ch * 64, live_k(len, ch * 64), plan, bits, res);
      for (int t = 0; t < moduli; ++t) {
        put_line(panel + std::size_t(t) * stride + std::size_t(ch) * 2048 + r * 64, res + t * 64, stream);
        sums[t] += sum64(res + t * 64);
      }
    }
    for (int t = 0; t < moduli; ++t)
      if (carry)
        carry[t * 32 + r] += sums[t];
      else
        reinterpret_cast<std::int32_t*>(panel + std::size_t(t) * stride + std::size_t(kcp) * 32)[r] = sums[t];
  }
}

// k-chunk by k-chunk: the residues of all 32 columns in L1, then each modulus's 16 pair rows of 128 bytes (4 bytes
// of k per column), from a 16 x 16 transpose of 4-byte groups per 16 columns where the CPU has AVX-512. pad: the
// columns past `lines` zero; else the columns past `lines` may be left unwritten (AVX-512: the halves of 16 columns
// without live ones; else all). Residues only of the k below len (rounded up to 16); with AVX-512 the quads past
// them zero, else (not pad) not written.
void pack_b_loop(const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits, std::int8_t* panel,
                 std::size_t stride, bool stream, bool pad) {
  const int moduli = plan ? plan->n : 1;
#if defined(__AVX512F__)
  const int ncols = pad ? 32 : std::min(32, (lines + 15) / 16 * 16);  // whole halves for the transposes
#else
  const int ncols = pad ? 32 : lines;
#endif
  alignas(64) std::int8_t res[32][kMaxModuli * 64];
  for (int l0 = 0; l0 < kcp; l0 += 64) {
    const int live = live_k(len, l0);
    for (int c = 0; c < ncols; ++c) {
      if (c < lines)
        chunk_residues(yb + std::size_t(c) * kcp + l0, live, plan, bits, res[c]);
      else
        std::memset(res[c], 0, std::size_t(moduli) * 64);  // padding
    }
    for (int t = 0; t < moduli; ++t) {
      std::int8_t* out = panel + std::size_t(t) * stride + std::size_t(l0 / 4) * 128;
#if defined(__AVX512F__)
      for (int h = 0; h < ncols / 16; ++h) {
        __m512i g[16];  // g[c]: column 16h + c's 16 groups of 4 k -> after the transpose g[q]: group q of 16 columns
        for (int c = 0; c < 16; ++c) g[c] = _mm512_load_si512(res[16 * h + c] + t * 64);
        pack::transpose16(g);
        for (int q = 0; q < 16; ++q) put_line(out + q * 128 + h * 64, g[q], stream);
      }
#else
      (void)stream;
      // pad: every quad (live is 64). Else the quads past the live k are left as they are: the A panels are zero
      // there, so no kernel's live entries depend on them (engine/int8_kernel.hpp).
      if (ncols == 32 && live == 64) {  // whole chunks: constant bounds (the compiler unrolls these copies)
        for (int q = 0; q < 16; ++q)
          for (int c = 0; c < 32; ++c) std::memcpy(out + q * 128 + c * 4, res[c] + t * 64 + 4 * q, 4);
      } else {
        for (int q = 0; q < live / 4; ++q)
          for (int c = 0; c < ncols; ++c) std::memcpy(out + q * 128 + c * 4, res[c] + t * 64 + 4 * q, 4);
      }
#endif
    }
  }
}

// The symmetric residue of an integer-valued r (|r| < 2^32) modulo p: |q p| < 2^32, so r - q p is exact.
inline double reduce(double r, double p, double invp, double hi, double lo) {
  return into_range(r - std::rint(r * invp) * p, p, hi, lo);
}

#ifdef __AVX2__
// reduce() on V::kLanes values below 2^31 in magnitude, by the direct way (exact_residue): the same symmetric residue.
template <typename V>
struct Reduce {
  typename V::reg p, invp;
  bool p256;
  Reduce(const CrtPlan& plan, int t) : p(V::set1(plan.p[t])), invp(V::set1(plan.invp[t])), p256(plan.p[t] == 256) {}
  typename V::reg operator()(const std::int32_t* x) const { return exact_residue<V>(V::from_i32(x), p, invp, p256); }
};
#endif

void reduce_mod_loop(std::int32_t* acc, std::size_t count, const CrtPlan& plan, int t) {
  std::size_t e = 0;
#ifdef __AVX512VNNI__
  const WordWay way(plan, t);
  for (; e + 16 <= count; e += 16) _mm512_storeu_si512(acc + e, way(acc + e));
  if (e < count) {  // the last few in one masked vector
    const __mmask16 live = __mmask16((1u << (count - e)) - 1);
    _mm512_mask_storeu_epi32(acc + e, live, way(_mm512_maskz_loadu_epi32(live, acc + e)));
    e = count;
  }
#endif
#ifdef __AVX512F__
  const Reduce<V8> red8(plan, t);
  for (; e + 8 <= count; e += 8) V8::store_i32(acc + e, red8(acc + e));
#endif
#ifdef __AVX2__
  const Reduce<V4> red(plan, t);
  for (; e + 4 <= count; e += 4) V4::store_i32(acc + e, red(acc + e));
#endif
  for (; e < count; ++e) acc[e] = std::int32_t(reduce(double(acc[e]), plan.p[t], plan.invp[t], plan.hi[t], plan.lo[t]));
}

void residue_rows_loop(const std::int32_t* acc, std::size_t ld, int rows, int cols, const CrtPlan& plan, int t,
                       std::int8_t* out, std::size_t ld_out) {
#ifdef __AVX512VNNI__
  const WordWay way(plan, t);
#endif
  for (int i = 0; i < rows; ++i) {
    const std::int32_t* a = acc + ld * std::size_t(i);
    std::int8_t* o = out + ld_out * std::size_t(i);
    int j = 0;
    // Each group's int32 are read before its bytes are written: in place (out == acc as bytes) they land on or
    // before what was read.
#ifdef __AVX512VNNI__
    // 32 at a time (a tile's row: the low half of bytes64), then 16 at a time
    for (; j + 32 <= cols; j += 32) {
      const __m512i lo = way(a + j), hi = way(a + j + 16);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + j), _mm512_castsi512_si256(bytes64(lo, hi, lo, hi)));
    }
    for (; j + 16 <= cols; j += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + j), _mm512_cvtepi32_epi8(way(a + j)));
    if (j < cols) {  // the last few in one masked vector, read before written as the others
      const __mmask16 live = __mmask16((1u << (cols - j)) - 1);
      _mm512_mask_cvtepi32_storeu_epi8(o + j, live, way(_mm512_maskz_loadu_epi32(live, a + j)));
      j = cols;
    }
#endif
#ifdef __AVX512F__
    const Reduce<V8> red8(plan, t);
    for (; j + 16 <= cols; j += 16) {
      const V8::reg q[2] = {red8(a + j), red8(a + j + 8)};
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + j), V8::bytes16(q));
    }
#endif
#ifdef __AVX2__
    const Reduce<V4> red(plan, t);
    for (; j + 8 <= cols; j += 8) {
      const __m128i q = _mm_packs_epi32(_mm256_cvttpd_epi32(red(a + j)), _mm256_cvttpd_epi32(red(a + j + 4)));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + j), _mm_packs_epi16(q, q));
    }
#endif
    for (; j < cols; ++j) o[j] = std::int8_t(reduce(double(a[j]), plan.p[t], plan.invp[t], plan.hi[t], plan.lo[t]));
  }
}

// Columns j.. of a row, G groups of V::kLanes at a time while they fill, each group's CRT by crt(load, store) (load(t,
// g): group g's residues modulo p_t; store(g, x): its result). Returns the first column left.
template <typename V, int G, typename Crt>
int crt_columns(const std::int8_t* res, std::size_t stride, int j, int cols, double* out, Crt&& crt) {
  for (; j + G * V::kLanes <= cols; j += G * V::kLanes)
    crt([&](int t, int g) { return V::from_i8(res + stride * std::size_t(t) + j + g * V::kLanes); },
        [&](int g, typename V::reg x) { V::store(out + j + g * V::kLanes, x); });
  return j;
}

#ifdef __AVX2__
// The CRT of G vectors of V::kLanes columns of a row: G independent pairs of sums, so that the adds of the moduli
// overlap instead of waiting on one another; each column's operations and their order are those of
// reconstruct_row_loop's scalar loops. load(t, g): vector g's residues modulo p_t; store(g, x): its result.
template <typename V, int G, typename Load, typename Store>
void reconstruct_group(const CrtPlan& plan, Load&& load, Store&& store) {
  using R = typename V::reg;
  R v1[G], v2[G];
  for (int g = 0; g < G; ++g) v1[g] = v2[g] = V::zero();
  for (int t = 0; t < plan.n; ++t) {
    const R q1 = V::set1(plan.q1[t]), q2 = V::set1(plan.q2[t]);
    for (int g = 0; g < G; ++g) {
      const R r = load(t, g);
      v1[g] = V::fmadd(r, q1, v1[g]);  // r q1 and the sum are exact (moduli.hpp): the scalar loop's bits
      v2[g] = V::add(v2[g], V::mul(r, q2));
    }
  }
  for (int g = 0; g < G; ++g) {
    const R K = V::rint(V::mul(V::add(v1[g], v2[g]), V::set1(plan.invP)));
    const R hi = V::fnmadd(K, V::set1(plan.P1), v1[g]);  // exact, as the scalar loop's K P1 and difference
    const R lo = V::sub(v2[g], V::mul(K, V::set1(plan.P2)));
    store(g, V::add(hi, lo));
  }
}

// The CRT of columns j0.. of a row, G vectors at a time while they fill. Returns the first column left.
template <typename V, int G>
int reconstruct_columns(const std::int8_t* res, std::size_t stride, int j0, int cols, const CrtPlan& plan,
                        double* out) {
  return crt_columns<V, G>(res, stride, j0, cols, out,
                           [&](auto&& load, auto&& store) { reconstruct_group<V, G>(plan, load, store); });
}
#endif

void reconstruct_row_loop(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* s1,
                          double* s2, double* out) {
  const double P1 = plan.P1, P2 = plan.P2, invP = plan.invP;
  int j0 = 0;
#ifdef __AVX512F__
  j0 = reconstruct_columns<V8, 4>(res, stride, j0, cols, plan, out);
  j0 = reconstruct_columns<V8, 1>(res, stride, j0, cols, plan, out);
  if (j0 < cols) {  // the last few columns in one masked vector (a tiny call's whole row)
    const __mmask8 live = __mmask8((1u << (cols - j0)) - 1);
    reconstruct_group<V8, 1>(
        plan,
        [&](int t, int) {
          return _mm512_cvtepi32_pd(
              _mm256_cvtepi8_epi32(_mm_maskz_loadu_epi8(live, res + stride * std::size_t(t) + j0)));
        },
        [&](int, __m512d x) { _mm512_mask_storeu_pd(out + j0, live, x); });
    j0 = cols;
  }
#endif
#ifdef __AVX2__
  j0 = reconstruct_columns<V4, 4>(res, stride, j0, cols, plan, out);
  j0 = reconstruct_columns<V4, 1>(res, stride, j0, cols, plan, out);
#endif
  for (int j = j0; j < cols; ++j) s1[j] = s2[j] = 0;
  for (int t = 0; t < plan.n; ++t) {
    const std::int8_t* a = res + stride * std::size_t(t);
    const double q1 = plan.q1[t], q2 = plan.q2[t];
    for (int j = j0; j < cols; ++j) {
      const double r = a[j];
      s1[j] += r * q1;  // exact: multiples of 2^g below 2^53 2^g
      s2[j] += r * q2;
    }
  }
  for (int j = j0; j < cols; ++j) {
    const double K = std::rint((s1[j] + s2[j]) * invP);  // |X| <= P/4: the nearest integer is K exactly
    const double hi = s1[j] - K * P1;                    // exact
    const double lo = s2[j] - K * P2;
    out[j] = hi + lo;
  }
}

// The exact way of the CRT (reconstruct_row_exact, crt_ops.hpp) of V::kLanes columns; load(t): their residues
// modulo p_t. Written once over V: every variant and the scalar columns run these operations in this order, and
// every sum but the last three is exact anyway (docs/numerics.md, "Second level").
struct ExactGrids {
  double grid[3], inv[3];  // 2^g, 2^(g-40), 2^(g-80) (at least 1) and their inverses: the chunks' grids
  double P[4];             // P1 and the chunks of P - P1
  explicit ExactGrids(const CrtPlan& plan)
      : grid{std::ldexp(1.0, plan.g), std::ldexp(1.0, std::max(0, plan.g - 40)),
             std::ldexp(1.0, std::max(0, plan.g - 80))},
        inv{1 / grid[0], 1 / grid[1], 1 / grid[2]},
        P{plan.P1, plan.Px[0], plan.Px[1], plan.Px[2]} {}
};

// G independent groups of V::kLanes columns (so that the sums of the moduli overlap); load(t, g): group g's residues
// modulo p_t, store(g, x): its result.
template <typename V, int G, typename Load, typename Store>
void exact_crt(const CrtPlan& plan, const ExactGrids& e, Load&& load, Store&& store) {
  using R = typename V::reg;
  // S1 and the chunks' sums, multiples of their grids: each product and sum is exact, so one FMA where the vector
  // has it gives the bits of a multiply and an add.
  const auto madd = [](R r, R q, R acc) {
    if constexpr (V::kLanes > 1)
      return V::fmadd(r, q, acc);
    else
      return V::add(acc, V::mul(r, q));
  };
  R s[G][4];
  for (int g = 0; g < G; ++g) s[g][0] = s[g][1] = s[g][2] = s[g][3] = V::zero();
  for (int t = 0; t < plan.n; ++t) {
    const R q[4] = {V::set1(plan.q1[t]), V::set1(plan.qx[0][t]), V::set1(plan.qx[1][t]), V::set1(plan.qx[2][t])};
    for (int g = 0; g < G; ++g) {
      const R r = load(t, g);
      for (int c = 0; c < 4; ++c) s[g][c] = madd(r, q[c], s[g][c]);
    }
  }
  // Rounding to the nearest integer (ties to even) by the 1.5 x 2^52 shift, for |x| < 2^51: the same bits in every
  // variant and no libm call. The chunks below s[1] move S/P by less than 2^-60.
  const R shift = V::set1(0x1.8p52);
  const auto nearest = [&](R x) { return V::sub(V::add(x, shift), shift); };
  for (int g = 0; g < G; ++g) {
    const R K = nearest(V::mul(V::add(s[g][0], s[g][1]), V::set1(plan.invP)));
    // X = d[0] + d[1] + d[2] + d[3], each exact (K < 2^12 and every P_c below 2^41: K P_c is exact, and so is the
    // difference of two multiples of the grid below 2^53 of it). Each then carries its part above the next grid up
    // into it (exact sums of multiples of that grid), leaving X as four parts of which no two overlap.
    R d[4];
    for (int c = 0; c < 4; ++c) d[c] = V::sub(s[g][c], V::mul(K, V::set1(e.P[c])));
    for (int c = 3; c > 0; --c) {
      const R carry = V::mul(nearest(V::mul(d[c], V::set1(e.inv[c - 1]))), V::set1(e.grid[c - 1]));
      d[c] = V::sub(d[c], carry);
      d[c - 1] = V::add(d[c - 1], carry);
    }
    // TwoSum of the top two (exact), the low part with the rest, one rounding at the end:
    // |out - X| <= u |out| + 2 u^2 |X| + 2^(g - 92).
    const R hi = V::add(d[0], d[1]), v = V::sub(hi, d[0]);
    const R lo = V::add(V::sub(d[0], V::sub(hi, v)), V::sub(d[1], v));
    store(g, V::add(hi, V::add(lo, V::add(d[2], d[3]))));
  }
}

// The exact CRT of columns j.. of a row (crt_columns). Returns the first column left.
template <typename V, int G>
int exact_columns(const std::int8_t* res, std::size_t stride, int j, int cols, const CrtPlan& plan, const ExactGrids& e,
                  double* out) {
  return crt_columns<V, G>(res, stride, j, cols, out,
                           [&](auto&& load, auto&& store) { exact_crt<V, G>(plan, e, load, store); });
}

void reconstruct_exact_loop(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* out) {
  const ExactGrids e(plan);
  int j = 0;
#ifdef __AVX512F__
  j = exact_columns<V8, 2>(res, stride, j, cols, plan, e, out);
  j = exact_columns<V8, 1>(res, stride, j, cols, plan, e, out);
#endif
#ifdef __AVX2__
  j = exact_columns<V4, 2>(res, stride, j, cols, plan, e, out);
  j = exact_columns<V4, 1>(res, stride, j, cols, plan, e, out);
#endif
  exact_columns<util::F64x1, 1>(res, stride, j, cols, plan, e, out);
}

void maxima_loop(const std::int32_t* acc, std::size_t ld, int rows, int cols, std::int32_t* row_max,
                 std::int32_t* col_max) {
  for (int j = 0; j < cols; ++j) col_max[j] = 0;
  for (int i = 0; i < rows; ++i) {
    const std::int32_t* row = acc + ld * std::size_t(i);
    std::int32_t m = 0;
    int j = 0;
#ifdef __AVX512F__
    __m512i m16 = _mm512_setzero_si512();
    for (; j + 16 <= cols; j += 16) {
      const __m512i v = _mm512_loadu_si512(row + j);
      m16 = _mm512_max_epi32(m16, v);
      _mm512_storeu_si512(col_max + j, _mm512_max_epi32(_mm512_loadu_si512(col_max + j), v));
    }
    m = _mm512_reduce_max_epi32(m16);
#endif
#ifdef __AVX2__
    __m256i m8 = _mm256_set1_epi32(m);
    for (; j + 8 <= cols; j += 8) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + j));
      m8 = _mm256_max_epi32(m8, v);
      auto* c = reinterpret_cast<__m256i*>(col_max + j);
      _mm256_storeu_si256(c, _mm256_max_epi32(_mm256_loadu_si256(c), v));
    }
    __m128i m4 = _mm_max_epi32(_mm256_castsi256_si128(m8), _mm256_extracti128_si256(m8, 1));
    m4 = _mm_max_epi32(m4, _mm_shuffle_epi32(m4, 0x4e));
    m4 = _mm_max_epi32(m4, _mm_shuffle_epi32(m4, 0xb1));
    m = _mm_cvtsi128_si32(m4);
#endif
    for (; j < cols; ++j) {
      m = std::max(m, row[j]);
      col_max[j] = std::max(col_max[j], row[j]);
    }
    row_max[i] = m;
  }
}

#ifdef __AVX512F__
// Blocks of 8 x 8 whose scales are all nonzero, with the elements' operations in the same order: C column-major
// (rs == 1) gets X's block transposed and each column at once, C row-major (cs == 1) each row at once.
// Returns the columns it covered (whole blocks of 8); `elements` writes the rest.
template <typename T, typename Elements>
int write_blocks8(T* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                  const WriteScales& w, Elements&& elements) {
  if (rs != 1 && cs != 1) return 0;
  const __m512d ma = _mm512_set1_pd(w.m_alpha), beta = _mm512_set1_pd(w.beta), zero = _mm512_setzero_pd();
  auto load = [](const T* p) {
    if constexpr (sizeof(T) == 8)
      return _mm512_loadu_pd(p);
    else
      return _mm512_cvtps_pd(_mm256_loadu_ps(p));
  };
  auto store = [&](T* p, __m512d s) {
    if (w.beta != 0.0) s = _mm512_add_pd(s, _mm512_mul_pd(beta, load(p)));
    if constexpr (sizeof(T) == 8)
      _mm512_storeu_pd(p, s);
    else
      _mm256_storeu_ps(p, _mm512_cvtpd_ps(s));
  };
  const int iv = rows / 8 * 8;
  const int jv = cols / 8 * 8;
  for (int jb = 0; jb < jv; jb += 8) {
    const __m512d fc = _mm512_loadu_pd(w.f_col + jb);
    const bool cols_fast = _mm512_cmp_pd_mask(fc, zero, _CMP_NEQ_OQ) == 0xff;
    for (int ib = 0; ib < iv; ib += 8) {
      const __m512d fr = _mm512_loadu_pd(w.f_row + ib);
      if (!cols_fast || _mm512_cmp_pd_mask(fr, zero, _CMP_NEQ_OQ) != 0xff) {
        elements(ib, ib + 8, jb, jb + 8);
        continue;
      }
      __m512d r[8];
      for (int q = 0; q < 8; ++q) r[q] = _mm512_loadu_pd(x + std::size_t(ib + q) * ldx + jb);
      if (rs == 1) {
        pack::transpose8(r);  // r[q]: column jb + q, rows ib .. ib + 7
        for (int q = 0; q < 8; ++q)
          store(c + ib + (jb + q) * cs,
                _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(ma, r[q]), fr), _mm512_set1_pd(w.f_col[jb + q])));
      } else {
        for (int q = 0; q < 8; ++q)
          store(c + (ib + q) * rs + jb,
                _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(ma, r[q]), _mm512_set1_pd(w.f_row[ib + q])), fc));
      }
    }
    elements(iv, rows, jb, jb + 8);
  }
  return jv;
}
#endif

template <typename T>
void write_loop(T* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                const WriteScales& w) {
  auto element = [&](int i, int j) {
    const double v = w.m_alpha * x[std::size_t(i) * ldx + j];                            // one rounding; |v| < 2^L
    const double s = w.f_row[i] != 0 && w.f_col[j] != 0 ? (v * w.f_row[i]) * w.f_col[j]  // the first product exact
                                                        : std::ldexp(v, w.e_row[i] + w.e_col[j]);
    T& cij = c[i * rs + j * cs];
    cij = w.beta == 0.0 ? T(s) : T(s + w.beta * double(cij));
  };
  // Eight columns at a time, row by row: X is read along its rows and C in runs of eight or down eight columns.
  auto elements = [&](int i0, int i1, int j0, int j1) {
    for (int jb = j0; jb < j1; jb += 8)
      for (int i = i0; i < i1; ++i)
        for (int j = jb; j < std::min(jb + 8, j1); ++j) element(i, j);
  };
  int jv = 0;
#ifdef __AVX512F__
  jv = write_blocks8<T>(c, rs, cs, x, ldx, rows, cols, w, elements);
#endif
  elements(0, rows, jv, cols);
}

// For odd p, r / p is never a half-integer, so the nearest integer of r fl(1/p) (rounded by adding and taking away
// 1.5 2^52: |r / p| < 2^51) is that of r / p, and r - q p (exact: below 2^52) is the symmetric residue; p = 256: the
// low byte, in [-128, 128). Into int32 first: a byte store may alias anything, which keeps the loop from
// vectorising.
void split_residues_loop(const double* x0, const double* x1, const double* x2, int count, double w42, double w84,
                         double p, double invp, std::int8_t* out) {
  std::int32_t v[1024];
  if (p == 256) {
    for (int e = 0; e < count; ++e)
      v[e] = std::int32_t(((std::int64_t((x2[e] * w84 + x1[e] * w42) + x0[e]) + 128) & 255) - 128);
  } else {
    for (int e = 0; e < count; ++e) {
      const double r = (x2[e] * w84 + x1[e] * w42) + x0[e];
      const double q = (r * invp + 0x1.8p52) - 0x1.8p52;
      v[e] = std::int32_t(r - q * p);
    }
  }
  for (int e = 0; e < count; ++e) out[e] = std::int8_t(v[e]);
}

constexpr CrtLoops make_crt_loops() {
  return {load_scaled_loop<float>,
          load_scaled_loop<double>,
          load_across_loop<float>,
          load_across_loop<double>,
          residues_loop,
          pack_a_loop,
          pack_b_loop,
          reduce_mod_loop,
          residue_rows_loop,
          reconstruct_row_loop,
          reconstruct_exact_loop,
          maxima_loop,
          split_residues_loop,
          write_loop<float>,
          write_loop<double>};
}

}  // namespace
}  // namespace bf16x::crt
