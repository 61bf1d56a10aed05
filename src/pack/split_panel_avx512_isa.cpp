// split_panel_avx512: the split and packing of one panel job with AVX-512, equal bit for bit to
// split_panel_generic (the same IEEE operations per element: VSCALEF for ldexp, VRNDSCALE for nearbyint, the RNE
// bit trick of float_to_bf16 on integer lanes). Built for AVX-512 F/BW/VL/DQ without FMA contraction
// (cmake/isa.cmake) and called only where split_panel_avx512_usable() (cpu::vector_level() avx512).
//
// A job is cut into 16 (u) x 32 (k) blocks. Every slice of a block is 16 x 16 dwords (a dword is a k pair):
//   k-contiguous source (A transposed, B not): 32 k of one u per load  -> rows u, dwords pairs   ("u-major")
//   u-contiguous source (A not, B transposed): 16 u of one k per load  -> rows pairs, dwords u   ("pair-major")
// The A layout wants u-major rows, the VNNI B layout pair-major rows; when they differ, one in-register 16 x 16
// dword transpose per slice converts the block. Every 64-byte destination row is written, padding included.
#include <immintrin.h>

#include "pack/panel_job.hpp"
#include "pack/transpose_avx512.hpp"
#include "split/slice_fp64.hpp"

// GCC 12 reports its own _mm*_undefined_* placeholders as uninitialised when intrinsics are inlined (GCC PR
// 105593); the values are never read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace bf16x::pack {
namespace {

constexpr int kU = 16;  // panel indices per block

constexpr double pow2(int e) { return e >= 0 ? (e == 0 ? 1.0 : 2.0 * pow2(e - 1)) : 0.5 * pow2(e + 1); }

// 2^-g_s, 2^g_s and the rounding constant 1.5 * 2^(52 + g_s) of the FP64 split grid, s = 0 .. 5.
struct GridScale {
  double up[kMaxSlices], down[kMaxSlices], round[kMaxSlices];
};
constexpr GridScale grid_scales() {
  GridScale g{};
  for (int s = 0; s < kMaxSlices; ++s) {
    const int gexp = split::kFp64FirstGridExp - split::kFp64GridStep * s;
    g.up[s] = pow2(-gexp);
    g.down[s] = pow2(gexp);
    g.round[s] = 1.5 * pow2(52 + gexp);
  }
  return g;
}
constexpr GridScale kGrid = grid_scales();

inline __mmask16 first_lanes(int n) { return n <= 0 ? 0 : n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1); }

// float_to_bf16 (split/bf16.hpp) on 16 lanes: round to nearest even on the bit pattern; NaN stays quiet.
inline __m512i bf16_bits(__m512 f) {
  const __m512i u = _mm512_castps_si512(f);
  const __m512i hi = _mm512_srli_epi32(u, 16);
  const __m512i bias = _mm512_add_epi32(_mm512_set1_epi32(0x7fff), _mm512_and_si512(hi, _mm512_set1_epi32(1)));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(u, bias), 16);
  const __mmask16 nan =
      _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_or_epi32(rounded, nan, hi, _mm512_set1_epi32(0x40));
}

// 16 elements (masked lanes read as +0) with per-lane scale exponents -> `ns` vectors of 16 BF16 slices.
// float: split/slice_fp32.hpp.
inline void split16(const float* p, __mmask16 m, __m512i E, bool scaled, int ns, __m256i* out) {
  __m512 r = _mm512_maskz_loadu_ps(m, p);
  if (scaled) r = _mm512_scalef_ps(r, _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_setzero_si512(), E)));
  for (int s = 0; s < ns; ++s) {
    const __m512i h = bf16_bits(r);
    out[s] = _mm512_cvtepi32_epi16(h);
    r = _mm512_sub_ps(r, _mm512_castsi512_ps(_mm512_slli_epi32(h, 16)));
  }
}

// double: split/slice_fp64.hpp, grid g_s = 2^(-8-9s); products with powers of two are exact, as ldexp is.
// Scaled (|v| < 1): every slice is an integer of magnitude <= 2^8 on its grid, so (1) it rounds to the grid with
// one add and one subtract of C_s = 1.5 * 2^(52 + g_s) (|r| < 2^(51 + g_s): the add rounds to nearest even on
// the grid, the subtract is exact; the sign bit of r restores nearbyint's signed zero), and (2) it is exactly a
// BF16 value, so its FP32 bit pattern truncates to the BF16 one. Unscaled (the paper's path), slices may exceed
// 8 bits: the general sequence (VRNDSCALE, round-to-nearest-even narrowing) runs.
inline void split16(const double* p, __mmask16 m, __m512i E, bool scaled, int ns, __m256i* out) {
  const __m512d e[2] = {_mm512_cvtepi32_pd(_mm512_castsi512_si256(E)),
                        _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(E, 1))};
  __m512d r[2] = {_mm512_maskz_loadu_pd(__mmask8(m), p), _mm512_maskz_loadu_pd(__mmask8(m >> 8), p + 8)};
  for (int h = 0; h < 2; ++h) r[h] = _mm512_scalef_pd(r[h], _mm512_sub_pd(_mm512_setzero_pd(), e[h]));
  const __m512i sign = _mm512_set1_epi64(std::int64_t(0x8000000000000000ull));
  for (int s = 0; s < ns; ++s) {
    __m256 f[2];
    if (scaled) {
      const __m512d c = _mm512_set1_pd(kGrid.round[s]);
      for (int h = 0; h < 2; ++h) {
        const __m512d grid = _mm512_sub_pd(_mm512_add_pd(r[h], c), c);
        // slice = grid | sign(r): nonzero slices already carry r's sign; a zero one takes it as nearbyint does.
        const __m512d slice = _mm512_castsi512_pd(
            _mm512_ternarylogic_epi64(_mm512_castpd_si512(grid), _mm512_castpd_si512(r[h]), sign, 0xf8));
        r[h] = _mm512_sub_pd(r[h], slice);
        f[h] = _mm512_cvtpd_ps(slice);
      }
      const __m512i bits = _mm512_castps_si512(_mm512_insertf32x8(_mm512_castps256_ps512(f[0]), f[1], 1));
      out[s] = _mm512_cvtepi32_epi16(_mm512_srli_epi32(bits, 16));
    } else {
      const __m512d up = _mm512_set1_pd(kGrid.up[s]), down = _mm512_set1_pd(kGrid.down[s]);
      for (int h = 0; h < 2; ++h) {
        const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(r[h], up), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512d slice = _mm512_mul_pd(n, down);
        r[h] = _mm512_sub_pd(r[h], slice);
        f[h] = _mm512_cvtpd_ps(_mm512_scalef_pd(slice, e[h]));  // the paper's path keeps the scale in the slice
      }
      out[s] = _mm512_cvtepi32_epi16(bf16_bits(_mm512_insertf32x8(_mm512_castps256_ps512(f[0]), f[1], 1)));
    }
  }
}

// bf16: the raw GEMM's operands, one slice, copied.
inline void split16(const bf16_t* p, __mmask16 m, __m512i, bool, int, __m256i* out) {
  out[0] = _mm256_maskz_loadu_epi16(m, p);
}

using Block = __m512i[kMaxSlices][kU];

// k-contiguous source: nat[s][u] = the 16 k pairs l0 .. l0+31 of row u0+u.
template <typename T>
void load_u_major(const PanelJob<T>& job, int u0, int l0, Block& nat) {
  const __mmask16 m0 = first_lanes(job.depth - l0), m1 = first_lanes(job.depth - l0 - 16);
  __m256i lo[kMaxSlices], hi[kMaxSlices];
  for (int u = 0; u < kU; ++u) {
    const int uu = u0 + u;
    if (uu >= job.extent) {
      for (int s = 0; s < job.slices; ++s) nat[s][u] = _mm512_setzero_si512();
      continue;
    }
    const T* p = job.src + uu * job.su + l0;
    const __m512i E = _mm512_set1_epi32(job.scale_exp[uu]);
    split16(p, m0, E, job.scaled, job.slices, lo);
    split16(p + 16, m1, E, job.scaled, job.slices, hi);
    for (int s = 0; s < job.slices; ++s) nat[s][u] = _mm512_inserti64x4(_mm512_castsi256_si512(lo[s]), hi[s], 1);
  }
}

// u-contiguous source: nat[s][q] = (k = l0+2q, k = l0+2q+1) pairs of the 16 columns u0 .. u0+15.
template <typename T>
void load_pair_major(const PanelJob<T>& job, int u0, int l0, Block& nat) {
  const __mmask16 mu = first_lanes(job.extent - u0);
  const __m512i E = _mm512_maskz_loadu_epi32(mu, job.scale_exp + u0);
  __m256i ev[kMaxSlices], od[kMaxSlices];
  for (int q = 0; q < kU; ++q) {
    const int l = l0 + 2 * q;
    for (int s = 0; s < job.slices; ++s) ev[s] = od[s] = _mm256_setzero_si256();
    if (l < job.depth) split16(job.src + l * job.sl + u0, mu, E, job.scaled, job.slices, ev);
    if (l + 1 < job.depth) split16(job.src + (l + 1) * job.sl + u0, mu, E, job.scaled, job.slices, od);
    for (int s = 0; s < job.slices; ++s)
      nat[s][q] = _mm512_or_si512(_mm512_cvtepu16_epi32(ev[s]), _mm512_slli_epi32(_mm512_cvtepu16_epi32(od[s]), 16));
  }
}

// Prefetch of a block's source lines. Both walk orders jump between 32 lines of memory per block, more streams
// than the hardware prefetchers follow, so the next block is requested while this one is split.
template <typename T>
void prefetch_block(const PanelJob<T>& job, int u0, int l0) {
  constexpr int kLine = 64 / sizeof(T);
  if (u0 >= job.extent || l0 >= job.depth) return;
  if (job.sl == 1) {
    const int rows = std::min(kU, job.extent - u0), len = std::min(kKChunk, job.depth - l0);
    for (int u = 0; u < rows; ++u)
      for (int l = 0; l < len; l += kLine)
        _mm_prefetch(reinterpret_cast<const char*>(job.src + (u0 + u) * job.su + l0 + l), _MM_HINT_T0);
  } else {
    const int cols = std::min(kU, job.extent - u0), len = std::min(kKChunk, job.depth - l0);
    for (int l = 0; l < len; ++l)
      for (int u = 0; u < cols; u += kLine)
        _mm_prefetch(reinterpret_cast<const char*>(job.src + (l0 + l) * job.sl + u0 + u), _MM_HINT_T0);
  }
}

}  // namespace

template <typename T>
void split_panel_avx512(const PanelJob<T>& job) {
  static_assert(kTileM == 2 * kU && kKChunk == 2 * kU, "a micro-panel is 2 x (kp / 32) blocks of 16 x 32");
  Block nat;
  const bool k_contiguous = job.sl == 1;
  const bool a_rows = job.layout == PanelLayout::a_rows;
  const bool transpose = k_contiguous != a_rows;
  const std::int64_t slice_stride = std::int64_t(kTileM) * job.kp, panel_stride = slice_stride * job.slices;
  const int kchunks = job.kp / kKChunk, blocks = 2 * job.panels;  // 16-wide u blocks of the run
  // Memory order: along k within a u block (k-contiguous source), across the run within a k chunk otherwise.
  const int outer = k_contiguous ? blocks : kchunks, inner = k_contiguous ? kchunks : blocks;
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < inner; ++i) {
      const int ub = k_contiguous ? o : i, l0 = (k_contiguous ? i : o) * kKChunk;
      const int u0 = ub * kU;
      if (i + 1 < inner)
        prefetch_block(job, k_contiguous ? u0 : u0 + kU, k_contiguous ? l0 + kKChunk : l0);
      else if (o + 1 < outer)
        prefetch_block(job, k_contiguous ? u0 + kU : 0, k_contiguous ? 0 : l0 + kKChunk);
      if (k_contiguous)
        load_u_major(job, u0, l0, nat);
      else
        load_pair_major(job, u0, l0, nat);
      bf16_t* panel = job.dst + (u0 / kTileM) * panel_stride;
      const int w0 = u0 % kTileM;
      for (int s = 0; s < job.slices; ++s) {
        if (transpose) transpose16(nat[s]);
        bf16_t* d = panel + s * slice_stride;
        for (int r = 0; r < kU; ++r) {
          bf16_t* row = a_rows ? d + std::int64_t(w0 + r) * job.kp + l0
                               : d + std::int64_t(l0 / kPair + r) * kBPairStride + w0 * kPair;
          _mm512_storeu_si512(row, nat[s][r]);
        }
      }
    }
}

template void split_panel_avx512(const PanelJob<float>&);
template void split_panel_avx512(const PanelJob<double>&);
template void split_panel_avx512(const PanelJob<bf16_t>&);

}  // namespace bf16x::pack

#pragma GCC diagnostic pop
