// kernel_avx2_32x32: the micro-kernel contract of engine/engine.hpp with AVX2 + FMA only (compiled with -mavx2
// -mfma, no AVX-512 instruction), equal to the reference engine bit for bit on every path.
//
// Why one FMA per pair element is the reference's pair step: a BF16 x BF16 product has 16 significant bits, so
// vfmadd231ps computes acc + a*b exactly and rounds once (RNE), which is dpbf16_pair's definition
// (engine/dpbf16.hpp: exact product, one rounding, then FTZ; BF16 subnormals read as zero). The order per output
// element is the reference's: k-chunks of 32 outer, the group's products inner, pairs in order, odd element first.
//
// DAZ: MXCSR.DAZ is set for the call (restored on return) where a BF16 subnormal input (an FP32 subnormal after
// widening) or a subnormal accumulator start value exists, so they read as signed zero, like daz_bf16() and
// ftz(acc); where none exists DAZ cannot act. FTZ and the rounding mode are cleared to the default for the call if
// the caller changed them. FTZ of results: every value in the computation is a multiple of
// G = min over the group's products of lsb(A_i) lsb(B_j) and of the start values' lsbs (rounding to FP32 keeps
// that: a grid at least G apart keeps multiples of G; a finer one holds them exactly). If G >= 2^-126 no nonzero
// result is below the normal range, so flushing can never act and the plain FMA loop is exact (fast path: the
// FP64 path's slices always qualify, lsb >= 2^-60; so does ordinary FP32 data). Otherwise (slow path: the paper's
// unscaled tiny slices, data spanning more than ~100 binades) each FMA is followed by an explicit flush of the
// rounded result, exactly ftz(). A scan of the exponents, done while the panels are converted, picks the path.
//
// Conversion: per call, every used B slice panel is widened to FP32 once into per-thread scratch (A panels too,
// unless the previous call of the same GEMM region converted the same panel: same pointer and the same nonzero
// a_generation, engine/engine.hpp), in the order the loop consumes it (A rows
// with each pair swapped to odd, even; B pair-rows split into an odd row and an even row of 32 columns). The loop is
// then an SGEMM micro-kernel over that k sequence: blocks of 6 rows x 16 columns (12 ymm accumulators, 2 B loads and 6
// broadcasts per 12 FMAs; two FMA pipes of 4 cycles' latency need at least 8 independent chains) for rows 0..29, and 2
// rows x 32 columns (8 chains) for rows 30..31.
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>

#include "engine/avx2/kernel_avx2.hpp"

namespace bf16x::engine::avx2 {
namespace {

using pack::kBPairStride;
using pack::kKChunk;
using pack::kMaxSlices;
using pack::kPair;
using pack::kTileM;
using pack::kTileN;

static_assert(kTileN == 32 && kTileM == 32 && kBPairStride == 64, "the blocking below assumes 32x32 micro-tiles");
static_assert(kKChunk % 16 == 0, "A rows are converted 16 elements at a time");

constexpr std::size_t kPanelFloats = std::size_t(kTileM) * pack::kBlockK;  // = kTileN * kBlockK
constexpr unsigned kMxcsrDaz = 1u << 6, kMxcsrFtz = 1u << 15, kMxcsrRc = 3u << 13;
constexpr unsigned kNoNormal = 512;  // "exponent" of a panel without normal values: never limits G

// What a panel holds: the smallest biased exponent of a nonzero normal value (kNoNormal if none) and whether any
// value is a BF16 subnormal (then the call needs MXCSR.DAZ).
struct PanelScan {
  unsigned exp = kNoNormal;
  bool subnormal = false;
};

// FP32 panels of the current call, one per slice and side; 64-byte aligned, allocated on a thread's first call
// (heap, not static TLS: the library may be dlopen'ed). An A panel converted for one call serves the next calls on
// the same A micro-panel (the block loop runs all column tiles of a row tile in a row) while the driver names its
// contents the same (a_src, a_generation: engine/engine.hpp); the address alone does not, since the driver's
// double-buffered steps repack the same buffers inside one GEMM region.
struct Scratch {
  float* a = nullptr;
  float* b = nullptr;
  bool in_region = false;                // between thread_begin and thread_end
  const bf16_t* a_src[kMaxSlices] = {};  // panel converted into slice s of `a`, valid while in_region
  std::uint64_t a_gen[kMaxSlices] = {};  // its a_generation (nonzero)
  int a_kb[kMaxSlices] = {};             //
  PanelScan a_scan[kMaxSlices] = {};     // its scan result
  void forget() {
    for (int s = 0; s < kMaxSlices; ++s) a_src[s] = nullptr;
  }
  bool holds(int s, const MicroTileArgs& args) const {
    return in_region && args.a_generation != 0 && a_src[s] == args.a[s] && a_gen[s] == args.a_generation &&
           a_kb[s] == args.kb;
  }
  // A failed allocation leaves the pointers null: the kernel then runs the reference engine's loop, which gives
  // the same bits without scratch (no abort inside the library).
  Scratch() {
    a = static_cast<float*>(std::aligned_alloc(64, kMaxSlices * kPanelFloats * sizeof(float)));
    b = static_cast<float*>(std::aligned_alloc(64, kMaxSlices * kPanelFloats * sizeof(float)));
    if (!a || !b) {
      std::free(a);
      std::free(b);
      a = b = nullptr;
    }
  }
  ~Scratch() {
    std::free(a);
    std::free(b);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Running minima over 16-bit BF16 lanes. exp: (exponent field << 7) - 0x80, where exponent 0 (zero, subnormal:
// read as zero) wraps to 0xff80 and never wins. mag: |x| - 1, where zero wraps to 0xffff; a subnormal gives less
// than 0x7f.
struct Scanner {
  __m256i exp = _mm256_set1_epi16(-1), mag = _mm256_set1_epi16(-1);
  void add(__m256i x) {
    const __m256i e = _mm256_and_si256(x, _mm256_set1_epi16(0x7f80));
    exp = _mm256_min_epu16(exp, _mm256_sub_epi16(e, _mm256_set1_epi16(0x80)));
    const __m256i m = _mm256_and_si256(x, _mm256_set1_epi16(0x7fff));
    mag = _mm256_min_epu16(mag, _mm256_sub_epi16(m, _mm256_set1_epi16(1)));
  }
  static unsigned min16(__m256i v) {
    const __m128i m = _mm_minpos_epu16(_mm_min_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
    return unsigned(_mm_cvtsi128_si32(m)) & 0xffffu;
  }
  PanelScan result() const { return {(min16(exp) + 0x80u) >> 7, min16(mag) < 0x7fu}; }
};

// A micro-panel (32 rows x kb BF16, row stride kb) -> FP32, same shape, each pair swapped to (odd, even).
PanelScan convert_a(const bf16_t* src, float* dst, int kb) {
  // Per 128-bit lane: dword i <- (bf16 element i^1) << 16; lane 0 takes elements 0..3, lane 1 elements 4..7 of
  // the 8 broadcast to both lanes.
  const __m256i ctl = _mm256_setr_epi8(-128, -128, 2, 3, -128, -128, 0, 1, -128, -128, 6, 7, -128, -128, 4, 5,  //
                                       -128, -128, 10, 11, -128, -128, 8, 9, -128, -128, 14, 15, -128, -128, 12, 13);
  Scanner sc;
  const std::int64_t n = std::int64_t(kTileM) * kb;
  for (std::int64_t i = 0; i < n; i += 16) {
    sc.add(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    const __m256i lo = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    const __m256i hi = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 8)));
    _mm256_store_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_shuffle_epi8(lo, ctl));
    _mm256_store_si256(reinterpret_cast<__m256i*>(dst + i + 8), _mm256_shuffle_epi8(hi, ctl));
  }
  return sc.result();
}

// B micro-panel (kb/2 pair-rows of 32 (even, odd) pairs) -> FP32 rows of 32: row 2q the odd elements of pair-row
// q, row 2q+1 the even ones.
PanelScan convert_b(const bf16_t* src, float* dst, int kb) {
  const __m256i hi_mask = _mm256_set1_epi32(int(0xffff0000u));
  Scanner sc;
  for (int q = 0; q < kb / kPair; ++q) {
    const bf16_t* s = src + std::int64_t(q) * kBPairStride;
    float* odd = dst + std::int64_t(2 * q) * kTileN;
    float* even = odd + kTileN;
    for (int c = 0; c < kTileN; c += 8) {
      const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c * kPair));
      sc.add(d);
      _mm256_store_si256(reinterpret_cast<__m256i*>(odd + c), _mm256_and_si256(d, hi_mask));
      _mm256_store_si256(reinterpret_cast<__m256i*>(even + c), _mm256_slli_epi32(d, 16));
    }
  }
  return sc.result();
}

// ftz() on 8 lanes: |x| < 2^-126 -> signed zero (NaN and Inf compare false and stay).
inline __m256 flush(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 tiny = _mm256_cmp_ps(_mm256_andnot_ps(sign, x), _mm256_set1_ps(0x1p-126f), _CMP_LT_OQ);
  return _mm256_andnot_ps(_mm256_andnot_ps(sign, tiny), x);
}

struct Panels {
  const float* a[kMaxSlices];
  const float* b[kMaxSlices];
};

// Rows r0..r0+R-1, columns c0..c0+8V-1 of one group: the FMA sequence of every element in the reference's order.
template <int R, int V, bool Flush>
inline void block(const Panels& pn, const MicroTileArgs& args, const ProductGroup& grp, int r0, int c0, float* out) {
  const int kb = args.kb, ldo = args.ldo;
  __m256 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) {
      const float* o = out + std::int64_t(r0 + r) * ldo + c0 + 8 * v;
      // A subnormal start value is read as zero by the first FMA (DAZ), as the reference's ftz(acc) does.
      acc[r][v] = args.accumulate ? _mm256_loadu_ps(o) : _mm256_setzero_ps();
    }
  const int steps = (kb / kKChunk) * grp.count;
  for (int st = 0, kc = 0, p = 0; st < steps; ++st) {
    const float* a = pn.a[grp.products[p].a] + std::int64_t(r0) * kb + kc;
    const float* b = pn.b[grp.products[p].b] + std::int64_t(kc) * kTileN + c0;
    if (++p == grp.count) {
      p = 0;
      kc += kKChunk;
    }
#pragma GCC unroll 32
    for (int j = 0; j < kKChunk; ++j) {
      __m256 bv[V];
      for (int v = 0; v < V; ++v) bv[v] = _mm256_load_ps(b + j * kTileN + 8 * v);
      for (int r = 0; r < R; ++r) {
        const __m256 av = _mm256_broadcast_ss(a + std::int64_t(r) * kb + j);
        for (int v = 0; v < V; ++v) {
          acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
          if (Flush) acc[r][v] = flush(acc[r][v]);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) _mm256_storeu_ps(out + std::int64_t(r0 + r) * ldo + c0 + 8 * v, acc[r][v]);
}

// Rows r0..r0+nr-1, columns c0..c0+nc-1 of out set to +0.
inline void zero_block(float* out, int ldo, int r0, int nr, int c0, int nc) {
  for (int r = r0; r < r0 + nr; ++r)
    for (int c = c0; c < c0 + nc; c += 8) _mm256_storeu_ps(out + std::int64_t(r) * ldo + c, _mm256_setzero_ps());
}

struct GroupCheck {
  bool normal_grid;      // no value of the accumulation can fall below the normal range (header comment)
  bool start_subnormal;  // a start value is an FP32 subnormal (read as zero: needs MXCSR.DAZ)
};

GroupCheck check_group(const MicroTileArgs& args, const ProductGroup& grp, const PanelScan* sa, const PanelScan* sb,
                       const float* out) {
  GroupCheck r{true, false};
  // lsb(a) = 2^(e_a - 127 - 7) for a normal BF16 of biased exponent e_a: G >= 2^-126 <=> e_a + e_b >= 142.
  for (int p = 0; p < grp.count; ++p)
    if (sa[grp.products[p].a].exp + sb[grp.products[p].b].exp < 142) r.normal_grid = false;
  if (!args.accumulate) return r;
  // A normal FP32 start value has lsb 2^(e - 150): it must be >= 2^-126, i.e. e >= 24 (e = 0 reads as zero).
  __m256i small = _mm256_setzero_si256(), subn = _mm256_setzero_si256();
  const __m256i emask = _mm256_set1_epi32(0x7f800000), abs = _mm256_set1_epi32(0x7fffffff);
  const __m256i zero = _mm256_setzero_si256(), lim = _mm256_set1_epi32(24 << 23),
                min_normal = _mm256_set1_epi32(1 << 23);
  for (int r0 = 0; r0 < kTileM; ++r0)
    for (int c = 0; c < kTileN; c += 8) {
      const __m256i x = _mm256_castps_si256(_mm256_loadu_ps(out + std::int64_t(r0) * args.ldo + c));
      // The masked values are nonnegative as int32. 0 < field < 24: a small normal; field 0, nonzero: subnormal.
      const __m256i e = _mm256_and_si256(x, emask), m = _mm256_and_si256(x, abs);
      small = _mm256_or_si256(small, _mm256_and_si256(_mm256_cmpgt_epi32(e, zero), _mm256_cmpgt_epi32(lim, e)));
      subn = _mm256_or_si256(subn, _mm256_and_si256(_mm256_cmpgt_epi32(m, zero), _mm256_cmpgt_epi32(min_normal, m)));
    }
  if (!_mm256_testz_si256(small, small)) r.normal_grid = false;
  r.start_subnormal = !_mm256_testz_si256(subn, subn);
  return r;
}

}  // namespace

void thread_begin() {
  Scratch& s = scratch();
  s.forget();
  s.in_region = true;
}

void thread_end() {
  Scratch& s = scratch();
  s.forget();
  s.in_region = false;
}

void kernel_avx2_32x32(const MicroTileArgs& args) {
  Scratch& s = scratch();
  if (!s.a) return kernel_reference(args);
  const int kb = args.kb;
  // Convert each slice that a product uses, once.
  bool used_a[kMaxSlices] = {}, used_b[kMaxSlices] = {};
  for (int g = 0; g < args.ngroups; ++g)
    for (int p = 0; p < args.groups[g].count; ++p) {
      used_a[args.groups[g].products[p].a] = true;
      used_b[args.groups[g].products[p].b] = true;
    }
  Panels pn{};
  PanelScan sa[kMaxSlices], sb[kMaxSlices];
  bool subnormal_inputs = false;
  for (int i = 0; i < kMaxSlices; ++i) {
    float* da = s.a + std::size_t(i) * kPanelFloats;
    float* db = s.b + std::size_t(i) * kPanelFloats;
    pn.a[i] = da;
    pn.b[i] = db;
    if (used_a[i]) {
      if (!s.holds(i, args)) {
        s.a_scan[i] = convert_a(args.a[i], da, kb);
        s.a_src[i] = s.in_region && args.a_generation != 0 ? args.a[i] : nullptr;
        s.a_gen[i] = args.a_generation;
        s.a_kb[i] = kb;
      }
      sa[i] = s.a_scan[i];
    }
    if (used_b[i]) sb[i] = convert_b(args.b[i], db, kb);
    subnormal_inputs |= sa[i].subnormal || sb[i].subnormal;
  }

  // MXCSR is written only when it must change (LDMXCSR costs about 8% of a one-product call): DAZ where a subnormal
  // input or start value exists, and the default FTZ = 0 and round-to-nearest where the caller changed them.
  const unsigned mxcsr = _mm_getcsr();
  const unsigned want = (mxcsr & ~(kMxcsrFtz | kMxcsrRc)) | kMxcsrDaz;
  bool csr_set = false;
  auto set_csr = [&] {
    if (!csr_set && want != mxcsr) _mm_setcsr(want);
    csr_set = true;
  };
  if (subnormal_inputs || (mxcsr & (kMxcsrFtz | kMxcsrRc))) set_csr();
  for (int g = 0; g < args.ngroups; ++g) {
    const ProductGroup& grp = args.groups[g];
    float* out = args.out[g];
    const GroupCheck chk = check_group(args, grp, sa, sb, out);
    if (chk.start_subnormal) set_csr();
    // Blocks wholly in the zero padding (rows >= args.rows or columns >= args.cols) are +0 without their FMAs
    // (engine/engine.hpp); with `accumulate` every block runs.
    const int rows = args.accumulate ? kTileM : args.rows, cols = args.accumulate ? kTileN : args.cols;
    const auto run = [&](auto blk, int r0, int nr, int c0, int nc) {
      if (r0 < rows && c0 < cols)
        blk(r0, c0);
      else
        zero_block(out, args.ldo, r0, nr, c0, nc);
    };
    if (chk.normal_grid) {
      for (int c0 = 0; c0 < kTileN; c0 += 16)
        for (int r0 = 0; r0 < 30; r0 += 6)
          run([&](int r, int c) { block<6, 2, false>(pn, args, grp, r, c, out); }, r0, 6, c0, 16);
      run([&](int r, int c) { block<2, 4, false>(pn, args, grp, r, c, out); }, 30, 2, 0, 32);
    } else {
      for (int c0 = 0; c0 < kTileN; c0 += 16)
        for (int r0 = 0; r0 < kTileM; r0 += 4)
          run([&](int r, int c) { block<4, 2, true>(pn, args, grp, r, c, out); }, r0, 4, c0, 16);
    }
    if (args.counters) args.counters->add_group(kb, grp.count, kKChunk);  // in AMX units
  }
  if (csr_set && want != mxcsr) _mm_setcsr(mxcsr);
  if (args.counters) ++args.counters->micro_tiles;
}

}  // namespace bf16x::engine::avx2
