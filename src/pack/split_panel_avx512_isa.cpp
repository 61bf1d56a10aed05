// split_panel_avx512: the split and packing of one panel job with AVX-512, equal bit for bit to
// split_panel_generic (the same IEEE operations per element: VSCALEF for ldexp, VRNDSCALE for nearbyint, the RNE
// bit trick of float_to_bf16 on integer lanes). Built for AVX-512 F/BW/VL/DQ without FMA contraction
// (cmake/isa.cmake) and called only where split_panel_avx512_usable() (cpu::vector_level() avx512).
//
// A job is cut into 16 (u) x 32 (k) blocks. Every slice of a block is 16 x 16 dwords (a dword is a k pair):
//   k-contiguous source (A transposed, B not): 32 k of one u per load  -> rows u, dwords pairs   ("u-major")
//   u-contiguous source (A not, B transposed): 16 u of one k per load  -> rows pairs, dwords u   ("pair-major")
// The A layout wants u-major rows, the VNNI B layout pair-major rows; when they differ, one in-register 16 x 16
// dword transpose per slice converts the block. Every 64-byte destination row is written, padding included, with
// streaming stores where the job asks (PanelJob::stream). The slice count and the kind of split are template
// parameters, so each block's slices stay in registers.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "pack/panel_job.hpp"
#include "pack/transpose_avx512.hpp"
#include "split/slice_fp64.hpp"

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

// The slices leave the split in "top" form: 16 dword lanes whose upper halves are the BF16 slices (lower halves
// unspecified), the form in which both layouts gather them with one word shuffle or blend per vector.

// float_to_bf16 (split/bf16.hpp) on 16 lanes, in top form: u + 0x7fff + lsb rounds to nearest even in the upper
// half; a NaN keeps its upper half with the quiet bit set.
inline __m512i bf16_top(__m512 f) {
  const __m512i u = _mm512_castps_si512(f);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i v = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb);
  return _mm512_mask_or_epi32(v, _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q), u, _mm512_set1_epi32(0x400000));
}

// The value of a top-form BF16 as FP32.
inline __m512 top_value(__m512i v) { return _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(-65536))); }

// Scale of a split: 2^-E on 16 lanes, as scalef's FP32 / FP64 exponent operands.
struct Scale {
  __m512 f;
  __m512d d[2];
};
inline Scale scale_of(__m512i E) {
  const __m512i neg = _mm512_sub_epi32(_mm512_setzero_si512(), E);
  return {_mm512_cvtepi32_ps(neg),
          {_mm512_cvtepi32_pd(_mm512_castsi512_si256(neg)), _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(neg, 1))}};
}

// 16 elements (masked lanes read as +0) -> NS slices in top form. float: split/slice_fp32.hpp.
template <int NS, bool kScaled>
inline void split16(const float* p, __mmask16 m, const Scale& sc, __m512i* top) {
  __m512 r = _mm512_maskz_loadu_ps(m, p);
  if (kScaled) r = _mm512_scalef_ps(r, sc.f);
  for (int s = 0; s < NS; ++s) {
    top[s] = bf16_top(r);
    if (s + 1 < NS) r = _mm512_sub_ps(r, top_value(top[s]));
  }
}

// double: split/slice_fp64.hpp, grid g_s = 2^(-8-9s); products with powers of two are exact, as ldexp is.
// Scaled (|v| < 1): every slice is an integer of magnitude <= 2^8 on its grid, so (1) it rounds to the grid with
// one add and one subtract of C_s = 1.5 * 2^(52 + g_s) (|r| < 2^(51 + g_s): the add rounds to nearest even on
// the grid, the subtract is exact; the sign bit of r restores nearbyint's signed zero), and (2) it is exactly a
// BF16 value, so its FP32 bit pattern is already in top form (lower half zero). Unscaled (the paper's path),
// slices may exceed 8 bits: the general sequence (VRNDSCALE, round-to-nearest-even narrowing) runs.
template <int NS, bool kScaled>
inline void split16(const double* p, __mmask16 m, const Scale& sc, __m512i* top) {
  __m512d r[2] = {_mm512_maskz_loadu_pd(__mmask8(m), p), _mm512_maskz_loadu_pd(__mmask8(m >> 8), p + 8)};
  for (int h = 0; h < 2; ++h) r[h] = _mm512_scalef_pd(r[h], sc.d[h]);
  const __m512i sign = _mm512_set1_epi64(std::int64_t(0x8000000000000000ull));
  for (int s = 0; s < NS; ++s) {
    __m256 f[2];
    if (kScaled) {
      const __m512d c = _mm512_set1_pd(kGrid.round[s]);
      for (int h = 0; h < 2; ++h) {
        const __m512d grid = _mm512_sub_pd(_mm512_add_pd(r[h], c), c);
        // slice = grid | sign(r): nonzero slices already carry r's sign; a zero one takes it as nearbyint does.
        const __m512d slice = _mm512_castsi512_pd(
            _mm512_ternarylogic_epi64(_mm512_castpd_si512(grid), _mm512_castpd_si512(r[h]), sign, 0xf8));
        if (s + 1 < NS) r[h] = _mm512_sub_pd(r[h], slice);
        f[h] = _mm512_cvtpd_ps(slice);
      }
      top[s] = _mm512_castps_si512(_mm512_insertf32x8(_mm512_castps256_ps512(f[0]), f[1], 1));
    } else {
      const __m512d up = _mm512_set1_pd(kGrid.up[s]), down = _mm512_set1_pd(kGrid.down[s]);
      for (int h = 0; h < 2; ++h) {
        const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(r[h], up), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512d slice = _mm512_mul_pd(n, down);
        if (s + 1 < NS) r[h] = _mm512_sub_pd(r[h], slice);
        // the paper's path keeps the scale in the slice: 2^E, the negated scale operand
        f[h] = _mm512_cvtpd_ps(_mm512_scalef_pd(slice, _mm512_sub_pd(_mm512_setzero_pd(), sc.d[h])));
      }
      top[s] = bf16_top(_mm512_insertf32x8(_mm512_castps256_ps512(f[0]), f[1], 1));
    }
  }
}

// bf16: the raw GEMM's operands, one slice, copied.
template <int NS, bool kScaled>
inline void split16(const bf16_t* p, __mmask16 m, const Scale&, __m512i* top) {
  top[0] = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16);
}

template <int NS>
using Block = __m512i[NS][kU];

// k-contiguous source: nat[s][u] = the 16 k pairs l0 .. l0+31 of row u0+u (word j = k l0 + j: the upper halves of
// the two top-form vectors, in order).
template <int NS, bool kScaled, typename T>
void load_u_major(const PanelJob<T>& job, int u0, int l0, Block<NS>& nat) {
  const __m512i upper = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29, 27, 25,
                                         23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  const __mmask16 m0 = first_lanes(job.depth - l0), m1 = first_lanes(job.depth - l0 - 16);
  const int rows = std::min(kU, job.extent - u0);
  __m512i lo[NS], hi[NS];
  for (int u = 0; u < rows; ++u) {
    const T* p = job.src + (u0 + u) * job.su + l0;
    const Scale sc = scale_of(_mm512_set1_epi32(job.scale_exp[u0 + u]));
    split16<NS, kScaled>(p, m0, sc, lo);
    split16<NS, kScaled>(p + 16, m1, sc, hi);
    for (int s = 0; s < NS; ++s) nat[s][u] = _mm512_permutex2var_epi16(lo[s], upper, hi[s]);
  }
  for (int u = std::max(rows, 0); u < kU; ++u)
    for (int s = 0; s < NS; ++s) nat[s][u] = _mm512_setzero_si512();
}

// u-contiguous source: nat[s][q] = (k = l0+2q, k = l0+2q+1) pairs of the 16 columns u0 .. u0+15 (the even k's
// upper halves moved down, blended with the odd k's).
template <int NS, bool kScaled, typename T>
void load_pair_major(const PanelJob<T>& job, int u0, int l0, Block<NS>& nat) {
  const __mmask16 mu = first_lanes(job.extent - u0);
  const Scale sc = scale_of(_mm512_maskz_loadu_epi32(mu, job.scale_exp + u0));
  __m512i ev[NS], od[NS];
  for (int q = 0; q < kU; ++q) {
    const int l = l0 + 2 * q;
    for (int s = 0; s < NS; ++s) ev[s] = od[s] = _mm512_setzero_si512();
    if (l < job.depth) split16<NS, kScaled>(job.src + l * job.sl + u0, mu, sc, ev);
    if (l + 1 < job.depth) split16<NS, kScaled>(job.src + (l + 1) * job.sl + u0, mu, sc, od);
    for (int s = 0; s < NS; ++s)
      nat[s][q] = _mm512_mask_blend_epi16(__mmask32(0xaaaaaaaa), _mm512_srli_epi32(ev[s], 16), od[s]);
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

// The job with the slice count and the kind of split fixed at compile time.
template <int NS, bool kScaled, typename T>
void split_job(const PanelJob<T>& job) {
  static_assert(kTileM == 2 * kU && kKChunk == 2 * kU, "a micro-panel is 2 x (kp / 32) blocks of 16 x 32");
  Block<NS> nat;
  const bool k_contiguous = job.sl == 1;
  const bool a_rows = job.layout == PanelLayout::a_rows;
  const bool transpose = k_contiguous != a_rows;
  const std::int64_t slice_stride = std::int64_t(kTileM) * job.kp, panel_stride = slice_stride * NS;
  const int kchunks = job.span() / kKChunk, blocks = 2 * job.panels;  // 16-wide u blocks of the run
  // Memory order: along k within a u block (k-contiguous source), across the run within a k chunk otherwise.
  const int outer = k_contiguous ? blocks : kchunks, inner = k_contiguous ? kchunks : blocks;
  // Every destination row is a whole 64-byte line (kp and the pair rows are multiples of 64 bytes).
  const bool stream = job.stream && reinterpret_cast<std::uintptr_t>(job.dst) % 64 == 0;
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < inner; ++i) {
      const int ub = k_contiguous ? o : i, l0 = (k_contiguous ? i : o) * kKChunk;
      const int u0 = ub * kU;
      if (i + 1 < inner)
        prefetch_block(job, k_contiguous ? u0 : u0 + kU, k_contiguous ? l0 + kKChunk : l0);
      else if (o + 1 < outer)
        prefetch_block(job, k_contiguous ? u0 + kU : 0, k_contiguous ? 0 : l0 + kKChunk);
      // A u block wholly past the operand's edge (the second half of a skinny operand's panel) is zero rows:
      // what the split of its zero lanes gives, without the split.
      const bool padding = u0 >= job.extent;
      if (padding)
        for (int s = 0; s < NS; ++s)
          for (int r = 0; r < kU; ++r) nat[s][r] = _mm512_setzero_si512();
      else if (k_contiguous)
        load_u_major<NS, kScaled>(job, u0, l0, nat);
      else
        load_pair_major<NS, kScaled>(job, u0, l0, nat);
      // (a k chunk lies inside one k-block: kp is a multiple of kKChunk)
      const int lb = l0 % job.kp;
      bf16_t* panel = job.dst + (l0 / job.kp) * job.block_stride + (u0 / kTileM) * panel_stride;
      const int w0 = u0 % kTileM;
      for (int s = 0; s < NS; ++s) {
        if (transpose && !padding) transpose16(nat[s]);
        bf16_t* d = panel + s * slice_stride;
        for (int r = 0; r < kU; ++r) {
          bf16_t* row = a_rows ? d + std::int64_t(w0 + r) * job.kp + lb
                               : d + std::int64_t(lb / kPair + r) * kBPairStride + w0 * kPair;
          if (stream)
            _mm512_stream_si512(reinterpret_cast<__m512i*>(row), nat[s][r]);
          else
            _mm512_storeu_si512(row, nat[s][r]);
        }
      }
    }
  // Streaming stores are weakly ordered: fence them before the barrier after which other threads read the panels.
  if (stream) _mm_sfence();
}

template <int NS, typename T>
void split_job(const PanelJob<T>& job) {
  if (job.scaled)
    split_job<NS, true>(job);
  else
    split_job<NS, false>(job);
}

}  // namespace

template <typename T>
void split_panel_avx512(const PanelJob<T>& job) {
  if constexpr (std::is_same_v<T, bf16_t>) {
    split_job<1>(job);
  } else {
    static_assert(kMaxSlices == 6);
    switch (job.slices) {
      case 1:
        return split_job<1>(job);
      case 2:
        return split_job<2>(job);
      case 3:
        return split_job<3>(job);
      case 4:
        return split_job<4>(job);
      case 5:
        return split_job<5>(job);
      default:
        return split_job<6>(job);
    }
  }
}

template void split_panel_avx512(const PanelJob<float>&);
template void split_panel_avx512(const PanelJob<double>&);
template void split_panel_avx512(const PanelJob<bf16_t>&);

}  // namespace bf16x::pack
