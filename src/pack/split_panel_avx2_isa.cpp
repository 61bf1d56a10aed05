// split_panel_avx2: the scaled FP64 split of one panel job four elements at a time with AVX2, equal bit for bit to
// split_panel_generic: the same IEEE operations per element as split/slice_fp64.hpp (products with powers of two
// built from their bits, util::round_to_even's add and subtract of 2^52 with the sign put back, the conversion to
// FP32 and float_to_bf16's rounding on integer lanes). Built for AVX2 without FMA contraction (cmake/isa.cmake) and
// called only where split_panel_avx2_usable() (cpu::vector_level() avx2 or above). Elements it does not take
// (padding, tails shorter than four, scale exponents whose power of two is not a normal double, FP32 and BF16
// operands, the paper's unscaled split) go through the element path.
#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "pack/element_split.hpp"
#include "pack/panel_job.hpp"

namespace bf16x::pack {
namespace {

constexpr int kLanes = 4;

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
inline bool scale_in_range(int E) { return E >= -1023 && E <= 1022; }

// float_to_bf16 (split/bf16.hpp) on 4 lanes, widened to 32 bits.
inline __m128i bf16_bits(__m128 f) {
  const __m128i u = _mm_castps_si128(f);
  const __m128i hi = _mm_srli_epi32(u, 16);
  const __m128i rounded =
      _mm_srli_epi32(_mm_add_epi32(u, _mm_add_epi32(_mm_set1_epi32(0x7fff), _mm_and_si128(hi, _mm_set1_epi32(1)))), 16);
  const __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(u, _mm_set1_epi32(0x7fffffff)), _mm_set1_epi32(0x7f800000));
  return _mm_blendv_epi8(rounded, _mm_or_si128(hi, _mm_set1_epi32(0x40)), nan);
}

// Four elements x with their scale exponents e (each with scale_in_range) -> out[s][lane], s < ns.
inline void split4(__m256d x, __m128i e, int ns, std::uint16_t (*out)[kLanes], const Grid& g) {
  const __m256i bits = _mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm_sub_epi32(_mm_set1_epi32(1023), e)), 52);
  __m256d r = _mm256_mul_pd(x, _mm256_castsi256_pd(bits));  // x 2^-E
  const __m256d sign = _mm256_set1_pd(-0.0), big = _mm256_set1_pd(0x1p52);
  for (int s = 0; s < ns; ++s) {
    const __m256d y = _mm256_mul_pd(r, g.up[s]);
    const __m256d a = _mm256_andnot_pd(sign, y);
    const __m256d near = _mm256_or_pd(_mm256_sub_pd(_mm256_add_pd(a, big), big), _mm256_and_pd(y, sign));
    const __m256d n = _mm256_blendv_pd(y, near, _mm256_cmp_pd(a, big, _CMP_LT_OQ));
    const __m256d slice = _mm256_mul_pd(n, g.down[s]);
    r = _mm256_sub_pd(r, slice);
    const __m128i h = bf16_bits(_mm256_cvtpd_ps(slice));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out[s]), _mm_packus_epi32(h, h));
  }
}

}  // namespace

template <typename T>
void split_panel_avx2(const PanelJob<T>& job) {
  if constexpr (!std::is_same_v<T, double>) {
    split_panel_generic(job);
  } else {
    if (!job.scaled) return split_panel_generic(job);
    static const Grid grid;
    const std::ptrdiff_t slice_stride = std::ptrdiff_t(kTileM) * job.kp;
    const auto at = [&](int u, int l) {
      const int q = u / kTileM, w = u % kTileM;
      return std::ptrdiff_t(q) * job.slices * slice_stride +
             (job.layout == PanelLayout::a_rows ? std::ptrdiff_t(w) * job.kp + l
                                                : std::ptrdiff_t(l / kPair) * kBPairStride + w * kPair + l % kPair);
    };
    const auto element = [&](int u, int l) {
      const bool valid = u < job.extent && l < job.depth;
      const double x = valid ? job.src[u * job.su + l * job.sl] : 0.0;
      split_element(x, u < job.extent ? job.scale_exp[u] : 0, true, job.slices, job.dst + at(u, l), slice_stride);
    };
    const auto store = [&](int u, int du, int l, int dl, const std::uint16_t(*out)[kLanes]) {
      for (int s = 0; s < job.slices; ++s)
        for (int i = 0; i < kLanes; ++i) job.dst[at(u + i * du, l + i * dl) + s * slice_stride] = out[s][i];
    };
    std::uint16_t out[kMaxSlices][kLanes];
    const int rows = kTileM * job.panels;
    if (job.sl == 1) {  // k-contiguous: four k of one u per load
      for (int u = 0; u < rows; ++u) {
        int l = 0;
        if (u < job.extent && scale_in_range(job.scale_exp[u]))
          for (; l + kLanes <= job.depth; l += kLanes) {
            split4(_mm256_loadu_pd(job.src + u * job.su + l), _mm_set1_epi32(job.scale_exp[u]), job.slices, out, grid);
            store(u, 0, l, 1, out);
          }
        for (; l < job.kp; ++l) element(u, l);
      }
    } else {  // u-contiguous: one k of four u per load
      for (int l = 0; l < job.kp; ++l) {
        int u = 0;
        if (l < job.depth)
          for (; u + kLanes <= job.extent; u += kLanes) {
            const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(job.scale_exp + u));
            if (!scale_in_range(job.scale_exp[u]) || !scale_in_range(job.scale_exp[u + 1]) ||
                !scale_in_range(job.scale_exp[u + 2]) || !scale_in_range(job.scale_exp[u + 3])) {
              for (int i = 0; i < kLanes; ++i) element(u + i, l);
              continue;
            }
            split4(_mm256_loadu_pd(job.src + u + l * job.sl), e, job.slices, out, grid);
            store(u, 1, l, 0, out);
          }
        for (; u < rows; ++u) element(u, l);
      }
    }
  }
}

template void split_panel_avx2(const PanelJob<float>&);
template void split_panel_avx2(const PanelJob<double>&);
template void split_panel_avx2(const PanelJob<bf16_t>&);

}  // namespace bf16x::pack
