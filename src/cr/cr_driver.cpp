#include "cr/cr_driver.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <vector>

#include "cr/entry_rounding.hpp"
#include "cr/tile_sums.hpp"
#include "pack/line_scan.hpp"
#include "util/pow2.hpp"
#include "util/team.hpp"
#include "util/workspace.hpp"

namespace bf16x::cr {
namespace {

constexpr std::int64_t kChunk = 64;                          // column blocks are multiples of this (and of NR)
constexpr std::int64_t kBlockBytes = std::int64_t(8) << 20;  // packed op(B) per column block
constexpr std::int64_t kRows = kItemRows;                    // the rows of op(A) one work item packs and runs

std::int64_t block_cols(std::int64_t n, std::int64_t k) {
  const std::int64_t fit = std::max<std::int64_t>(1, kBlockBytes / (8 * std::max<std::int64_t>(k, 1)) / kChunk);
  return std::min(fit * kChunk, (n + kChunk - 1) / kChunk * kChunk);
}

// The scaling exponent of a line from its largest magnitude (as bits, pack/line_scan.hpp), kNonfinite for NaN/Inf:
// 2^-e brings the line's largest magnitude into [1, 2) (subnormal lines as near as the normal range allows).
constexpr int kNonfinite = 1 << 20;
template <typename T>
int line_exponent(pack::Bits<T> max_bits) {
  if (pack::nonfinite<T>(max_bits)) return kNonfinite;
  if (max_bits == 0) return 0;
  return std::clamp(std::ilogb(pack::magnitude<T>(max_bits)), -1022, 1022);
}

// Per line of a view (rows of op(A) where `rows`, else columns of op(B)): the exponent line_exponent gives, and
// whether the line is tame: its nonzero entries, scaled, lie above 2^-480, so that no product of two tame lines'
// entries underflows, and a tile's t = 0 there means that every product is exactly zero.
struct Lines {
  std::vector<int> exp;
  std::vector<unsigned char> tame;
};

// A call's Lines of op(A) and op(B) in the calling thread's vectors, kept from call to call (LAPACK's millions of
// small calls allocate nothing); those a large call grew are given back when it ends.
class CallLines {
 public:
  CallLines() : a(held()[0]), b(held()[1]) {}
  CallLines(const CallLines&) = delete;
  CallLines& operator=(const CallLines&) = delete;
  ~CallLines() {
    constexpr std::size_t kKept = 1 << 16;  // lines
    if (a.exp.capacity() + b.exp.capacity() > kKept) a = Lines{}, b = Lines{};
  }
  Lines& a;
  Lines& b;

 private:
  static Lines* held() {
    thread_local Lines lines[2];
    return lines;
  }
};

template <typename T>
void line_exponents(const pack::MatrixView<T>& v, bool rows, std::int64_t lines, std::int64_t len, Lines& out) {
  out.exp.resize(std::size_t(lines));
  out.tame.resize(std::size_t(lines));
  // the view's memory runs along a line: row of op(A) when transposed, column of op(B) when not
  const bool along = rows == v.trans;
  const std::int64_t sr = along ? v.ld : 1, sl = along ? 1 : v.ld;
  const auto take = [exp = out.exp.data(), tame = out.tame.data()](std::int64_t r, pack::Bits<T> hi, pack::Bits<T> lo) {
    const int e = line_exponent<T>(hi);
    exp[r] = e;
    tame[r] = e != kNonfinite && (hi == 0 || std::ilogb(pack::magnitude<T>(lo)) - e >= -480);
  };
  util::on_team(lines * len > util::kTeamElements ? omp_get_max_threads() : 1,
                [&] { pack::scan_lines(v.data, sr, sl, lines, len, true, take); });
}

// A panel's W lines side by side in memory (line w's element l at src[l * step + w], step != 1: rows of a column-major
// op(A), columns of a row-major op(B)): per l one contiguous run of W values, scaled, then their magnitudes.
template <int W, typename T>
void pack_adjacent(const T* src, const double* f, std::int64_t step, std::int64_t k, double* dst, bool with_abs) {
  const int stride = with_abs ? 2 * W : W;
  for (std::int64_t l = 0; l < k; ++l) {
    const T* s = src + l * step;
    double* d = dst + l * stride;
    for (int w = 0; w < W; ++w) d[w] = double(s[w]) * f[w];
    if (with_abs)
      for (int w = 0; w < W; ++w) d[W + w] = std::fabs(d[w]);
  }
}

// One panel of W lines (nullptr: a zero line) of length k, line w's element l at src[w][l * step], scaled by f[w]:
// per l the W values, then (with_abs) their magnitudes. Lines that run across memory (step != 1) are read in
// blocks of l, so that the W lines of one l share their cache line and the block's pages stay in the TLB; lines
// side by side (the usual case) in one pass.
template <typename T>
void pack_panel(const T* const* src, const double* f, int W, std::int64_t step, std::int64_t k, double* dst,
                bool with_abs) {
  bool adjacent = step != 1 && src[0];
  for (int w = 1; w < W && adjacent; ++w) adjacent = src[w] == src[0] + w;
  if (adjacent && W == 3) return pack_adjacent<3>(src[0], f, step, k, dst, with_abs);
  if (adjacent && W == 4) return pack_adjacent<4>(src[0], f, step, k, dst, with_abs);
  if (adjacent && W == 8) return pack_adjacent<8>(src[0], f, step, k, dst, with_abs);
  const int stride = with_abs ? 2 * W : W;
  constexpr std::int64_t kBlock = 64;
  for (std::int64_t l0 = 0; l0 < k; l0 += kBlock) {
    const std::int64_t l1 = std::min(k, l0 + kBlock);
    for (int w = 0; w < W; ++w) {
      for (std::int64_t l = l0; l < l1; ++l) {
        const double v = src[w] ? double(src[w][l * step]) * f[w] : 0.0;
        dst[l * stride + w] = v;
        if (with_abs) dst[l * stride + W + w] = std::fabs(v);
      }
    }
  }
}

}  // namespace

// Each thread's room for the extraction of undecided entries' exact values (cr/extract_sum.hpp: a row of a tile at
// once).
std::int64_t extract_room(std::int64_t k) { return 2 * k * kMaxLanes + 16; }

namespace {

// The workspace of a call of m x n entries as run_tiles runs it.
std::size_t tiles_workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, int threads) {
  const std::int64_t nc = block_cols(n, k);
  return std::size_t(8 * (k * nc + std::int64_t(threads) * (2 * kRows * k + extract_room(k) + 1)) + 4 * (m + n));
}

// Whether gemm_cr runs C^T = op(B)^T op(A)^T instead: C has fewer columns than a tile (and more rows).
bool runs_transposed(std::int64_t m, std::int64_t n, cpu::Level level) { return n < tile_kernels(level).nr && m > n; }

}  // namespace

std::size_t cr_workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, int threads, cpu::Level level) {
  return runs_transposed(m, n, level) ? tiles_workspace_bytes(n, m, k, threads)
                                      : tiles_workspace_bytes(m, n, k, threads);
}

namespace {

// The packed panels of one MR x NR tile (cr/tile_sums.hpp): row ii of the A panel, column jj of the B panel.
struct Panels {
  const double* a;
  const double* b;
  int mr, nr;
  PackedLine row(int ii) const { return {a + ii, 2 * mr}; }
  PackedLine col(int jj) const { return {b + jj, nr}; }
};

// The panels' memory in the calling thread's workspace (util/workspace.hpp), kept between calls: op(B)'s block of
// columns, then each thread's rows of op(A), then each thread's extraction room, then each thread's count of tiles
// still to skip the decision on (a residual run, gemm_cr; zero at the start of a call). Throws std::bad_alloc before
// anything is written.
struct Packs {
  double* b;
  double* a;
  double* room;
  std::int64_t room_size;
  int* skips;
  double* room_of(int thread) const { return room + std::int64_t(thread) * room_size; }
};
Packs reserve_packs(std::int64_t k, std::int64_t ncols, int threads) {
  const std::size_t nb = std::size_t(k * block_cols(ncols, k)), na = std::size_t(threads) * std::size_t(2 * kRows * k);
  const std::size_t nr = std::size_t(threads) * std::size_t(extract_room(k));
  // (one double per thread holds its int count)
  auto* mem = static_cast<double*>(util::thread_workspace().reserve(sizeof(double) * (nb + na + nr + threads)));
  if (!mem) throw std::bad_alloc();
  int* const skips = reinterpret_cast<int*>(mem + nb + na + nr);
  std::fill_n(skips, threads, 0);
  return {mem, mem + nb, mem + nb + na, extract_room(k), skips};
}

// The starts and scale factors of `count` lines from `first` of op(A)'s rows (of_a) or op(B)'s columns, for
// pack_panel: none and 0 past `limit` and for lines holding NaN/Inf (zeros in the panel). op(A)(i, l) is at
// data[i * ld + l] (transposed) or data[i + l * ld], op(B)(l, j) at data[j + l * ld] (transposed) or data[l + j * ld].
template <typename T>
void line_sources(const pack::MatrixView<T>& v, bool of_a, std::int64_t first, int count, std::int64_t limit,
                  const std::vector<int>& e, const T** src, double* f) {
  for (int t = 0; t < count; ++t) {
    const std::int64_t x = first + t;
    const bool live = x < limit && e[std::size_t(x)] != kNonfinite;
    f[t] = live ? util::pow2(-e[std::size_t(x)]) : 0;
    src[t] = live ? v.data + x * (of_a == v.trans ? v.ld : 1) : nullptr;
  }
}

// `panels` panels of `count` lines from `first` of op(A)'s rows (of_a: values and magnitudes) or op(B)'s columns,
// scaled (zeros past `limit` and in lines holding NaN/Inf), at out, one after another; shared: an orphaned
// worksharing loop where the caller's team runs it, else all of them.
template <typename T>
void pack_lines_of(const pack::MatrixView<T>& v, bool of_a, const std::vector<int>& e, std::int64_t first,
                   std::int64_t panels, int count, std::int64_t limit, std::int64_t k, double* out,
                   bool shared = true) {
  const std::int64_t step = std::int64_t(of_a ? 2 : 1) * count * k;
  const auto one = [&](std::int64_t p) {
    const T* src[kMaxTile];
    double f[kMaxTile];
    line_sources(v, of_a, first + p * count, count, limit, e, src, f);
    pack_panel(src, f, count, of_a == v.trans ? 1 : v.ld, k, out + p * step, of_a);
  };
  if (!shared) {
    for (std::int64_t p = 0; p < panels; ++p) one(p);
    return;
  }
#pragma omp for schedule(static)
  for (std::int64_t p = 0; p < panels; ++p) one(p);
}

// The tile sums of op(A) (m x k) times op(B) (k x ncols), both views finite where their line exponents say so
// (ea, eb: line_exponents), handed tile by tile to finish(i0, j0, s, c, t, panels), which rounds and writes the tile's
// entries (panels.mr x panels.nr, entry (ii, jj) at ii * nr + jj) and returns how many took the exact sum. Every
// entry is finished once, by one thread. Only the work items and tiles that hold entries of `part` run (a triangle
// of a square C: finish then writes only those entries), and a tile's sums stop where its rows of a lower-triangular
// op(A) do (the products past them are zero: the sums, bounds and decisions are those of the whole k).
template <typename T, typename Finish>
void run_tiles(std::int64_t m, std::int64_t ncols, std::int64_t k, const pack::MatrixView<T>& a,
               const pack::MatrixView<T>& b, const Lines& la, const Lines& lb, CrConfig& cfg, const Packs& packs,
               Finish&& finish, TileSums sums = nullptr, pack::OutputPart part = pack::OutputPart::all,
               pack::LowerOperand a_lower = {}) {
  double* const bpack = packs.b;
  double* const apack = packs.a;
  // One thread where the work does not repay a parallel region: below 2^17 multiply-adds (about 40 us on one
  // thread), where a program's own BLAS threads (OpenBLAS's, spinning between LAPACK's level-2 calls) make a team's
  // start and barriers wait for a core (docs/performance.md: LAPACK's tester at two threads).
  const int threads = double(m) * double(ncols) * double(k) < double(1 << 17) ? 1 : omp_get_max_threads();
  const std::int64_t nc = block_cols(ncols, k);
  const std::vector<int>&ea = la.exp, &eb = lb.exp;
  const TileKernels& kern = tile_kernels(cfg.level);
  if (!sums) sums = std::is_same_v<T, double> ? kern.dd : kern.plain;
  // A thread that skips its next tiles' decision (gemm_cr's residual runs) reads only their t: the magnitudes alone.
  const TileSums t_only = sums == kern.dd ? kern.magnitudes : nullptr;
  const int mr = kern.mr, nr = kern.nr;
  const std::int64_t row_panels = (m + mr - 1) / mr, items = (m + kRows - 1) / kRows;
  std::uint64_t exact = 0, tiles = 0;
  util::PhaseTimes first;  // thread 0's
  for (std::int64_t j0 = 0; j0 < ncols; j0 += nc) {
    const std::int64_t cols = std::min(nc, ncols - j0), col_panels = (cols + nr - 1) / nr;
    // Work items: a block of rows times a group of column panels; a skinny op(A) splits the columns too, so that
    // every thread has work (each group packs its rows again).
    const std::int64_t groups = std::clamp<std::int64_t>((4 * threads + items - 1) / items, 1, col_panels);
    // A thread's share: its worksharing constructs are orphaned here (util/team.hpp).
    const auto share = [&](std::uint64_t& my_exact, std::uint64_t& my_tiles) {
      util::PhaseClock lap(cfg.timed && omp_get_thread_num() == 0);  // two clock reads a tile: only when asked for
      util::PhaseTimes mine;
      pack_lines_of(b, false, eb, j0, col_panels, nr, ncols, k, bpack);  // shared out
      lap.lap(mine.pack);
      double* ap = apack + std::size_t(omp_get_thread_num()) * std::size_t(2 * kRows * k);
      double s[kMaxTile], c[kMaxTile], t[kMaxTile];
      util::share_loop(items * groups, util::Schedule::dynamic_nowait, 1, [&](std::int64_t item) {
        const std::int64_t r0 = item / groups * kRows, group = item % groups;
        const std::int64_t p0 = col_panels * group / groups, p1 = col_panels * (group + 1) / groups;
        if (!pack::block_in_part(part, r0, std::min(kRows, m - r0), j0 + p0 * nr, (p1 - p0) * nr)) return;
        // This item's rows, by this thread: the panels that hold some of them (the loop below runs those only).
        const std::int64_t live_panels = std::min<std::int64_t>(kRows / mr, (m - r0 + mr - 1) / mr);
        pack_lines_of(a, true, ea, r0, live_panels, mr, m, k, ap, false);
        lap.lap(mine.pack);
        for (std::int64_t panel = 0; panel < kRows / mr && r0 + panel * mr < m; ++panel)
          for (std::int64_t p = p0; p < p1; ++p) {
            if (!pack::block_in_part(part, r0 + panel * mr, mr, j0 + p * nr, nr)) continue;
            const bool skipping = t_only && packs.skips[omp_get_thread_num()] > 0;
            (skipping ? t_only : sums)(a_lower.reach(r0 + panel * mr, mr, k), ap + panel * 2 * mr * k,
                                       bpack + p * nr * k, s, c, t);
            ++my_tiles;
            lap.lap(mine.products);
            my_exact += finish(r0 + panel * mr, j0 + p * nr, s, c, t,
                               Panels{ap + panel * 2 * mr * k, bpack + p * nr * k, mr, nr});
            lap.lap(mine.write);
          }
      });
      if (omp_get_thread_num() == 0) first.add(mine);
    };
    util::on_team(threads, share, exact, tiles);
    cfg.phases.bytes_pack +=
        std::uint64_t(8) * std::uint64_t(k) * std::uint64_t(col_panels * nr + 2 * groups * row_panels * mr);
  }
  cfg.phases.add(first);  // thread 0's times (the bytes are added to cfg.phases directly)
  cfg.exact_entries += exact;
  cfg.micro_tiles += tiles;
}

// A tile's sums: entry (ii, jj) of its mr x nr at ii * nr + jj.
struct TileSumsView {
  const double *s, *c, *t;
  int mr, nr;
};

// The entries of the tile at (i0, j0) of a real GEMM's C that decide_rows settles (bits), their roundings in out:
// each entry's scale (kNonfinite where its line is not finite, and past the edges of C or its part: out of the
// range), its C term. A decided entry is therefore one of C's part with finite lines, a finite C term and t > 0
// (decide_rows leaves t = 0 to the entry decision).
template <typename T>
std::uint64_t decide_tile(DecideRows decide_rows, const pack::GemmArgs<T>& g, const std::vector<int>& ea,
                          const std::vector<int>& eb, std::int64_t i0, std::int64_t j0, const TileSumsView& v,
                          const Terms& terms, double* out) {
  static_assert(kNonfinite > 2 * 1022 + kScaleRange, "a non-finite line's scale is out of range, whatever the other's");
  int scale[kMaxTile];
  double c0[kMaxTile];
  const int rows = int(std::min<std::int64_t>(v.mr, g.m - i0)), cols = int(std::min<std::int64_t>(v.nr, g.n - j0));
  const std::int64_t rs = g.c_row_major ? g.ldc : 1, cs = g.c_row_major ? 1 : g.ldc;
  int sb[kMaxTile];
  for (int jj = 0; jj < v.nr; ++jj) sb[jj] = jj < cols ? eb[std::size_t(j0 + jj)] : kNonfinite;
  for (int ii = 0; ii < rows; ++ii) {  // the rows of C (decide_rows looks at no others)
    const std::int64_t i = i0 + ii;
    // the tile's columns [lo, hi) of C's part in this row
    const pack::Span span = pack::row_in_part(g.part, i, j0, cols);
    const int lo = int(std::clamp<std::int64_t>(span.lo - j0, 0, v.nr));
    const int hi = int(std::clamp<std::int64_t>(span.hi - j0, 0, v.nr)), sa = ea[std::size_t(i)];
    int* const row = scale + ii * v.nr;
    for (int jj = 0; jj < v.nr; ++jj) row[jj] = jj >= lo && jj < hi ? sa + sb[jj] : kNonfinite;
    double* const cr = c0 + ii * v.nr;
    std::fill(cr, cr + v.nr, 0.0);
    if (g.beta != T(0))  // C's part only (not read elsewhere); decide_rows takes c0 on the lanes it decides
      for (int jj = lo; jj < hi; ++jj) cr[jj] = double(g.c[i * rs + (j0 + jj) * cs]);
  }
  return decide_rows(rows, v.s, v.c, v.t, scale, c0, terms, out);
}

template <typename T>
auto decide_for(const TileKernels& kern, bool complex) {
  if constexpr (std::is_same_v<T, double>)
    return complex ? kern.decide2_d : kern.decide_d;
  else
    return complex ? kern.decide2_f : kern.decide_f;
}

// Every entry of op(X) (rows x cols) zero or of magnitude in [2^-480, 2^480] (FewProducts' range).
bool few_products_range(const pack::MatrixView<double>& x, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t l = 0; l < cols; ++l)
    for (std::int64_t i = 0; i < rows; ++i) {
      const double v = std::fabs(x(i, l));
      if (v != 0 && !(v >= 0x1p-480 && v <= 0x1p480)) return false;
    }
  return true;
}

// A real FP64 call with k <= kFewProducts, alpha = +-1 and beta in {0, +-1} (LAPACK's rank-1 updates and its
// blocks of NB = 2 to 4): each entry from its few products on the FMA units (TileKernels::rank_one, few_products),
// without the tiles' scan, packing and sums. At k = 1 one FMA rounds alpha a b + beta c0 once, so the FMA unit gives
// the correctly rounded entry, subnormal results included; an entry whose FMA gives zero goes to the exact sum,
// which tells fp64cr's exact zero (+0) from a value that rounds to zero (its sign); NaN and Inf to the entry rules of
// the tiles (docs/numerics.md "Specials"). Above, where every a and b lies in FewProducts' range, each entry is the
// rounding of its error-free sum where that decides it, else of the exact sum (C's NaN and Inf as the tiles take
// them). A lower operand's skipped products are its zeros. False: the call is not of this kind.
template <typename T>
bool few_products_by_fma(const pack::GemmArgs<T>& g, const TileKernels& kern, CrConfig& cfg) {
  if constexpr (!std::is_same_v<T, double>) {
    return false;
  } else {
    const double alpha = g.alpha, beta = g.beta;
    const std::int64_t k = g.k;
    if (k < 1 || k > kFewProducts || std::fabs(alpha) != 1 || !(beta == 0 || std::fabs(beta) == 1)) return false;
    if (k > 1 && (!few_products_range(g.a, g.m, k) || !few_products_range(g.b, k, g.n))) return false;
    const Terms terms{{alpha, 0}, {beta, 0}, k, true};
    const std::int64_t rs = g.c_row_major ? g.ldc : 1, cs = g.c_row_major ? 1 : g.ldc;
    std::atomic<std::uint64_t> exact{0};
    // C(i, j) where the kernels stopped: a zero, NaN or Inf, a value past the range or near a rounding boundary.
    const auto rest = [&](std::int64_t i, std::int64_t j) {
      const double c0[2] = {beta != 0 ? g.c[i * rs + j * cs] : 0.0, 0};
      const std::int64_t cols[2] = {j, j};
      double& cij = g.c[i * rs + j * cs];
      bool finite = std::isfinite(c0[0]), products_zero = true;
      for (std::int64_t l = 0; l < k; ++l) {
        const double a = g.a(i, l), b = g.b(l, j);
        finite = finite && std::isfinite(a) && std::isfinite(b);
        products_zero = products_zero && (a == 0 || b == 0);
      }
      if (!finite) {
        cij = round_nonfinite(g.a, g.b, i, cols, terms, c0);
      } else if (products_zero) {
        cij = round_c_terms<double>(terms, c0);  // every product exactly zero, as the tiles take it (+0 for 0)
      } else if (k == 1 && std::fabs(g.a(i, 0)) >= 0x1p-480 && std::fabs(g.b(0, j)) >= 0x1p-480 &&
                 std::fma(alpha * g.a(i, 0), g.b(0, j), beta * c0[0]) == 0) {
        // a b a multiple of 2^-1074 as every double is: so is the value, which is zero where its rounding is
        cij = 0.0;
      } else {  // the exact sum: a zero's sign, a value past the range, one near a rounding boundary
        cij = round_exactly(g.a, g.b, i, cols, terms, c0);
        ++exact;
      }
    };
    // The entries [lo, hi) of a line of C: x[e sx + l lx] the one operand's factors of their products, y[l] the
    // other's, c[e sc] C's entries; the kernels on the vector lanes, at(e) from each entry they leave. A line with
    // strided entries goes through a buffer, 256 entries at a time, so that its entries fill the lanes too.
    const auto line = [&](std::int64_t lo, std::int64_t hi, const double* x, std::int64_t sx, std::int64_t lx,
                          const double* y, double* c, std::int64_t sc, auto&& at) {
      // Entries [0, count) from xe and into ce (contiguous), stop(e) at each entry the kernels leave.
      const auto run = [&](const double* xe, std::int64_t count, double* ce, auto&& stop) {
        for (std::int64_t e = 0; e < count; ++e) {
          e += k == 1 ? kern.rank_one(count - e, xe + e * sx, sx, y[0], alpha, beta, ce + e, 1)
                      : kern.few_products(count - e, int(k), xe + e * sx, sx, lx, y, alpha, beta, ce + e, 1);
          if (e == count) break;
          stop(e);
        }
      };
      if (sc == 1) return run(x + lo * sx, hi - lo, c + lo, [&](std::int64_t e) { at(lo + e); });
      constexpr std::int64_t kRun = 256;
      double buffer[kRun];
      for (std::int64_t e0 = lo; e0 < hi; e0 += kRun) {
        const std::int64_t count = std::min(kRun, hi - e0);
        double* const ce = c + e0 * sc;
        for (std::int64_t e = 0; e < count && beta != 0; ++e) buffer[e] = ce[e * sc];
        std::int64_t done = 0;  // the entries below it are in C
        run(x + e0 * sx, count, buffer, [&](std::int64_t e) {
          for (; done < e; ++done) ce[done * sc] = buffer[done];
          at(e0 + e);  // reads C's entry itself and writes it
          done = e + 1;
        });
        for (; done < count; ++done) ce[done * sc] = buffer[done];
      }
    };
    // Column by column, or row by row where the columns are short (LAPACK's updates of a few rows, TRMM and TRSM on
    // the right), so that a line's entries fill the lanes; the lines on the call's threads where the call is large.
    // Each entry has the same operations either way: with alpha = +-1, alpha a b and alpha b a are the same exact
    // product, with the same rounding and error.
    const bool by_rows = g.m < g.n && g.m < 16;
    util::for_each_index(by_rows ? g.m : g.n, g.m * g.n * k, [&](std::int64_t q) {
      const pack::Span span = by_rows ? pack::row_in_part(g.part, q, 0, g.n) : pack::col_in_part(g.part, q, 0, g.m);
      double y[kFewProducts];  // row q of op(A), or column q of op(B)
      for (std::int64_t l = 0; l < k; ++l) y[l] = by_rows ? g.a(q, l) : g.b(l, q);
      const pack::MatrixView<double>& x = by_rows ? g.b : g.a;
      const std::int64_t along = by_rows ? x.col_step() : x.row_step(), across = by_rows ? x.row_step() : x.col_step();
      line(span.lo, span.hi, x.data, along, across, y, g.c + q * (by_rows ? rs : cs), by_rows ? cs : rs,
           [&](std::int64_t e) { by_rows ? rest(q, e) : rest(e, q); });
    });
    cfg.exact_entries += exact.load();
    cfg.phases.bytes_scan += sizeof(double) * std::uint64_t(g.m + g.n) * std::uint64_t(k);
    cfg.phases.bytes_write += sizeof(double) * std::uint64_t(g.m) * std::uint64_t(g.n) * (beta != 0 ? 2 : 1);
    return true;
  }
}

}  // namespace

template <typename T>
util::DriverStatus gemm_cr(const pack::GemmArgs<T>& g, CrConfig& cfg) {
  if (!std::isfinite(double(g.alpha)) || (g.beta != T(0) && !std::isfinite(double(g.beta))))
    return util::DriverStatus::nonfinite_input;
  if (few_products_by_fma(g, tile_kernels(cfg.level), cfg)) return util::DriverStatus::ok;
  // Fewer columns than a tile has (LAPACK's B - A X with one or two right-hand sides): C^T = op(B)^T op(A)^T fills
  // the tiles' vector lanes instead of leaving most of them empty, and its rows of undecided entries take the
  // exact sums a row at a time. Each entry's value is the same, so is its rounding.
  if (runs_transposed(g.m, g.n, cfg.level) && g.part == pack::OutputPart::all && !g.a_lower.on) {
    pack::GemmArgs<T> t = g;
    t.m = g.n, t.n = g.m;
    t.a = {g.b.data, g.b.ld, !g.b.trans};  // op(B)^T(j, l) = op(B)(l, j)
    t.b = {g.a.data, g.a.ld, !g.a.trans};
    t.c_row_major = !g.c_row_major;  // C^T(j, i) at C(i, j)'s place
    return gemm_cr(t, cfg);
  }
  const std::int64_t m = g.m, n = g.n, k = g.k;
  const int threads = omp_get_max_threads();
  util::PhaseClock clock(cfg.timed);
  // Everything reserved before the first write of C.
  CallLines lines;
  Lines &la = lines.a, &lb = lines.b;
  const Packs packs = reserve_packs(k, n, threads);
  cfg.workspace_bytes = tiles_workspace_bytes(m, n, k, threads);
  line_exponents(g.a, true, m, k, la);
  line_exponents(g.b, false, n, k, lb);
  const std::vector<int>&ea = la.exp, &eb = lb.exp;
  clock.lap(cfg.phases.scan);
  cfg.phases.bytes_scan += std::uint64_t(sizeof(T)) * std::uint64_t(k) * std::uint64_t(m + n);

  const TileKernels& kern = tile_kernels(cfg.level);
  const auto decide = decide_for<T>(kern, false);
  const Terms terms{{double(g.alpha), 0}, {double(g.beta), 0}, k, std::is_same_v<T, double>};
  // The tile's entries decided a vector at a time first (where the kernels have vectors), the rest one by one below.
  const DecideRows decide_rows = std::is_same_v<T, double> ? kern.decide_rows_d : kern.decide_rows_f;
  RoundParts<T> round_parts;
  if constexpr (std::is_same_v<T, double>)
    round_parts = kern.round_parts_d;
  else
    round_parts = kern.round_parts_f;
  // (the slack's term |alpha| slack stays normal for such alpha)
  const bool refine = std::is_same_v<T, double> && kern.refine_row && std::fabs(double(g.alpha)) >= 0x1p-20 &&
                      std::fabs(double(g.alpha)) <= 0x1p20;
  const std::int64_t rs = g.c_row_major ? g.ldc : 1, cs = g.c_row_major ? 1 : g.ldc;  // C(i, j) at i rs + j cs
  // Residuals (C - L U: nearly every entry a few ulps of its terms) leave tile after tile undecided: after a tile of
  // a thread that sent three quarters of its entries to their exact values, its next kResidualRun tiles skip the
  // decision (their entries go to the exact values, which round each as the decision would have), then it decides
  // one again.
  constexpr int kResidualRun = 3;
  const auto finish = [&](std::int64_t i0, std::int64_t j0, const double* s, const double* c, const double* t,
                          const Panels& pn) {
    std::uint64_t exact = 0;
    double rounded[kMaxTile];
    int& skip = packs.skips[omp_get_thread_num()];
    const int rows = int(std::min<std::int64_t>(pn.mr, m - i0)), cols = int(std::min<std::int64_t>(pn.nr, n - j0));
    const bool deciding = decide_rows && skip == 0;
    if (!deciding && skip > 0) --skip;
    const std::uint64_t decided =
        deciding ? decide_tile(decide_rows, g, ea, eb, i0, j0, TileSumsView{s, c, t, pn.mr, pn.nr}, terms, rounded) : 0;
    // The decided entries first (in C's part, every check below passed: decide_tile), down C's columns; a whole tile
    // decided (the common case) is all that is done.
    if (decided) {
      T* const corner = g.c + i0 * rs + j0 * cs;
      const int nr = pn.nr;
      for (int jj = 0; jj < cols; ++jj)
        for (int ii = 0; ii < rows; ++ii)
          if (decided >> (ii * nr + jj) & 1) corner[ii * rs + jj * cs] = T(rounded[ii * nr + jj]);
      if (rows == pn.mr && cols == nr && decided == (std::uint64_t(1) << (rows * nr)) - 1) return std::uint64_t(0);
    }
    // The others one by one (those for the exact value in exact_rows, where the kernels take them by rows).
    std::uint64_t exact_rows = 0;
    const bool by_rows = kern.extract_row && terms.w[0] != 0;
    const std::uint64_t row_bits = (std::uint64_t(1) << cols) - 1;
    for (int ii = 0; ii < rows; ++ii) {
      const std::int64_t i = i0 + ii;
      // the entries that take the row's exact values whatever else holds (what the checks below find for them)
      const bool row_exact = by_rows && decide_rows && la.tame[std::size_t(i)] && ea[std::size_t(i)] != kNonfinite;
      for (unsigned rest = unsigned(~decided >> (ii * pn.nr) & row_bits); rest; rest &= rest - 1) {
        const int jj = __builtin_ctz(rest), x = ii * pn.nr + jj;
        const std::int64_t j = j0 + jj;
        if (!pack::in_part(g.part, i, j)) continue;
        T& cij = g.c[i * rs + j * cs];
        if (row_exact && t[x] > 0 && lb.tame[std::size_t(j)] && eb[std::size_t(j)] != kNonfinite &&
            (g.beta == T(0) || std::isfinite(double(cij)))) {
          ++exact;
          exact_rows |= std::uint64_t(1) << x;
          continue;
        }
        const double c0[2] = {g.beta != T(0) ? double(cij) : 0.0, 0};
        const std::int64_t cols2[2] = {j, j};
        const int sa = ea[std::size_t(i)], sb = eb[std::size_t(j)];
        const EntrySums e[2] = {{s[x], c[x], t[x], sa + sb}, {0, 0, 0, 0}};
        if (sa == kNonfinite || sb == kNonfinite || !std::isfinite(c0[0])) {
          cij = round_nonfinite(g.a, g.b, i, cols2, terms, c0);
        } else if (t[x] == 0 && la.tame[std::size_t(i)] && lb.tame[std::size_t(j)]) {
          cij = round_c_terms<T>(terms, c0);                                   // every product exactly zero (Lines)
        } else if ((decide_rows && t[x] > 0) || !decide(e, terms, c0, cij)) {  // the rows' decision is the entry's
          ++exact;
          if (!la.tame[std::size_t(i)] || !lb.tame[std::size_t(j)]) {
            cij = round_exactly(g.a, g.b, i, cols2, terms, c0);
          } else if (by_rows) {
            exact_rows |= std::uint64_t(1) << x;  // C(i, j) unchanged until then
          } else {
            cij = round_exactly_packed<T>(pn.row(ii), pn.col(jj), sa + sb, terms, c0,
                                          {kern.extract, round_parts, packs.room_of(omp_get_thread_num())});
          }
        }
      }
    }
    // The tame entries for the exact value, a row of the tile at a time where most of it is (else one by one); FP64
    // rows first from their refined parts (cr/refine_sum.hpp), which decide all but the entries within their slack
    // of a rounding boundary.
    for (int ii = 0; exact_rows >> (ii * pn.nr); ++ii) {
      unsigned lanes = unsigned(exact_rows >> (ii * pn.nr) & row_bits);
      if (!lanes) continue;
      const std::int64_t i = i0 + ii;
      const int sa = ea[std::size_t(i)];
      const bool refined = refine && 2 * __builtin_popcount(lanes) >= pn.nr;
      if (refined) {
        double rparts[kMaxLanes * kRefinedParts], slack[kMaxLanes];
        kern.refine_row(pn.row(ii).p, pn.row(ii).stride, pn.b, k, lanes, t + ii * pn.nr, rparts, slack);
        if (kern.round_parts_lanes) {  // the normal values and exact zeros a vector at a time, the rest below
          int scales[kMaxLanes];
          double c0s[kMaxLanes], out[kMaxLanes];
          for (int jj = 0; jj < pn.nr; ++jj) {
            const bool on = lanes >> jj & 1;
            scales[jj] = on ? sa + eb[std::size_t(j0 + jj)] : 0;
            c0s[jj] = on && g.beta != T(0) ? double(g.c[i * rs + (j0 + jj) * cs]) : 0.0;
          }
          const unsigned done = kern.round_parts_lanes(rparts, slack, scales, c0s, terms, lanes, out);
          for (unsigned rest = done; rest; rest &= rest - 1) {
            const int jj = __builtin_ctz(rest);
            g.c[i * rs + (j0 + jj) * cs] = T(out[jj]);
          }
          lanes &= ~done;
        }
        for (unsigned rest = lanes; rest; rest &= rest - 1) {
          const int jj = __builtin_ctz(rest);
          if (slack[jj] < 0) continue;
          double nonzero[kRefinedParts];
          int count = 0;
          for (int q = 0; q < kRefinedParts; ++q)
            if (rparts[q * kMaxLanes + jj] != 0) nonzero[count++] = rparts[q * kMaxLanes + jj];
          const std::int64_t j = j0 + jj;
          T& cij = g.c[i * rs + j * cs];
          const double c0[2] = {g.beta != T(0) ? double(cij) : 0.0, 0};
          const int scale = sa + eb[std::size_t(j)];
          if (slack[jj] == 0) {  // the exact parts: their rounding, or the ExactSum of them (ties)
            cij = round_extracted<T>(nonzero, count, pn.row(ii), pn.col(jj), scale, terms, c0, round_parts);
            lanes &= ~(1u << jj);
          } else if (round_parts(nonzero, count, scale, terms, c0, slack[jj], cij)) {
            lanes &= ~(1u << jj);
          }
        }
        if (!lanes) continue;
      }
      double* const room = packs.room_of(omp_get_thread_num());
      const bool together = refined || 2 * __builtin_popcount(lanes) >= pn.nr;
      double parts[kMaxLanes * kMaxParts];
      int counts[kMaxLanes];
      if (together) kern.extract_row(pn.row(ii).p, pn.row(ii).stride, pn.b, k, lanes, room, parts, counts);
      for (unsigned rest = lanes; rest; rest &= rest - 1) {
        const int jj = __builtin_ctz(rest);
        const std::int64_t j = j0 + jj;
        T& cij = g.c[i * rs + j * cs];
        const double c0[2] = {g.beta != T(0) ? double(cij) : 0.0, 0};
        const int scale = sa + eb[std::size_t(j)];
        cij = together ? round_extracted<T>(parts + jj * kMaxParts, counts[jj], pn.row(ii), pn.col(jj), scale, terms,
                                            c0, round_parts)
                       : round_exactly_packed<T>(pn.row(ii), pn.col(jj), scale, terms, c0,
                                                 {kern.extract, round_parts, room});
      }
    }
    // (entries that needed the exact value: those a product of zeros or a C term decides do not count)
    if (deciding && refine && 4 * exact >= 3 * std::uint64_t(rows * cols)) skip = kResidualRun;
    return exact;
  };
  run_tiles<T>(m, n, k, g.a, g.b, la, lb, cfg, packs, finish, nullptr, g.part, g.a_lower);
  util::thread_workspace().release_if_large();  // one large call pins no memory
  cfg.phases.bytes_write += std::uint64_t(sizeof(T)) * std::uint64_t(m) * std::uint64_t(n) * (g.beta != T(0) ? 2 : 1);
  return util::DriverStatus::ok;
}

// The real operands whose dot products are the parts of a complex call's entries: A2 = [Re op(A) | Im op(A)]
// (m x 2k); B2's column 2j is [Re op(B)_j; -Im op(B)_j] (Re of the product), column 2j + 1 is [Im op(B)_j;
// Re op(B)_j] (its Im).
template <typename T>
void real_operands(const ComplexArgs<T>& g, std::vector<T>& a2, std::vector<T>& b2) {
  const std::int64_t m = g.m, n = g.n, k = g.k, k2 = 2 * k;
  const auto part = [](const T* x, std::int64_t ld, bool trans, bool conj, std::int64_t r, std::int64_t c, int im) {
    const std::int64_t at = trans ? c + r * ld : r + c * ld;
    const T v = x[2 * at + im];
    return im && conj ? T(-v) : v;
  };
  util::for_each_index(k, k * (m + n), [&](std::int64_t l) {
    for (std::int64_t i = 0; i < m; ++i) {
      a2[std::size_t(i + l * m)] = part(g.a, g.lda, g.a_trans, g.a_conj, i, l, 0);
      a2[std::size_t(i + (k + l) * m)] = part(g.a, g.lda, g.a_trans, g.a_conj, i, l, 1);
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const T re = part(g.b, g.ldb, g.b_trans, g.b_conj, l, j, 0), im = part(g.b, g.ldb, g.b_trans, g.b_conj, l, j, 1);
      b2[std::size_t(l + 2 * j * k2)] = re, b2[std::size_t(k + l + 2 * j * k2)] = T(-im);
      b2[std::size_t(l + (2 * j + 1) * k2)] = im, b2[std::size_t(k + l + (2 * j + 1) * k2)] = re;
    }
  });
}

// C(i, j) of a complex call: its (re, im) pair.
template <typename T>
T* c_entry(const ComplexArgs<T>& g, std::int64_t i, std::int64_t j) {
  return g.c + 2 * (g.c_rows ? i * g.ldc + j : i + j * g.ldc);
}

// A complex GEMM with a real alpha and beta and finite operands and C, as a real GEMM per part on the operands of
// real_operands: Re C = RN(alpha [Re A  Im A] [Re B; -Im B] + beta Re C) is that real GEMM's entry (columns 2j of b2),
// Im C likewise (columns 2j + 1), each rounded once from the exact value as the complex tiles round it, so the bits
// are the same; the real tiles decide a row of entries at a time. False (nothing written) where any value is not
// finite: the complex tiles then give each part IEEE's NaN and Inf from both of its dot products.
template <typename T>
bool complex_by_parts(const ComplexArgs<T>& g, const std::vector<T>& a2, const std::vector<T>& b2, CrConfig& cfg) {
  const std::int64_t m = g.m, n = g.n, k2 = 2 * g.k;
  const bool reads_c = g.beta[0] != 0;
  bool finite = true;
  for (const T v : a2) finite = finite && std::isfinite(v);
  for (const T v : b2) finite = finite && std::isfinite(v);
  for (std::int64_t j = 0; j < n && reads_c; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      finite = finite && std::isfinite(c_entry(g, i, j)[0]) && std::isfinite(c_entry(g, i, j)[1]);
  if (!finite) return false;
  std::vector<T> re(std::size_t(m * n)), im(std::size_t(m * n));
  if (reads_c)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i)
        re[std::size_t(i + j * m)] = c_entry(g, i, j)[0], im[std::size_t(i + j * m)] = c_entry(g, i, j)[1];
  pack::GemmArgs<T> part{
      m, n, k2, T(g.alpha[0]), {a2.data(), m, false}, {b2.data(), 2 * k2, false}, T(g.beta[0]), re.data(), m};
  gemm_cr(part, cfg);
  part.b.data = b2.data() + k2, part.c = im.data();
  gemm_cr(part, cfg);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      c_entry(g, i, j)[0] = re[std::size_t(i + j * m)], c_entry(g, i, j)[1] = im[std::size_t(i + j * m)];
  cfg.workspace_bytes += sizeof(T) * (a2.size() + b2.size() + re.size() + im.size());
  return true;
}

template <typename T>
util::DriverStatus gemm_cr_complex(const ComplexArgs<T>& g, CrConfig& cfg) {
  for (double v : {g.alpha[0], g.alpha[1], g.beta[0], g.beta[1]})
    if (!std::isfinite(v)) return util::DriverStatus::nonfinite_input;
  const std::int64_t m = g.m, n = g.n, k = g.k, k2 = 2 * k, n2 = 2 * n;
  const int threads = omp_get_max_threads();
  util::PhaseClock clock(cfg.timed);
  std::vector<T> a2(std::size_t(m * k2)), b2(std::size_t(k2 * n2));
  real_operands(g, a2, b2);
  if (g.alpha[1] == 0 && g.beta[1] == 0 && complex_by_parts(g, a2, b2, cfg)) return util::DriverStatus::ok;
  CallLines lines;
  Lines &la = lines.a, &lb = lines.b;
  const Packs packs = reserve_packs(k2, n2, threads);
  cfg.workspace_bytes = tiles_workspace_bytes(m, n2, k2, threads) + sizeof(T) * (a2.size() + b2.size());
  const pack::MatrixView<T> va{a2.data(), m, false}, vb{b2.data(), k2, false};
  line_exponents(va, true, m, k2, la);
  line_exponents(vb, false, n2, k2, lb);
  const std::vector<int>&ea = la.exp, &eb = lb.exp;
  clock.lap(cfg.phases.scan);
  cfg.phases.bytes_scan += std::uint64_t(sizeof(T)) * std::uint64_t(k2) * std::uint64_t(m + n2) * 2;

  const auto decide = decide_for<T>(tile_kernels(cfg.level), true);
  const bool reads_c = g.beta[0] != 0 || g.beta[1] != 0;
  // Re = ar P0 - ai P1 + br cr - bi ci; Im = ar P1 + ai P0 + br ci + bi cr
  const Terms re_terms{{g.alpha[0], -g.alpha[1]}, {g.beta[0], -g.beta[1]}, k2, std::is_same_v<T, double>};
  // (the Im part's sums in the order P1, P0 and its C terms in the order ci, cr)
  const Terms im_terms{{g.alpha[0], g.alpha[1]}, {g.beta[0], g.beta[1]}, k2, std::is_same_v<T, double>};
  const auto finish = [&](std::int64_t i0, std::int64_t j0, const double* s, const double* c, const double* t,
                          const Panels& pn) {
    std::uint64_t exact = 0;
    for (int ii = 0; ii < pn.mr && i0 + ii < m; ++ii)
      for (int jj = 0; jj < pn.nr && j0 + jj < n2; jj += 2) {  // the tile's columns pair up: NR and j0 are even
        const std::int64_t i = i0 + ii, j = (j0 + jj) / 2, x = ii * pn.nr + jj;
        T* cij = c_entry(g, i, j);
        const double cr = reads_c ? double(cij[0]) : 0.0, ci = reads_c ? double(cij[1]) : 0.0;
        const std::int64_t cols[2] = {2 * j, 2 * j + 1};
        const int sa = ea[std::size_t(i)], s0 = eb[std::size_t(2 * j)], s1 = eb[std::size_t(2 * j + 1)];
        const EntrySums e[2] = {{s[x], c[x], t[x], sa + s0}, {s[x + 1], c[x + 1], t[x + 1], sa + s1}};
        const EntrySums swapped[2] = {e[1], e[0]};
        const bool special =
            sa == kNonfinite || s0 == kNonfinite || s1 == kNonfinite || !std::isfinite(cr) || !std::isfinite(ci);
        const double c_re[2] = {cr, ci}, c_im[2] = {ci, cr};
        const std::int64_t cols_im[2] = {cols[1], cols[0]};
        T re, im;
        if (special) {
          re = round_nonfinite(va, vb, i, cols, re_terms, c_re);
          im = round_nonfinite(va, vb, i, cols_im, im_terms, c_im);
        } else if (t[x] == 0 && t[x + 1] == 0 && la.tame[std::size_t(i)] && lb.tame[std::size_t(2 * j)] &&
                   lb.tame[std::size_t(2 * j + 1)]) {
          re = round_c_terms<T>(re_terms, c_re), im = round_c_terms<T>(im_terms, c_im);  // every product zero
        } else {
          if (!decide(e, re_terms, c_re, re)) re = round_exactly(va, vb, i, cols, re_terms, c_re), ++exact;
          if (!decide(swapped, im_terms, c_im, im)) im = round_exactly(va, vb, i, cols_im, im_terms, c_im), ++exact;
        }
        cij[0] = re, cij[1] = im;
      }
    return exact;
  };
  run_tiles<T>(m, n2, k2, va, vb, la, lb, cfg, packs, finish);
  util::thread_workspace().release_if_large();  // one large call pins no memory
  cfg.phases.bytes_write += std::uint64_t(sizeof(T)) * std::uint64_t(2 * m * n) * (reads_c ? 2 : 1);
  return util::DriverStatus::ok;
}

void dd_gemm(const pack::GemmArgs<double>& g, CrConfig& cfg) {
  const std::int64_t m = g.m, n = g.n, k = g.k;
  const int threads = omp_get_max_threads();
  CallLines lines;
  Lines &la = lines.a, &lb = lines.b;
  const Packs packs = reserve_packs(k, n, threads);
  line_exponents(g.a, true, m, k, la);
  line_exponents(g.b, false, n, k, lb);
  const std::vector<int>&ea = la.exp, &eb = lb.exp;
  const auto finish = [&](std::int64_t i0, std::int64_t j0, const double* s, const double* c, const double*,
                          const Panels& pn) {
    for (int ii = 0; ii < pn.mr && i0 + ii < m; ++ii)
      for (int jj = 0; jj < pn.nr && j0 + jj < n; ++jj) {
        const std::int64_t i = i0 + ii, j = j0 + jj, x = ii * pn.nr + jj;
        double& cij = g.c_row_major ? g.c[i * g.ldc + j] : g.c[i + j * g.ldc];
        const double v = std::ldexp(s[x] + c[x], ea[std::size_t(i)] + eb[std::size_t(j)]);
        cij = g.beta == 0 ? g.alpha * v : g.alpha * v + g.beta * cij;
      }
    return std::uint64_t(0);
  };
  run_tiles<double>(m, n, k, g.a, g.b, la, lb, cfg, packs, finish, tile_kernels(cfg.level).dot2);
  util::thread_workspace().release_if_large();  // one large call pins no memory
}

template util::DriverStatus gemm_cr(const pack::GemmArgs<float>&, CrConfig&);
template util::DriverStatus gemm_cr(const pack::GemmArgs<double>&, CrConfig&);
template util::DriverStatus gemm_cr_complex(const ComplexArgs<float>&, CrConfig&);
template util::DriverStatus gemm_cr_complex(const ComplexArgs<double>&, CrConfig&);

}  // namespace bf16x::cr
