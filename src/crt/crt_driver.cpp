#include "crt/crt_driver.hpp"

#include <emmintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>

#include "cpu/caches.hpp"
#include "crt/crt_ops.hpp"
#include "crt/digit_product.hpp"
#include "crt/direct_products.hpp"
#include "crt/moduli.hpp"
#include "pack/panels.hpp"
#include "util/align.hpp"
#include "util/clock.hpp"
#include "util/phase_times.hpp"
#include "util/pow2.hpp"
#include "util/team.hpp"
#include "util/workspace.hpp"

namespace bf16x::crt {
namespace {

constexpr int kDefaultBlock = 512;  // mc, nc
// One k-block up to k = 2048: each k-block reads and writes all N int32 accumulator blocks (N MiB per thread at
// 512 x 512) and, past the first, needs the block's A residues of another k range, so fewer, longer k-blocks save
// that traffic (n = 2048: residues and packing -28%, the scan's bound loads -40%); the packed panels are 64 KiB each.
constexpr int kDefaultBlockK = 2048;
// The operand caches (operand_caches) take at most this, or the per-thread panels they replace where those are more;
// so do the A panels that the threads keep along a block row for all its k-blocks (kept_kblocks).
constexpr std::size_t kCacheBudget = std::size_t(64) << 20;

std::int64_t round_up(std::int64_t x, std::int64_t r) { return (x + r - 1) / r * r; }
// The 32-line panels that cover `extent` lines.
std::int64_t panel_count(std::int64_t extent) { return round_up(extent, kTile) / kTile; }

using util::pow2;

// ceil(log2 h) for h >= 1 (an integer-valued double).
int ceil_log2(double h) {
  int e;
  const double f = std::frexp(h, &e);  // h = f 2^e, f in [0.5, 1)
  return f == 0.5 ? e - 1 : e;
}

int floor_div2(int x) { return x >= 0 ? x / 2 : -((-x + 1) / 2); }

// Line r, element l of a matrix read along lines: contig ? p[l + r ld] : p[r + l ld]. Rows of op(A) are lines of
// (a, lda, ta); columns of op(B) are lines of (b, ldb, !tb).
template <typename T>
struct Lines {
  const T* p;
  std::int64_t ld;
  bool contig;
};

// ss[r] >= sum_l (x_rl f1_r f2_r)^2 (an upper bound of the squared 2-norm of each scaled line; f1 f2 = 2^(6 - e_r)
// puts the line's entries in [0, 64]): the sum rounded up by (len + 3) units of 2^-52, which covers the rounding
// of every square and addition and the squares lost below the normal range (the line's largest term is >= 2^10).
template <typename T>
void sum_squares(const Lines<T>& x, std::int64_t count, std::int64_t len, const double* f1, const double* f2,
                 double* ss) {
  const double up = 1.0 + double(len + 3) * 0x1p-52;
  if (x.contig) {
    // Eight lines side by side, each summed in its own order: eight chains of additions in flight instead of one
    // waiting on its last (the same sums, to the bit).
    constexpr std::int64_t kSide = 8;
    util::for_each_index((count + kSide - 1) / kSide, count * len, [&](std::int64_t group) {
      const std::int64_t r0 = group * kSide, side = std::min(kSide, count - r0);
      double s[kSide] = {};
      for (std::int64_t l = 0; l < len; ++l)
        for (std::int64_t q = 0; q < side; ++q) {
          const double v = double(x.p[(r0 + q) * x.ld + l]) * f1[r0 + q] * f2[r0 + q];
          s[q] += v * v;
        }
      for (std::int64_t q = 0; q < side; ++q) ss[r0 + q] = s[q] * up;
    });
  } else {
    constexpr std::int64_t kChunk = 512;
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
    util::for_each_index(chunks, count * len, [&](std::int64_t ch) {
      double s[kChunk] = {};
      const std::int64_t r0 = ch * kChunk, nr = std::min(kChunk, count - r0);
      for (std::int64_t l = 0; l < len; ++l) {
        const T* col = x.p + r0 + l * x.ld;
        for (std::int64_t r = 0; r < nr; ++r) {
          const double v = double(col[r]) * f1[r0 + r] * f2[r0 + r];
          s[r] += v * v;
        }
      }
      for (std::int64_t r = 0; r < nr; ++r) ss[r0 + r] = s[r] * up;
    });
  }
}

// yb[r * kcp + l] = f(line r0 + r, element l0 + l) for r < rows, l < kcp; zero past `len` (lines past `rows` are
// left as they are: the packers do not read them).
// digits: ceil(|x| 2^(6 - e_r)) in [0, 64]; else trunc(x 2^(s_r)) with the exact factors f1 f2 = 2^s_r.
template <typename T>
void load_lines(const Lines<T>& x, std::int64_t r0, int rows, std::int64_t l0, int len, int kcp, const double* f1,
                const double* f2, bool digits, double* yb) {
  const Scaled kind = digits ? Scaled::digits : Scaled::trunc;
  for (int r = 0; r < rows; ++r)
    for (int l = len; l < kcp; ++l) yb[r * kcp + l] = 0;
  if (x.contig) {
    for (int r = 0; r < rows; ++r) {
      const T* src = x.p + (r0 + r) * x.ld + l0;
      const double a = f1[r0 + r], b = f2[r0 + r];
      load_scaled(src, len, a, b, kind, yb + r * kcp);
    }
  } else {
    load_scaled_across(x.p + r0 + l0 * x.ld, x.ld, rows, len, f1 + r0, f2 + r0, kind, yb, kcp);
  }
}

struct ThreadSpace {
  std::int8_t* apack;  // N x (mc/32) A panels (none where the call's A cache holds them)
  std::int8_t* bpack;  // N x (nc/32) B panels (none where the call's B cache holds them)
  std::int32_t* acc;   // the bound pass's mc x nc sums; the products' N x mc x nc sums, or their residues (one k-block)
  double* yb;          // 32 x kc
  double* work;        // mc x nc (bound sums, then X)
  double* s12;         // 2 x nc
};

struct Layout {
  std::size_t apack, bpack, acc, yb, work, s12, total;
};

// Whether the call's k fits one k-block: its products then keep only their N byte residue planes and a column of
// int32 tiles (products_pass), not N int32 planes.
bool one_k_block(std::int64_t k, const Blocking& b) { return k <= b.kc; }

// Bytes of a thread's A panels for one k-block: every modulus plane of the block's mc / 32 panels.
std::size_t a_panels_bytes(int moduli, const Blocking& b) {
  return std::size_t(std::max(moduli, 1)) * std::size_t(b.mc / kTile) * a_panel_bytes(b.kc);
}

// The k-blocks of A panels a thread holds: all of them, so that it packs a block row's A once and not once per block,
// where they fit kCacheBudget over all threads; else one (k-blocks past the first packed again for each block).
std::int64_t kept_kblocks(int moduli, const Blocking& b, std::int64_t k) {
  const std::int64_t kb = (k + b.kc - 1) / b.kc;
  return kb > 1 && a_panels_bytes(moduli, b) * std::size_t(kb) * std::size_t(b.threads) <= kCacheBudget ? kb : 1;
}

// Whether a thread's A panels serve every block of its block row: one k-block, or all of them kept.
bool keeps_a(int moduli, const Blocking& b, std::int64_t k) {
  return kept_kblocks(moduli, b, k) == (k + b.kc - 1) / b.kc;
}

// Per thread, for depth k; without the panels of an operand the call caches.
Layout layout_of(int moduli, const Blocking& b, bool a_cached, bool b_cached, std::int64_t k) {
  const auto al = util::align64;
  Layout l;
  const std::size_t nm = std::size_t(std::max(moduli, 1)), plane = std::size_t(b.mc) * b.nc;
  l.apack = a_cached ? 0 : al(a_panels_bytes(moduli, b) * std::size_t(kept_kblocks(moduli, b, k)));
  l.bpack = b_cached ? 0 : al(nm * (b.nc / kTile) * b_panel_bytes(b.kc));
  const std::size_t bound_sums = plane * sizeof(std::int32_t);
  l.acc = al(one_k_block(k, b) ? std::max(bound_sums, nm * plane + std::size_t(b.mc) * kTile * sizeof(std::int32_t))
                               : nm * bound_sums);
  l.yb = al(std::size_t(kTile) * b.kc * sizeof(double));
  l.work = al(std::size_t(b.mc) * b.nc * sizeof(double));
  l.s12 = al(2 * std::size_t(b.nc) * sizeof(double));
  l.total = l.apack + l.bpack + l.acc + l.yb + l.work + l.s12;
  return l;
}

}  // namespace

// The operand caches: every 32-line panel of op(A) / op(B), for every k-block and modulus plane, packed once per
// pass and shared by all threads and blocks, instead of each block packing its own panels again (B once per block
// row, A once per block where a thread cannot keep it along a block row). Bytes of each, 0 where not used: within
// max(kCacheBudget, the per-thread panels they replace), B first (it is packed again more often).
struct Caches {
  std::size_t a = 0, b = 0;
};
Caches operand_caches(int moduli, std::int64_t m, std::int64_t n, std::int64_t k, const Blocking& b) {
  const std::size_t nm = std::size_t(std::max(moduli, 1)), kb = std::size_t((k + b.kc - 1) / b.kc);
  const std::size_t bb = util::align64(nm * kb * std::size_t(panel_count(n)) * b_panel_bytes(b.kc));
  const std::size_t ab = util::align64(nm * kb * std::size_t(panel_count(m)) * a_panel_bytes(b.kc));
  // The per-thread panels of one k-block (the A panels kept for more, kept_kblocks, are no part of the budget).
  const Layout all = layout_of(moduli, b, false, false, std::min<std::int64_t>(k, b.kc));
  const std::size_t budget = std::max(kCacheBudget, (all.apack + all.bpack) * std::size_t(b.threads));
  Caches c;
  if (bb <= budget) c.b = bb;
  if (c.b + ab <= budget) c.a = ab;
  return c;
}

double crt_packed_elements(int moduli, std::int64_t m, std::int64_t n, std::int64_t k, const Blocking& b) {
  const std::int64_t mb = (m + b.mc - 1) / b.mc, nb = (n + b.nc - 1) / b.nc;
  const bool keep_a = keeps_a(moduli, b, k) && mb % b.threads == 0;  // CrtCall::chunk: whole block rows per thread
  const Caches c = operand_caches(moduli, m, n, k, b);
  return double(k) * (double(m) * double(c.a || keep_a ? 1 : nb) + double(n) * double(c.b ? 1 : mb));
}

Blocking crt_blocking(std::int64_t m, std::int64_t n, std::int64_t k, const CrtConfig& cfg) {
  Blocking b;
  b.threads = cfg.threads > 0 ? cfg.threads : omp_get_max_threads();
  // Under 2^17 multiply-adds (about 50 us on one thread) a team's start and barriers (futex system calls, and a wait
  // for a core where a program's own BLAS threads spin) cost more than a second thread saves.
  if (double(m) * double(n) * double(k) < double(1 << 17)) b.threads = 1;
  b.kc = int(std::clamp<std::int64_t>(cfg.kc > 0 ? round_up(cfg.kc, kKChunk) : kDefaultBlockK, kKChunk, 2048));
  b.kc = int(std::min<std::int64_t>(b.kc, round_up(std::max<std::int64_t>(k, 1), kKChunk)));
  b.mc = int(std::min<std::int64_t>(cfg.mc > 0 ? round_up(cfg.mc, kTile) : kDefaultBlock, round_up(m, kTile)));
  b.nc = int(std::min<std::int64_t>(cfg.nc > 0 ? round_up(cfg.nc, kTile) : kDefaultBlock, round_up(n, kTile)));
  b.mc = std::clamp(b.mc, kTile, 1024);
  b.nc = std::clamp(b.nc, kTile, 1024);
  if (cfg.mc <= 0 && cfg.nc <= 0) {
    auto blocks = [&] { return ((m + b.mc - 1) / b.mc) * ((n + b.nc - 1) / b.nc); };
    while (blocks() < 2 * b.threads && (b.mc > 64 || b.nc > 64)) {
      if (b.mc >= b.nc)
        b.mc = int(round_up(b.mc / 2, kTile));
      else
        b.nc = int(round_up(b.nc / 2, kTile));
    }
  }
  return b;
}

// Whether a call takes the direct products (crt/direct_products.hpp): a tiny one of one block and one k-block.
bool direct_call(int moduli, std::int64_t m, std::int64_t n, std::int64_t k, const Blocking& b) {
  return direct_fits(m, n, k, moduli) && m <= b.mc && n <= b.nc && k <= b.kc;
}

std::size_t crt_workspace_bytes(int moduli, std::int64_t m, std::int64_t n, std::int64_t k, const Blocking& b) {
  const Caches c = operand_caches(moduli, m, n, k, b);
  return layout_of(moduli, b, c.a > 0, c.b > 0, k).total * std::size_t(b.threads) + c.a + c.b +
         (direct_call(moduli, m, n, k, b) ? DirectScratch::kBytes : 0);
}

namespace {

// One call's state, shared by its steps (prepare, bound_pass, choose_scales, products_pass).
// A piece of one of the call's two per-line buffers (CrtCall), used as the vector it replaces.
template <typename V>
struct Lane {
  V* p = nullptr;
  V* data() const { return p; }
  V& operator[](std::int64_t i) const { return p[i]; }
};

template <typename T>
struct CrtCall {
  const GemmArgs<T>& x;
  const CrtConfig& cfg;
  const CrtPlan& plan;
  const Blocking blk;
  const Lines<T> la, lb;
  const Caches cache;  // bytes of the call's operand caches; 0: the blocks pack that operand's panels
  const Layout lay;
  std::vector<int> ea, eb;  // the scan's (pack::scan_scales_*)
  // The other per-row and per-column values in two allocations per call, not one each (small calls: malloc/free).
  std::unique_ptr<double[]> dbuf;  // 4 m + 4 n (hrow, hcol zero)
  std::unique_ptr<int[]> ibuf;     // 3 m + 2 n
  Lane<int> sa, sb, oa, ob;
  Lane<double> fa1, fa2, fb1, fb2;  // the row / column factors: digits first, then 2^(s - e)
  Lane<double> hrow, hcol;          // bound GEMM maxima (or the fast scaling's norms)
  Lane<double> wfa, wfb;            // the write's factors (write_scales)
  Lane<int> wea;                    // the write's row exponents (oa + e_alpha; the columns' are ob)
  void* mem = nullptr;
  int mc, nc, kc;
  std::int64_t mb, nb, kb, nblocks;
  std::size_t ap_bytes, bp_bytes;
  bool keep_a;            // a thread's packed A panels (one k-block, or all kept) stay valid along a block row
  std::size_t a_kstride;  // bytes between the kept A panels of consecutive k-blocks (0: one set, packed again)
  int chunk;              // blocks handed out at a time (whole block rows where that keeps A packed once per thread)
  int max_s = 0;
  util::PhaseTimes ph;             // thread 0's seconds, all threads' bytes
  std::uint64_t dot_products = 0;  // TDPBSSD (16 x 16 x 64) equivalents

  CrtCall(const GemmArgs<T>& x_, const CrtConfig& cfg_)
      : x(x_),
        cfg(cfg_),
        plan(crt_plan(cfg_.moduli)),
        blk(crt_blocking(x_.m, x_.n, x_.k, cfg_)),
        la{x_.a.data, x_.a.ld, x_.a.trans},
        lb{x_.b.data, x_.b.ld, !x_.b.trans},
        cache(cfg_.operand_caches ? operand_caches(plan.n, x_.m, x_.n, x_.k, blk) : Caches{}),
        lay(layout_of(plan.n, blk, cache.a > 0, cache.b > 0, x_.k)),
        ea(std::size_t(x_.m)),
        eb(std::size_t(x_.n)),
        dbuf(new double[4 * std::size_t(x_.m) + 4 * std::size_t(x_.n)]),
        ibuf(new int[3 * std::size_t(x_.m) + 2 * std::size_t(x_.n)]),
        mc(blk.mc),
        nc(blk.nc),
        kc(blk.kc),
        mb((x_.m + blk.mc - 1) / blk.mc),
        nb((x_.n + blk.nc - 1) / blk.nc),
        kb((x_.k + blk.kc - 1) / blk.kc),
        nblocks(mb * nb),
        ap_bytes(a_panel_bytes(blk.kc)),
        bp_bytes(b_panel_bytes(blk.kc)),
        keep_a(keeps_a(plan.n, blk, x_.k)),
        a_kstride(kb > 1 && keep_a ? a_panels_bytes(plan.n, blk) : 0),
        chunk(keep_a && mb % blk.threads == 0 ? int(nb) : 1) {
    double* d = dbuf.get();
    for (Lane<double>* v : {&fa1, &fa2, &hrow, &wfa}) v->p = d, d += x_.m;
    for (Lane<double>* v : {&fb1, &fb2, &hcol, &wfb}) v->p = d, d += x_.n;
    std::fill(hrow.p, hrow.p + x_.m, 0.0);
    std::fill(hcol.p, hcol.p + x_.n, 0.0);
    int* e = ibuf.get();
    for (Lane<int>* v : {&sa, &oa, &wea}) v->p = e, e += x_.m;
    for (Lane<int>* v : {&sb, &ob}) v->p = e, e += x_.n;
  }

  ThreadSpace space_of(int tid) const {
    auto* base = static_cast<std::uint8_t*>(mem) + lay.total * std::size_t(tid);
    ThreadSpace s;
    s.apack = reinterpret_cast<std::int8_t*>(base);
    base += lay.apack;
    s.bpack = reinterpret_cast<std::int8_t*>(base);
    base += lay.bpack;
    s.acc = reinterpret_cast<std::int32_t*>(base);
    base += lay.acc;
    s.yb = reinterpret_cast<double*>(base);
    base += lay.yb;
    s.work = reinterpret_cast<double*>(base);
    base += lay.work;
    s.s12 = reinterpret_cast<double*>(base);
    return s;
  }

  // The caches, after the threads' workspaces (B, then A): the panels of k-block kk and modulus plane t (of
  // `planes`: N, or 1 for the bound pass's digits), panel p at p x the panel's bytes.
  std::int64_t panels(bool of_a) const { return panel_count(of_a ? x.m : x.n); }
  std::int8_t* cached(bool of_a, int planes, std::int64_t kk, int t) const {
    const std::size_t plane = std::size_t(panels(of_a)) * (of_a ? ap_bytes : bp_bytes);
    return static_cast<std::int8_t*>(mem) + lay.total * std::size_t(blk.threads) + (of_a ? cache.b : 0) +
           (std::size_t(kk) * std::size_t(planes) + std::size_t(t)) * plane;
  }

  // The b-th block handed out: row by row, a lower triangle's from the last block row up (its rows with the most
  // blocks first, so that the dynamic schedule ends with short rows). Any order gives the same bits.
  std::int64_t visit_order(std::int64_t b) const {
    return x.part == pack::OutputPart::lower ? (mb - 1 - b / nb) * nb + b % nb : b;
  }
  // Block b's origin and extent, and its extent in panels.
  Block block(std::int64_t b) const {
    const std::int64_t i0 = (b / nb) * mc, j0 = (b % nb) * nc;
    const int rows = int(std::min<std::int64_t>(mc, x.m - i0)), cols = int(std::min<std::int64_t>(nc, x.n - j0));
    return {i0, j0, rows, cols, int(panel_count(rows)), int(panel_count(cols))};
  }
  // The k-block kk: its first index, its length and that length padded to whole chunks.
  KBlock kblock(std::int64_t kk) const {
    const std::int64_t l0 = kk * kc;
    const int len = int(std::min<std::int64_t>(kc, x.k - l0));
    return {l0, len, int(round_up(len, kKChunk))};
  }
};

// Scan (exponents, NaN/Inf), the workspace, the digit factors 2^(6 - e); with the fast scaling, H from the
// 2-norms: (|A^||B^|)_ij <= ||A^_i.|| ||B^_.j|| (Cauchy-Schwarz), in the bound GEMM's units (4096 per product).
template <typename T>
DriverStatus prepare(CrtCall<T>& c, CrtConfig& cfg) {
  // Before anything runs: no engine instruction executes where its check fails (AMX: CPUID, XCR0, permission).
  if (!cfg.engine->available()) return DriverStatus::engine_unavailable;
  const std::int64_t m = c.x.m, n = c.x.n, k = c.x.k;
  util::PhaseClock clk(cfg.timed);
  c.ph.bytes_scan = std::uint64_t(m * k + k * n) * sizeof(T) * ((cfg.known ? 0 : 1) + (cfg.fast_scaling ? 1 : 0));
  // Exponent e of each line's largest magnitude (max in [2^(e-1), 2^e), 0 for a zero line), the slice modes' scan,
  // unless the caller's own read measured them.
  if (cfg.known) {
    c.ea.assign(cfg.known.a, cfg.known.a + m);
    c.eb.assign(cfg.known.b, cfg.known.b + n);
  } else if (pack::scan_scales_a(c.x.a, m, k, true, c.ea).nonfinite ||
             pack::scan_scales_b(c.x.b, k, n, true, c.eb).nonfinite) {
    return DriverStatus::nonfinite_input;
  }
  const std::size_t total = c.lay.total * std::size_t(c.blk.threads) + c.cache.a + c.cache.b +
                            (direct_call(c.plan.n, m, n, k, c.blk) ? DirectScratch::kBytes : 0);
  // The calling thread's workspace (util/workspace.hpp, shared with the slice driver), grown on demand: its size is
  // bounded by the block sizes, the moduli and the thread count, not by m, n or k.
  c.mem = util::thread_workspace().reserve(total);  // everything before C is touched
  if (!c.mem) return DriverStatus::no_memory;
  cfg.workspace_bytes = total;
  for (std::int64_t i = 0; i < m; ++i) util::pow2_pair(6 - c.ea[i], c.fa1[i], c.fa2[i]);
  for (std::int64_t j = 0; j < n; ++j) util::pow2_pair(6 - c.eb[j], c.fb1[j], c.fb2[j]);
  if (cfg.fast_scaling) {
    sum_squares(c.la, m, k, c.fa1.data(), c.fa2.data(), c.hrow.data());
    sum_squares(c.lb, n, k, c.fb1.data(), c.fb2.data(), c.hcol.data());
  }
  clk.lap(c.ph.scan);
  return DriverStatus::ok;
}

// One panel of up to kTile lines (op(A)'s rows or op(B)'s columns from line0) over the k-block [l0, l0 + len):
// scaled, and packed as digits (plan null) or as the plan's residue planes, `stride` bytes apart. Returns the bytes
// it moved.
template <typename T>
std::uint64_t pack_lines(const CrtCall<T>& c, bool of_a, std::int64_t line0, int lines, std::int64_t l0, int len,
                         int kcp, const CrtPlan* plan, int bits, std::int8_t* dst, std::size_t stride, double* yb,
                         bool stream = false) {
  if (of_a)
    load_lines(c.la, line0, lines, l0, len, kcp, c.fa1.data(), c.fa2.data(), plan == nullptr, yb);
  else
    load_lines(c.lb, line0, lines, l0, len, kcp, c.fb1.data(), c.fb2.data(), plan == nullptr, yb);
  pack_panel(of_a, c.cfg.engine->part != nullptr, yb, kcp, len, lines, plan, bits, dst, stride, stream);
  return std::uint64_t(lines) * len * sizeof(T) + std::uint64_t(plan ? plan->n : 1) * (of_a ? c.ap_bytes : c.bp_bytes);
}

// The most panels of lines across memory that pack_panels loads at once: 512 lines, 4 KiB of each FP64 run.
constexpr int kAcrossPanels = 16;

// The panels of `lines` lines of op(A) (of_a) or op(B) from line0 (panel p of them at dst + p x the panel's bytes)
// over the k-block [l0, l0 + len), each as pack_lines packs it. Where the lines run across memory (op(A) of an
// untransposed column-major A, op(B) of a transposed one), each 64-k chunk of up to kAcrossPanels panels is loaded at
// once, then packed panel by panel (an A panel's row sums carried over the chunks): the operand is read in runs of up
// to 4 KiB instead of runs of 256 bytes per panel, the next one a whole panel's work later, which the prefetchers
// follow poorly (such reads took 2-3 times as long as the same bytes in long runs). The same bytes either way.
// Returns the bytes it moved.
template <typename T>
std::uint64_t pack_panels(const CrtCall<T>& c, bool of_a, std::int64_t line0, int lines, std::int64_t l0, int len,
                          int kcp, const CrtPlan* plan, int bits, std::int8_t* dst, std::size_t stride, double* yb,
                          bool stream = false) {
  const Lines<T>& x = of_a ? c.la : c.lb;
  const std::size_t pb = of_a ? c.ap_bytes : c.bp_bytes;
  std::uint64_t bytes = 0;
  if (x.contig || lines <= kTile) {
    for (int p = 0; p * kTile < lines; ++p)
      bytes += pack_lines(c, of_a, line0 + p * kTile, std::min(kTile, lines - p * kTile), l0, len, kcp, plan, bits,
                          dst + std::size_t(p) * pb, stride, yb, stream);
    return bytes;
  }
  const bool live = c.cfg.engine->part != nullptr;
  const int planes = plan ? plan->n : 1;
  const Scaled kind = plan ? Scaled::trunc : Scaled::digits;
  const double* f1 = (of_a ? c.fa1 : c.fb1).data() + line0;
  const double* f2 = (of_a ? c.fa2 : c.fb2).data() + line0;
  const int group = std::clamp(c.kc / kKChunk, 1, kAcrossPanels) * kTile;  // yb (kTile x kc) holds group x kKChunk
  std::int32_t carry[kAcrossPanels][kMaxModuli * kTile];
  for (int g0 = 0; g0 < lines; g0 += group) {
    const int rows = std::min(group, lines - g0), np = int(panel_count(rows));
    std::int8_t* const first = dst + std::size_t(g0 / kTile) * pb;
    for (int p = 0; p < np && of_a; ++p) std::fill_n(carry[p], planes * kTile, 0);
    for (int ch = 0; ch < kcp; ch += kKChunk) {
      const int w = std::clamp(len - ch, 0, kKChunk);
      if (w > 0)
        load_scaled_across(x.p + (line0 + g0) + (l0 + ch) * x.ld, x.ld, rows, w, f1 + g0, f2 + g0, kind, yb, kKChunk);
      for (int r = 0; r < rows && w < kKChunk; ++r) std::fill(yb + r * kKChunk + w, yb + (r + 1) * kKChunk, 0.0);
      for (int p = 0; p < np; ++p)  // the chunk's place in a panel: ch x kTile bytes on, A's and B's layouts alike
        pack_chunk(of_a, live, yb + p * kTile * kKChunk, w, std::min(kTile, rows - p * kTile), plan, bits,
                   first + std::size_t(p) * pb + std::size_t(ch) * kTile, stride, stream, of_a ? carry[p] : nullptr);
    }
    for (int p = 0; p < np && of_a; ++p) {  // the row sums after the panel's kcp, as pack_panel writes them
      const int put = live ? std::min(kTile, rows - p * kTile) : kTile;
      for (int t = 0; t < planes; ++t)
        std::copy_n(carry[p] + t * kTile, put,
                    reinterpret_cast<std::int32_t*>(first + std::size_t(p) * pb + std::size_t(t) * stride +
                                                    std::size_t(kcp) * kTile));
    }
  }
  return std::uint64_t(lines) * len * sizeof(T) + std::uint64_t(planes) * pb * panel_count(lines);
}

// A block's panels of one k-block that no operand cache holds: op(A)'s into apack (unless have_a: kept from the
// block before), op(B)'s into ws.bpack; digits (plan null) or the plan's residue planes, one block of panels apart.
// Returns the bytes it moved.
template <typename T>
std::uint64_t pack_block(const CrtCall<T>& c, const ThreadSpace& ws, const Block& b, const KBlock& kb,
                         std::int8_t* apack, bool have_a, const CrtPlan* plan, int bits) {
  const std::size_t a_plane = plan ? (c.mc / kTile) * c.ap_bytes : 0, b_plane = plan ? (c.nc / kTile) * c.bp_bytes : 0;
  std::uint64_t bytes = 0;
  if (!c.cache.a && !have_a)
    bytes += pack_panels(c, true, b.i0, b.rows, kb.l0, kb.len, kb.kcp, plan, bits, apack, a_plane, ws.yb);
  if (!c.cache.b)
    bytes += pack_panels(c, false, b.j0, b.cols, kb.l0, kb.len, kb.kcp, plan, bits, ws.bpack, b_plane, ws.yb);
  return bytes;
}

// Every panel of the cached operands into their caches (the plan's residues, or the digits where plan is null),
// the panels shared out among the threads of the enclosing parallel region, which all call it. Returns the bytes
// it moved.
template <typename T>
std::uint64_t fill_caches(const CrtCall<T>& c, const ThreadSpace& ws, const CrtPlan* plan, int bits) {
  const int planes = plan ? plan->n : 1;
  // A job takes g panels where the operand's lines run across memory (pack_panels), at least two jobs per thread.
  const auto per_job = [&](const Lines<T>& x, std::int64_t panels) {
    return x.contig ? 1 : std::clamp<std::int64_t>(panels / (2 * c.blk.threads), 1, kAcrossPanels);
  };
  const std::int64_t pa = c.cache.a ? c.panels(true) : 0, pb = c.cache.b ? c.panels(false) : 0;
  const std::int64_t ga = per_job(c.la, pa), gb = per_job(c.lb, pb);
  const std::int64_t na = (pa + ga - 1) / ga, nb = (pb + gb - 1) / gb, np = na + nb;
  // Caches larger than the L2 are read back from beyond it by the products: streaming stores spare the read of
  // each line before its write (crt_ops.hpp).
  const bool stream = c.cache.a + c.cache.b > cpu::cache_sizes().l2;
  std::uint64_t bytes = 0;
  // Jobs of unequal size (A's groups of panels first): handed out one at a time, not in equal shares of the count.
  util::share_loop(c.kb * np, util::Schedule::dynamic, 1, [&](std::int64_t job) {
    const std::int64_t kk = job / np;
    const auto [l0, len, kcp] = c.kblock(kk);
    const bool of_a = job % np < na;
    const std::int64_t g = of_a ? ga : gb, p = (of_a ? job % np : job % np - na) * g;  // the job's first panel
    const int lines = int(std::min<std::int64_t>(g * kTile, (of_a ? c.x.m : c.x.n) - p * kTile));
    const std::size_t bytes_of = of_a ? c.ap_bytes : c.bp_bytes;
    std::int8_t* dst = c.cached(of_a, planes, kk, 0) + std::size_t(p) * bytes_of;
    const std::size_t stride = plan ? std::size_t(c.panels(of_a)) * bytes_of : 0;
    bytes += pack_panels(c, of_a, p * kTile, lines, l0, len, kcp, plan, bits, dst, stride, ws.yb, stream);
    if (stream) _mm_sfence();  // streaming stores are weakly ordered: done before the loop's closing barrier
  });
  return bytes;
}

// One pass over the call's blocks on its team (util/team.hpp; the worksharing constructs are orphaned here): each
// thread fills its share of the operand caches (the plan's residues, or the digits where plan is null; counted in
// fill_phase and in fill_bytes), then takes blocks, keeping its A panels along a block row where it can (have_a):
// block(ws, blk, have_a, clk, ph, fill_bytes, sums...) does one. Thread 0's phases go to c.ph.
template <typename T, typename F, typename... Sums>
void over_blocks(CrtCall<T>& c, const CrtPlan* plan, int bits, double util::PhaseTimes::*fill_phase, F&& block,
                 std::uint64_t& fill_bytes, Sums&... sums) {
  const auto share = [&](std::uint64_t& fill, Sums&... mine) {
    const ThreadSpace ws = c.space_of(omp_get_thread_num());
    if (c.cfg.engine->thread_begin) c.cfg.engine->thread_begin();
    util::PhaseTimes ph;
    util::PhaseClock clk(c.cfg.timed && omp_get_thread_num() == 0);
    std::int64_t a_row = -1;  // block row whose A panels ws.apack holds (keep_a)
    if (c.cache.a || c.cache.b) {
      fill += fill_caches(c, ws, plan, bits);
      clk.lap(ph.*fill_phase);
    }
    util::share_loop(c.nblocks, util::Schedule::dynamic, c.chunk, [&](std::int64_t blkid) {
      const Block blk = c.block(c.visit_order(blkid));
      if (!block_in_part(c.x.part, blk.i0, blk.rows, blk.j0, blk.cols)) return;
      const bool have_a = c.keep_a && a_row == blk.i0;
      a_row = blk.i0;
      block(ws, blk, have_a, clk, ph, fill, mine...);
    });
    // The wait at the loop's barrier for the other threads' blocks: their products, mostly. Thread 0's phases then
    // cover the whole pass, also where the dynamic schedule left it few blocks or none.
    clk.lap(ph.products);
    if (c.cfg.engine->thread_end) c.cfg.engine->thread_end();  // TILERELEASE: no tile state outlives the region
    if (omp_get_thread_num() == 0) c.ph.add(ph);
  };
  util::on_team(c.blk.threads, share, fill_bytes, sums...);
}

// A bound block's row and column maxima into hrow, hcol: from its FP64 sums in ws.work, or (sums_in_acc) from the
// int32 sums in the accumulator tiles, whose maxima are taken first (into work, unused then) and only they merged
// under the lock.
template <typename T>
void merge_maxima(CrtCall<T>& c, const ThreadSpace& ws, const Block& blk, bool sums_in_acc) {
  const auto [i0, j0, rows, cols, rp, cp] = blk;
  if (!sums_in_acc) {
#pragma omp critical(bf16x_crt_bound)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const double h = ws.work[std::size_t(i) * c.nc + j];
        c.hrow[i0 + i] = std::max(c.hrow[i0 + i], h);
        c.hcol[j0 + j] = std::max(c.hcol[j0 + j], h);
      }
    return;
  }
  auto* row_max = reinterpret_cast<std::int32_t*>(ws.work);
  std::int32_t* col_max = row_max + c.mc;
  maxima(ws.acc, std::size_t(c.nc), rows, cols, row_max, col_max);
#pragma omp critical(bf16x_crt_bound)
  {
    for (int i = 0; i < rows; ++i) c.hrow[i0 + i] = std::max(c.hrow[i0 + i], double(row_max[i]));
    for (int j = 0; j < cols; ++j) c.hcol[j0 + j] = std::max(c.hcol[j0 + j], double(col_max[j]));
  }
}

// A triangular call's bound entries outside its part set to zero (H >= 0: they no longer count in the maxima), so
// that each line's scale comes from its entries in the part alone, not from the rest of the tiles the edge cuts.
template <typename T>
void clear_outside_part(const CrtCall<T>& c, const ThreadSpace& ws, const Block& blk, bool in_acc) {
  for (int i = 0; i < blk.rows; ++i) {
    const pack::Span in = pack::row_in_part(c.x.part, blk.i0 + i, blk.j0, blk.cols);
    const int lo = int(std::clamp<std::int64_t>(in.lo - blk.j0, 0, blk.cols));
    const int hi = int(std::clamp<std::int64_t>(in.hi - blk.j0, lo, blk.cols));
    const std::size_t row = std::size_t(i) * c.nc;
    const auto clear = [&](auto* h) {
      std::fill(h + row, h + row + lo, 0);
      std::fill(h + row + hi, h + row + blk.cols, 0);
    };
    in_acc ? clear(ws.acc) : clear(ws.work);
  }
}

// One block of the bound GEMM (digit_product.hpp): its digit panels where no cache holds them, H = digits(A)
// digits(B) over every k-block, and its row and column maxima merged into hrow, hcol.
template <typename T>
void bound_block(CrtCall<T>& c, const ThreadSpace& ws, const TileRunner& kernel, const Block& blk, bool have_a,
                 std::int64_t fit, util::PhaseClock& clk, util::PhaseTimes& ph, std::uint64_t& tiles,
                 std::uint64_t& dots, std::uint64_t& bytes) {
  const auto panels = [&](std::int64_t kk) {
    const KBlock kb = c.kblock(kk);
    std::int8_t* apack = ws.apack + std::size_t(kk) * c.a_kstride;
    bytes += pack_block(c, ws, blk, kb, apack, have_a, nullptr, 0);
    const std::int8_t* a = c.cache.a ? c.cached(true, 1, kk, 0) + (blk.i0 / kTile) * c.ap_bytes : apack;
    const std::int8_t* b = c.cache.b ? c.cached(false, 1, kk, 0) + (blk.j0 / kTile) * c.bp_bytes : ws.bpack;
    return KPanels{a, b, c.ap_bytes, c.bp_bytes, kb};
  };
  const auto lap = [&](int step) {
    if (step == 0) clk.lap(ph.scan);
    if (step == 1) clk.lap(ph.products);
    if (step == 2) clk.lap(ph.products, ph.sums);  // exact sums outside the engine (bf16x_stats.seconds_sums)
  };
  const BlockSums h = block_product(kernel, blk, c.kb, fit, ws.acc, ws.work, c.nc, panels, lap, c.x.part, c.x.a_lower);
  tiles += h.tiles;
  dots += h.dots;
  if (c.x.part != pack::OutputPart::all) clear_outside_part(c, ws, blk, h.in_acc);
  merge_maxima(c, ws, blk, h.in_acc);
  clk.lap(ph.scan);
}

// The bound GEMM: H = digits(A) digits(B), its row and column maxima into hrow, hcol. Returns the micro-tiles.
template <typename T>
std::uint64_t bound_pass(CrtCall<T>& c) {
  const std::int64_t fit = kblocks_in_int32(64, c.kc);  // digits are <= 64
  const TileRunner kernel(*c.cfg.engine);
  std::uint64_t tiles = 0, dots = 0, bytes = 0;
  // The digit loads, packing and maxima count as the scan, the digit products as products.
  over_blocks(
      c, nullptr, 0, &util::PhaseTimes::scan,
      [&](const ThreadSpace& ws, const Block& blk, bool have_a, util::PhaseClock& clk, util::PhaseTimes& ph,
          std::uint64_t& bytes, std::uint64_t& tiles,
          std::uint64_t& dots) { bound_block(c, ws, kernel, blk, have_a, fit, clk, ph, tiles, dots, bytes); },
      bytes, tiles, dots);
  c.ph.bytes_scan += bytes;
  c.dot_products += dots;
  return tiles;
}

// The integer scales from the bound: s = floor((L - rho) / 2), rho = ceil(log2 max H) - 12; the factors 2^(s - e).
template <typename T>
void choose_scales(CrtCall<T>& c) {
  auto bits = [&](double h) { return h > 0 ? floor_div2(c.plan.L - (ceil_log2(h) - 12)) : 0; };
  for (std::int64_t i = 0; i < c.x.m; ++i) {
    c.sa[i] = bits(c.hrow[i]);
    util::pow2_pair(c.sa[i] - c.ea[i], c.fa1[i], c.fa2[i]);
    c.oa[i] = c.ea[i] - c.sa[i];
    c.max_s = std::max(c.max_s, c.sa[i]);
  }
  for (std::int64_t j = 0; j < c.x.n; ++j) {
    c.sb[j] = bits(c.hcol[j]);
    util::pow2_pair(c.sb[j] - c.eb[j], c.fb1[j], c.fb2[j]);
    c.ob[j] = c.eb[j] - c.sb[j];
    c.max_s = std::max(c.max_s, c.sb[j]);
  }
}

// C(i, j) = alpha 2^(oa_i + ob_j) X_ij + beta C(i, j), as the BF16 driver writes (driver/block_ops.hpp): alpha =
// m_alpha 2^e_alpha (m_alpha in [0.5, 1)) and its exponent joins the row scales, so the value is
// (m_alpha X) 2^(oa_i + e_alpha + ob_j) + beta C in FP64, rounded once to T. Only the result itself is rounded to
// the range of T: no 2^(oa + ob) X that overflows or underflows before alpha brings it back, no beta C in T. The
// factors 2^e are used where m_alpha X 2^e_row (|m_alpha X| in [2^-1, 2^L)) stays a normal double, so that the first
// product is exact and the second the one rounding (as ldexp's), else ldexp (crt_ops.hpp, write_scaled).
template <typename T>
WriteScales write_scales(CrtCall<T>& c) {
  const double alpha = double(c.x.alpha);
  int e_alpha = 0;
  const double m_alpha = std::isfinite(alpha) ? std::frexp(alpha, &e_alpha) : alpha;
  for (std::int64_t i = 0; i < c.x.m; ++i) {
    c.wea[i] = c.oa[i] + e_alpha;
    c.wfa[i] = c.wea[i] > -900 && c.wea[i] + c.plan.L + 2 < 1000 ? pow2(c.wea[i]) : 0.0;
  }
  for (std::int64_t j = 0; j < c.x.n; ++j) c.wfb[j] = c.ob[j] >= -1000 && c.ob[j] <= 1000 ? pow2(c.ob[j]) : 0.0;
  return WriteScales{m_alpha, double(c.x.beta), c.wfa.data(), c.wfb.data(), c.wea.data(), c.ob.data()};
}

// The N residue products of one block and one k-block, modulus by modulus: into the block's int32 planes in
// ws.acc, or (one_k: a single k-block) tile column by tile column into a small buffer after the residue planes,
// reduced into its plane at once (residue_rows).
template <typename T>
void residue_products(CrtCall<T>& c, const ThreadSpace& ws, const TileRunner& kernel, const Block& blk, std::int64_t kk,
                      const std::int8_t* apack, bool one_k, util::PhaseClock& clk, util::PhaseTimes& ph) {
  const CrtPlan& plan = c.plan;
  const int N = plan.n, mc = c.mc, nc = c.nc;
  const auto [i0, j0, rows, cols, rp, cp] = blk;
  const auto [l0, len, kcp] = c.kblock(kk);
  const std::size_t accn = std::size_t(mc) * nc;
  auto* res = reinterpret_cast<std::int8_t*>(ws.acc);
  auto* column = reinterpret_cast<std::int32_t*>(res + accn * std::size_t(N));  // one k-block: mc x 32
  for (int t = 0; t < N; ++t) {
    const std::int8_t* at = c.cache.a ? c.cached(true, N, kk, t) + (i0 / kTile) * c.ap_bytes
                                      : apack + std::size_t(t) * (mc / kTile) * c.ap_bytes;
    const std::int8_t* bt = c.cache.b ? c.cached(false, N, kk, t) + (j0 / kTile) * c.bp_bytes
                                      : ws.bpack + std::size_t(t) * (nc / kTile) * c.bp_bytes;
    std::int32_t* acct = ws.acc + accn * t;
    for (int jp = 0; jp < cp; ++jp) {
      for (int ip = 0; ip < rp; ++ip) {
        std::int32_t* tile = one_k ? column + ip * kTile * kTile : acct + ip * kTile * nc + jp * kTile;
        const int ld = one_k ? kTile : nc;
        const int tr = live_lines(rows, ip), tc = live_lines(cols, jp);
        // In cache for the kernel: no fill of all N blocks first. One k-block: only the live entries, the
        // only ones residue_rows reads; else the whole tile (reduce_mod runs over whole planes).
        if (kk == 0) one_k ? zero_tile(tile, ld, tr, tc) : zero_tile(tile, ld);
        const int depth = tile_depth(c.x.a_lower, blk, ip, KBlock{l0, len, kcp});
        if (depth > 0 && tile_in_part(c.x.part, blk, ip, jp))
          kernel(at + ip * c.ap_bytes, bt + jp * c.bp_bytes, kcp, depth, tile, ld, tr, tc);
      }
      if (one_k) {
        // A clock read costs about as much as a few thousand INT8 products: around small tile columns the
        // residues are timed with the products, not apart.
        const bool timed = std::int64_t(rows) * live_lines(cols, jp) * len >= (1 << 16);
        if (timed) clk.lap(ph.products);
        // Only the rows with entries of the part in this tile column (the others are neither reconstructed nor
        // written: reconstruct_block).
        const int tc = live_lines(cols, jp);
        const std::int64_t jf = j0 + std::int64_t(jp) * kTile;
        const int r0 = int(pack::col_in_part(c.x.part, jf, i0, rows).lo - i0);
        const int r1 = int(pack::col_in_part(c.x.part, jf + tc - 1, i0, rows).hi - i0);
        if (r0 < r1)
          residue_rows(column + std::size_t(r0) * kTile, kTile, r1 - r0, tc, plan, t,
                       res + accn * t + std::size_t(r0) * nc + jp * kTile, nc);
        if (timed) clk.lap(ph.write);
      }
    }
  }
}

// A block's C from its residues: the int32 planes reduced in place where there were several k-blocks, the CRT row
// by row into ws.work, then the scaled write (C(i, j) at c[i rs + j cs]: a row-major C is written in place).
template <typename T>
void reconstruct_block(CrtCall<T>& c, const ThreadSpace& ws, const Block& blk, bool one_k, const WriteScales& scales) {
  const CrtPlan& plan = c.plan;
  const int N = plan.n, nc = c.nc;
  const auto [i0, j0, rows, cols, rp, cp] = blk;
  const std::size_t accn = std::size_t(c.mc) * nc;
  auto* res = reinterpret_cast<std::int8_t*>(ws.acc);
  if (!one_k)  // in place, plane by plane and row by row (crt_ops.hpp)
    for (int t = 0; t < N; ++t) residue_rows(ws.acc + accn * t, nc, rows, cols, plan, t, res + accn * t, nc);
  const std::int64_t rs = c.x.c_row_major ? c.x.ldc : 1, cs = c.x.c_row_major ? 1 : c.x.ldc;
  WriteScales w = scales;
  w.f_row += i0, w.e_row += i0, w.f_col += j0, w.e_col += j0;
  // The entries [at, at + len) of the block's rows: the exact way for the guard's second level, else the vectorised.
  const auto crt_row = [&](std::size_t at, int len) {
    if (c.cfg.exact_reconstruction)
      reconstruct_row_exact(res + at, accn, len, plan, ws.work + at);
    else
      reconstruct_row(res + at, accn, len, plan, ws.s12, ws.s12 + nc, ws.work + at);
  };
  if (!pack::block_cut_by_part(c.x.part, i0, rows, j0, cols)) {
    for (int i = 0; i < rows; ++i) crt_row(std::size_t(i) * nc, cols);
    write_scaled(c.x.c + i0 * rs + j0 * cs, rs, cs, ws.work, nc, rows, cols, w);
    return;
  }
  for (int i = 0; i < rows; ++i) {  // a block the triangle's edge cuts: each row's entries in the part alone
    const pack::Span in = pack::row_in_part(c.x.part, i0 + i, j0, cols);
    if (in.lo >= in.hi) continue;
    const int j = int(in.lo - j0);
    const std::size_t at = std::size_t(i) * nc + std::size_t(j);
    crt_row(at, int(in.hi - in.lo));
    WriteScales r = w;
    r.f_row += i, r.e_row += i, r.f_col += j, r.e_col += j;
    write_scaled(c.x.c + (i0 + i) * rs + in.lo * cs, rs, cs, ws.work + std::size_t(i) * nc + j, nc, 1,
                 int(in.hi - in.lo), r);
  }
}

// The block's int32 planes (rp x cp tiles of each of the N moduli) reduced modulo their moduli (crt_ops.hpp).
template <typename T>
void reduce_planes(const CrtCall<T>& c, const ThreadSpace& ws, int rp, int cp) {
  for (int t = 0; t < c.plan.n; ++t)
    for (int i = 0; i < rp * kTile; ++i)
      reduce_mod(ws.acc + std::size_t(c.mc) * c.nc * t + std::size_t(i) * c.nc, cp * kTile, c.plan, t);
}

// One block of the products pass: its residue panels where no cache holds them, the N residue products of every
// k-block (the int32 planes reduced now and then to stay below 2^31), and its C from the residues.
template <typename T>
void product_block(CrtCall<T>& c, const ThreadSpace& ws, const TileRunner& kernel, const Block& blk, bool have_a,
                   const WriteScales& scales, util::PhaseClock& clk, util::PhaseTimes& ph, std::uint64_t& tiles,
                   std::uint64_t& dots, std::uint64_t& bytes_pack) {
  const int N = c.plan.n;
  const bool one_k = one_k_block(c.x.k, c.blk);  // as layout_of
  // k-blocks an int32 accumulator can take: residue products <= 2^14, and up to 2^7 left from the last reduction.
  const std::int64_t flush_res = std::max<std::int64_t>(1, ((1ll << 31) - 1 - 128) / (std::int64_t(c.kc) << 14));
  std::int64_t pending = 0;
  for (std::int64_t kk = 0; kk < c.kb; ++kk) {
    const KBlock kb = c.kblock(kk);
    std::int8_t* apack = ws.apack + std::size_t(kk) * c.a_kstride;
    clk.lap(ph.products);
    // c.max_s: |A'_il| < 2^s_i, |B'_lj| < 2^s_j, how the residues are formed (crt_loops_impl.hpp)
    bytes_pack += pack_block(c, ws, blk, kb, apack, have_a, &c.plan, c.max_s);
    clk.lap(ph.pack);
    residue_products(c, ws, kernel, blk, kk, apack, one_k, clk, ph);
    const TileWork work = tile_work(c.x.part, c.x.a_lower, blk, kb);
    tiles += work.tiles * N;
    dots += work.dots * N;
    if (!one_k && ++pending == flush_res) {
      clk.lap(ph.products);
      reduce_planes(c, ws, blk.rp, blk.cp);
      pending = 0;
      clk.lap(ph.products, ph.sums);
    }
  }
  clk.lap(ph.products);
  reconstruct_block(c, ws, blk, one_k, scales);
}

// A tiny call's bound pass and products (crt/direct_products.hpp): the same H maxima and X residues as the blocked
// passes, without the engine; then the same CRT and write. One block, one k-block.
template <typename T>
bool direct(const CrtCall<T>& c) {
  return c.x.part == pack::OutputPart::all && direct_call(c.plan.n, c.x.m, c.x.n, c.x.k, c.blk);
}
// Its scratch (after the threads' spaces and the caches), with op(A) and op(B) loaded in it: as the digits of the
// bound pass, or scaled by the chosen scales (the factors fa, fb hold either in turn).
template <typename T>
DirectScratch direct_operands(const CrtCall<T>& c, bool digits) {
  const DirectScratch s(static_cast<std::uint8_t*>(c.mem) + c.lay.total * std::size_t(c.blk.threads) + c.cache.a +
                        c.cache.b);
  const int k = int(c.x.k);
  load_lines(c.la, 0, int(c.x.m), 0, k, k, c.fa1.data(), c.fa2.data(), digits, s.a);
  load_lines(c.lb, 0, int(c.x.n), 0, k, k, c.fb1.data(), c.fb2.data(), digits, s.b);
  return s;
}

template <typename T>
void direct_bound(CrtCall<T>& c) {
  const DirectScratch s = direct_operands(c, true);
  digit_maxima(s.a, s.b, int(c.x.m), int(c.x.n), int(c.x.k), c.hrow.data(), c.hcol.data());
}

template <typename T>
void direct_products(CrtCall<T>& c) {
  const DirectScratch s = direct_operands(c, false);
  const ThreadSpace ws = c.space_of(0);
  const std::size_t plane = std::size_t(c.mc) * c.nc;  // the residue planes where the products pass leaves them
  direct_residues(s.a, s.b, int(c.x.m), int(c.x.n), int(c.x.k), c.plan, reinterpret_cast<std::int8_t*>(ws.acc), plane,
                  std::size_t(c.nc), s.x, s.ints);
  reconstruct_block(c, ws, c.block(0), true, write_scales(c));
}

// The N residue products per block, the CRT and the scaled write of C. Returns the micro-tiles.
// The CRT reads the block's residues: N byte planes at the start of ws.acc (plane t at t mc nc, row stride nc).
// - One k-block (k <= kc): each column of tiles of a modulus is summed in a small int32 buffer after the planes (mc
//   rows of 32, in the L2) and reduced into its plane at once: the block's int32 sums (N MiB at 512 x 512) are
//   never written to memory, nor zeroed there, nor read back.
// - More k-blocks: the N int32 planes of the block take every k-block's products, reduced now and then so that
//   they stay below 2^31, and at the end into the residue planes in place.
template <typename T>
std::uint64_t products_pass(CrtCall<T>& c) {
  const CrtPlan& plan = c.plan;
  const int N = plan.n;
  const TileRunner kernel(*c.cfg.engine);
  const bool one_k = one_k_block(c.x.k, c.blk);  // as layout_of
  const WriteScales scales = write_scales(c);
  const std::uint64_t c_bytes = sizeof(T) * (c.x.beta != T(0) ? 2 : 1);
  std::uint64_t tiles = 0, dots = 0, bytes_pack = 0, bytes_write = 0;
  over_blocks(
      c, &plan, c.max_s, &util::PhaseTimes::pack,
      [&](const ThreadSpace& ws, const Block& blk, bool have_a, util::PhaseClock& clk, util::PhaseTimes& ph,
          std::uint64_t& bytes_pack, std::uint64_t& tiles, std::uint64_t& dots, std::uint64_t& bytes_write) {
        product_block(c, ws, kernel, blk, have_a, scales, clk, ph, tiles, dots, bytes_pack);
        // The residue planes written and read, and before them (several k-blocks) the int32 planes read.
        bytes_write += std::uint64_t(blk.rows) * blk.cols * ((one_k ? 2 : 6) * std::uint64_t(N) + c_bytes);
        clk.lap(ph.write);
      },
      bytes_pack, tiles, dots, bytes_write);
  c.ph.bytes_pack += bytes_pack;
  c.ph.bytes_write += bytes_write;
  c.dot_products += dots;
  return tiles;
}

}  // namespace

template <typename T>
DriverStatus gemm_crt(const GemmArgs<T>& x, CrtConfig& cfg) {
  const double t0 = util::now_if(cfg.timed);
  CrtCall<T> c(x, cfg);
  if (const DriverStatus st = prepare(c, cfg); st != DriverStatus::ok) return st;
  const bool tiny = direct(c);
  std::uint64_t tiles = 0;
  if (!cfg.fast_scaling) {  // the bound pass (fast scaling has its H from the 2-norms already: prepare)
    if (tiny)
      direct_bound(c);
    else
      tiles = bound_pass(c);
  }
  choose_scales(c);
  const double t1 = util::now_if(cfg.timed);
  if (tiny)
    direct_products(c);
  else
    tiles += products_pass(c);
  cfg.micro_tiles = tiles;
  cfg.dot_products = c.dot_products;
  cfg.phases = c.ph;
  cfg.seconds_scale = t1 - t0;
  cfg.seconds_products = util::now_if(cfg.timed) - t1;
  if (cfg.scales)
    *cfg.scales = CrtScales{c.ea, c.eb, std::vector<int>(c.sa.p, c.sa.p + x.m), std::vector<int>(c.sb.p, c.sb.p + x.n)};
  return DriverStatus::ok;
}

template DriverStatus gemm_crt(const GemmArgs<float>&, CrtConfig&);
template DriverStatus gemm_crt(const GemmArgs<double>&, CrtConfig&);

}  // namespace bf16x::crt
