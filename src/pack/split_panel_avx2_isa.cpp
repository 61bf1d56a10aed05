// split_panel_avx2: the scaled FP64 split of one panel job four elements at a time and the scaled FP32 split eight at
// a time with AVX2, equal bit for bit to split_panel_generic: the same IEEE operations per element as
// split/slice_fp64.hpp and split/slice_fp32.hpp (products with powers of two built from their bits,
// util::round_to_even's add and subtract of 2^52 with the sign put back, the conversion to FP32 and float_to_bf16's
// rounding on integer lanes). Built for AVX2 without FMA contraction (cmake/isa.cmake) and
// called only where split_panel_avx2_usable() (cpu::vector_level() avx2 or above). Elements it does not take
// (tails shorter than the lanes, scale exponents whose power of two is not normal, BF16 operands, the paper's
// unscaled split) go through the element path; padding is written as the zero slices the element path gives for 0.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "pack/element_split.hpp"
#include "pack/panel_job.hpp"

namespace bf16x::pack {
namespace {

// float_to_bf16 (split/bf16.hpp) on 8 lanes, widened to 32 bits.
inline __m256i bf16_bits(__m256i u) {
  const __m256i hi = _mm256_srli_epi32(u, 16);
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), _mm256_and_si256(hi, _mm256_set1_epi32(1)))), 16);
  const __m256i nan =
      _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(rounded, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}

// The 8 low halves of b (32-bit lanes holding 16-bit values) in lane order.
inline void store8(__m256i b, std::uint16_t* out) {
  const __m128i h = _mm_packus_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), h);
}

// The scaled FP64 split, four elements at a time.
struct Fp64Lanes {
  using T = double;
  using Exp = __m128i;
  static constexpr int kLanes = 4;
  // 2^-g_s and 2^g_s of the FP64 split grid (split/slice_fp64.hpp), s = 0 .. 5.
  struct Grid {
    __m256d up[kMaxSlices], down[kMaxSlices];
    Grid() {
      for (int s = 0; s < kMaxSlices; ++s) {
        const int gexp = split::kFp64FirstGridExp - split::kFp64GridStep * s;
        up[s] = _mm256_set1_pd(util::pow2(-gexp));
        down[s] = _mm256_set1_pd(util::pow2(gexp));
      }
    }
  };
  // Whether 2^-E is a normal double (util::times_pow2 multiplies there).
  static bool in_range(int E) { return E >= -1023 && E <= 1022; }
  static Exp load(const int* e) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(e)); }
  static Exp broadcast(int e) { return _mm_set1_epi32(e); }
  // Four elements x with their scale exponents e (each in_range) -> out[s][lane], s < ns.
  static void split(const double* src, Exp e, int ns, std::uint16_t (*out)[kLanes]) {
    static const Grid g;
    const __m256i bits = _mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm_sub_epi32(_mm_set1_epi32(1023), e)), 52);
    __m256d r = _mm256_mul_pd(_mm256_loadu_pd(src), _mm256_castsi256_pd(bits));  // x 2^-E
    const __m256d sign = _mm256_set1_pd(-0.0), big = _mm256_set1_pd(0x1p52);
    for (int s = 0; s < ns; ++s) {
      const __m256d y = _mm256_mul_pd(r, g.up[s]);
      const __m256d a = _mm256_andnot_pd(sign, y);
      const __m256d near = _mm256_or_pd(_mm256_sub_pd(_mm256_add_pd(a, big), big), _mm256_and_pd(y, sign));
      const __m256d n = _mm256_blendv_pd(y, near, _mm256_cmp_pd(a, big, _CMP_LT_OQ));
      const __m256d slice = _mm256_mul_pd(n, g.down[s]);
      r = _mm256_sub_pd(r, slice);
      const __m128i h =
          _mm256_castsi256_si128(bf16_bits(_mm256_castsi128_si256(_mm_castps_si128(_mm256_cvtpd_ps(slice)))));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out[s]), _mm_packus_epi32(h, h));
    }
  }
};

// The scaled FP32 split (split/slice_fp32.hpp), eight elements at a time: s = bf16(r), r -= s.
struct Fp32Lanes {
  using T = float;
  using Exp = __m256i;
  static constexpr int kLanes = 8;
  // Whether 2^-E is a normal float (util::times_pow2 multiplies there).
  static bool in_range(int E) { return E >= -127 && E <= 126; }
  static Exp load(const int* e) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e)); }
  static Exp broadcast(int e) { return _mm256_set1_epi32(e); }
  static void split(const float* src, Exp e, int ns, std::uint16_t (*out)[kLanes]) {
    const __m256i bits = _mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127), e), 23);
    __m256 r = _mm256_mul_ps(_mm256_loadu_ps(src), _mm256_castsi256_ps(bits));  // x 2^-E
    for (int s = 0; s < ns; ++s) {
      const __m256i h = bf16_bits(_mm256_castps_si256(r));
      store8(h, out[s]);
      r = _mm256_sub_ps(r, _mm256_castsi256_ps(_mm256_slli_epi32(h, 16)));
    }
  }
};

// One panel job through the lanes of V; padding is written as zero slices (what the element split gives for 0).
// The padding rows (u >= extent) of a job's panels, whole: a row of an A panel is contiguous, a column of a B panel
// one pair per pair-row.
template <typename T>
void zero_padding_rows(const PanelJob<T>& job, std::ptrdiff_t slice_stride) {
  for (int u = job.extent; u < kTileM * job.panels; ++u)
    for (int b = 0; b < job.kblocks; ++b)
      for (int s = 0; s < job.slices; ++s) {
        bf16_t* row = job.dst + std::ptrdiff_t(job.at(u, b * job.kp)) + s * slice_stride;
        if (job.layout == PanelLayout::a_rows)
          std::fill(row, row + job.kp, bf16_t(0));
        else
          for (int q = 0; q < job.kp / kPair; ++q)
            std::fill(row + q * kBPairStride, row + q * kBPairStride + kPair, bf16_t(0));
      }
}

template <typename V>
void split_lanes(const PanelJob<typename V::T>& job) {
  constexpr int L = V::kLanes;
  const std::ptrdiff_t slice_stride = std::ptrdiff_t(kTileM) * job.kp;
  const auto at = [&](int u, int l) { return std::ptrdiff_t(job.at(u, l)); };
  const auto element = [&](int u, int l) {
    bf16_t* dst = job.dst + at(u, l);
    if (u < job.extent && l < job.depth)
      split_element(job.src[u * job.su + l * job.sl], job.scale_exp[u], true, job.slices, dst, slice_stride);
    else
      for (int s = 0; s < job.slices; ++s) dst[s * slice_stride] = 0;
  };
  // Where lane i lands relative to lane 0: the lanes of a load stay inside one micro-panel and k-block (u and l are
  // multiples of L, which divides kTileM and kp and is even), so the offsets are the same for every load along u or
  // along l.
  std::ptrdiff_t along_u[L], along_l[L];
  for (int i = 0; i < L; ++i) along_u[i] = at(i, 0) - at(0, 0), along_l[i] = at(0, i) - at(0, 0);
  const auto store = [&](int u, int l, const std::ptrdiff_t* off, const std::uint16_t(*out)[L]) {
    bf16_t* base = job.dst + at(u, l);
    for (int s = 0; s < job.slices; ++s)
      for (int i = 0; i < L; ++i) base[off[i] + s * slice_stride] = out[s][i];
  };
  std::uint16_t out[kMaxSlices][L];
  zero_padding_rows(job, slice_stride);
  if (job.sl == 1) {  // k-contiguous: L values of k of one u per load
    for (int u = 0; u < job.extent; ++u) {
      int l = 0;
      if (V::in_range(job.scale_exp[u]))
        for (; l + L <= job.depth; l += L) {
          V::split(job.src + u * job.su + l, V::broadcast(job.scale_exp[u]), job.slices, out);
          store(u, l, along_l, out);
        }
      for (; l < job.span(); ++l) element(u, l);
    }
  } else {  // u-contiguous: one k of L values of u per load
    for (int l = 0; l < job.span(); ++l) {
      int u = 0;
      if (l < job.depth)
        for (; u + L <= job.extent; u += L) {
          bool fits = true;
          for (int i = 0; i < L; ++i) fits = fits && V::in_range(job.scale_exp[u + i]);
          if (!fits) {
            for (int i = 0; i < L; ++i) element(u + i, l);
            continue;
          }
          V::split(job.src + u + l * job.sl, V::load(job.scale_exp + u), job.slices, out);
          store(u, l, along_u, out);
        }
      for (; u < job.extent; ++u) element(u, l);
    }
  }
}

}  // namespace

template <typename T>
void split_panel_avx2(const PanelJob<T>& job) {
  if (!job.scaled) return split_panel_generic(job);
  if constexpr (std::is_same_v<T, double>)
    split_lanes<Fp64Lanes>(job);
  else if constexpr (std::is_same_v<T, float>)
    split_lanes<Fp32Lanes>(job);
  else
    split_panel_generic(job);
}

template void split_panel_avx2(const PanelJob<float>&);
template void split_panel_avx2(const PanelJob<double>&);
template void split_panel_avx2(const PanelJob<bf16_t>&);

}  // namespace bf16x::pack
