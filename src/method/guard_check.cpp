#include "method/guard_check.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <new>

#include "crt/crt_ops.hpp"
#include "crt/digit_product.hpp"
#include "pack/line_scan.hpp"
#include "util/pow2.hpp"
#include "util/team.hpp"
#include "util/workspace.hpp"

namespace bf16x::method {
namespace {

namespace int8 = engine::int8;

// Element l of line r of op(X) at data[r * sr + l * sl]: rows of op(A), columns of op(B).
template <typename T>
struct Lines {
  const T* data;
  std::int64_t sr, sl;
  T at(std::int64_t r, std::int64_t l) const { return data[r * sr + l * sl]; }
};
template <typename T>
Lines<T> rows_of(const pack::MatrixView<T>& a) {
  return a.trans ? Lines<T>{a.data, a.ld, 1} : Lines<T>{a.data, 1, a.ld};
}
template <typename T>
Lines<T> cols_of(const pack::MatrixView<T>& b) {
  return b.trans ? Lines<T>{b.data, 1, b.ld} : Lines<T>{b.data, b.ld, 1};
}

// Per line: the exponent e (max |x| in [2^(e-1), 2^e), 0 for a zero line) and an upper bound of sum_l |x| 2^-e
// (each scaled term exact or below 2^-1074, the sum rounded up by (len + 2) units of 2^-52). True on NaN/Inf.
template <typename T>
bool scan(const Lines<T>& x, std::int64_t count, std::int64_t len, int* e, double* norm1) {
  bool bad = false;
  // Chunks of lines, walked along memory: line by line where a line is contiguous, else across the chunk.
  constexpr std::int64_t kChunk = 256;
  const std::int64_t chunks = (count + kChunk - 1) / kChunk;
  const bool along = x.sl == 1;
  // A share of the chunks (a thread's, or all of them in no team: util/team.hpp); bad: this share's.
  const auto share = [&](bool& bad) {
#pragma omp for schedule(static)
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const std::int64_t r0 = ch * kChunk, nr = std::min(kChunk, count - r0);
      double s[kChunk] = {}, f1[kChunk], f2[kChunk];
      pack::Bits<T> mx[kChunk];  // the chunk's line maxima (pack/line_scan.hpp)
      pack::line_extremes(x.data + r0 * x.sr, x.sr, x.sl, nr, len, mx, nullptr);
      auto each = [&](auto&& f) {
        if (along) {
          for (std::int64_t r = 0; r < nr; ++r)
            for (std::int64_t l = 0; l < len; ++l) f(r, std::fabs(double(x.at(r0 + r, l))));
        } else {
          for (std::int64_t l = 0; l < len; ++l)
            for (std::int64_t r = 0; r < nr; ++r) f(r, std::fabs(double(x.at(r0 + r, l))));
        }
      };
      bool b = false;
      for (std::int64_t r = 0; r < nr; ++r) {
        const double v = pack::magnitude<T>(mx[r]);
        b = b || pack::nonfinite<T>(mx[r]);
        e[r0 + r] = v > 0 && !pack::nonfinite<T>(mx[r]) ? std::ilogb(v) + 1 : 0;
        util::pow2_pair(-e[r0 + r], f1[r], f2[r]);
      }
      if (b) {
        bad = true;
        continue;
      }
      each([&](std::int64_t r, double v) { s[r] += (v * f1[r]) * f2[r]; });
      for (std::int64_t r = 0; r < nr; ++r)
        norm1[r0 + r] = s[r] * (1 + double(len + 2) * 0x1p-52) + double(len) * 0x1p-1022;  // no subnormal operand
    }
  };
  util::on_team(count * len > util::kTeamElements ? omp_get_max_threads() : 1, share, bad);
  return bad;
}

// The digit scale: D(x) = max(1, ceil(127 |x^|)) for x != 0, any value in [1, 127 |x^| + 1] would do.
constexpr double kDigit = crt::kGuardDigit;

// yb[r * kcp + l] = D(x) of line r0 + r, element l0 + l, for r < rows: zero from len to kcp (the packers read the
// lines below `rows` only). By the CRT loads of this CPU's vector level (crt::Scaled::guard: the same operations on
// every element, so the same digits on every level).
template <typename T>
void load_digits(const Lines<T>& x, std::int64_t r0, int rows, std::int64_t l0, int len, int kcp, const int* e,
                 double* yb) {
  for (int r = 0; r < rows; ++r) std::fill(yb + std::size_t(r) * kcp + len, yb + std::size_t(r + 1) * kcp, 0.0);
  double f1[int8::kTile], f2[int8::kTile];
  for (int r = 0; r < rows; ++r) util::pow2_pair(-e[r0 + r], f1[r], f2[r]);
  const T* first = x.data + r0 * x.sr + l0 * x.sl;
  if (x.sl == 1) {  // along the lines in memory
    for (int r = 0; r < rows; ++r)
      crt::load_scaled(first + r * x.sr, len, f1[r], f2[r], crt::Scaled::guard, yb + std::size_t(r) * kcp);
  } else {  // across them (x.sr == 1: rows of a column-major op(A), columns of a row-major op(B))
    crt::load_scaled_across(first, x.sl, rows, len, f1, f2, crt::Scaled::guard, yb, kcp);
  }
}

}  // namespace

namespace {

using int8::kTile;
constexpr int kBlock = 256;  // output blocks of the digit product

// A thread's digit product of one block of C (at most kBlock x kBlock): the panels of one k-block, the block's int32
// sums (and, past the k-blocks whose sums fit them, its FP64 sums) in rows of ld. Sized by the call's largest block
// (its row and column panels), so that a small call does not fault in and clear 512 KiB of sums and up to 512 KiB
// of panels (2 ms a 4 x 4 call). In the calling thread's workspace (util/workspace.hpp, as the drivers'), which the
// method's driver takes over after the check. Nothing is cleared: the packers write what the kernels read,
// load_digits the part of yb they read, and crt::block_product the sums.
struct BlockSpace {
  int ld;
  std::int8_t* apack;
  std::int8_t* bpack;
  double* yb;
  std::int32_t* acc;
  double* sums;
};

// One BlockSpace per thread for blocks of up to kBlock x kBlock entries of an m x n product, kc deep, 64-byte
// aligned pieces of one reservation. Throws std::bad_alloc.
std::vector<BlockSpace> block_spaces(int threads, int kc, std::int64_t m, std::int64_t n, bool fp64_sums) {
  const auto panels_of = [](std::int64_t extent) {
    return int((std::min<std::int64_t>(extent, kBlock) + kTile - 1) / kTile);
  };
  const int rp = panels_of(m), cp = panels_of(n), ld = cp * kTile;
  const auto up = [](std::size_t b) { return (b + 63) / 64 * 64; };
  const std::size_t a_bytes = up(std::size_t(rp) * int8::a_panel_bytes(kc)),
                    b_bytes = up(std::size_t(cp) * int8::b_panel_bytes(kc)), yb_bytes = up(sizeof(double) * kTile * kc),
                    sums = std::size_t(rp) * kTile * std::size_t(ld), acc_bytes = up(sizeof(std::int32_t) * sums),
                    sums_bytes = fp64_sums ? up(sizeof(double) * sums) : 0;
  const std::size_t each = a_bytes + b_bytes + yb_bytes + acc_bytes + sums_bytes;
  auto* mem = static_cast<unsigned char*>(util::thread_workspace().reserve(each * std::size_t(threads)));
  if (!mem) throw std::bad_alloc();
  std::vector<BlockSpace> spaces;
  for (int t = 0; t < threads; ++t) {
    unsigned char* p = mem + each * std::size_t(t);
    BlockSpace s{ld,
                 reinterpret_cast<std::int8_t*>(p),
                 reinterpret_cast<std::int8_t*>(p + a_bytes),
                 reinterpret_cast<double*>(p + a_bytes + b_bytes),
                 reinterpret_cast<std::int32_t*>(p + a_bytes + b_bytes + yb_bytes),
                 fp64_sums ? reinterpret_cast<double*>(p + a_bytes + b_bytes + yb_bytes + acc_bytes) : nullptr};
    spaces.push_back(s);
  }
  return spaces;
}

// H = D(op(A)) D(op(B)) block by block on the INT8 engine (crt/digit_product.hpp), k-blocks of kc.
template <typename T>
struct DigitProduct {
  const Lines<T> la, lb;
  const int* ea;
  const int* eb;
  std::int64_t k;
  int kc;
  const crt::TileRunner kernel;

  std::int64_t kblocks() const { return (k + kc - 1) / kc; }
  // k-blocks whose sums fit the int32 tiles: the digits are at most 127.
  std::int64_t fit() const { return crt::kblocks_in_int32(int(kDigit), kc); }

  // H(i0 + ii, j0 + jj) for the block's rows x cols into sp (in_acc: sp.acc, else sp.sums, at ii * sp.ld + jj).
  crt::BlockSums block(BlockSpace& sp, std::int64_t i0, int rows, std::int64_t j0, int cols) const {
    const std::size_t ab = int8::a_panel_bytes(kc), bb = int8::b_panel_bytes(kc);
    const crt::Block blk{i0, j0, rows, cols, (rows + kTile - 1) / kTile, (cols + kTile - 1) / kTile};
    const auto panels = [&](std::int64_t kk) {
      const std::int64_t l0 = kk * kc;
      const int len = int(std::min<std::int64_t>(kc, k - l0));
      const int kcp = (len + int8::kKChunk - 1) / int8::kKChunk * int8::kKChunk;
      for (int p = 0; p < blk.rp; ++p) {
        const int lines = crt::live_lines(rows, p);
        load_digits(la, i0 + p * kTile, lines, l0, len, kcp, ea, sp.yb);
        crt::pack_panel(true, kernel.live(), sp.yb, kcp, len, lines, nullptr, 0, sp.apack + std::size_t(p) * ab, 0);
      }
      for (int p = 0; p < blk.cp; ++p) {
        const int lines = crt::live_lines(cols, p);
        load_digits(lb, j0 + p * kTile, lines, l0, len, kcp, eb, sp.yb);
        crt::pack_panel(false, kernel.live(), sp.yb, kcp, len, lines, nullptr, 0, sp.bpack + std::size_t(p) * bb, 0);
      }
      return crt::KPanels{sp.apack, sp.bpack, ab, bb, crt::KBlock{l0, len, kcp}};
    };
    return crt::block_product(kernel, blk, kblocks(), fit(), sp.acc, sp.sums, sp.ld, panels, [](int) {});
  }
};

// One bit per entry of C, tile by tile (entry (ii, jj) of tile ip + jp mp at bit ii * 32 + jj of its 16 words: a
// tile row is half a word): m n / 8 bytes, whatever the number of failures; each tile belongs to one block, so
// threads never share a word.
struct UnprovedMask {
  static constexpr int kWords = kTile * kTile / 64;
  std::int64_t mp, np;
  std::vector<std::uint64_t> bits;
  UnprovedMask(std::int64_t m, std::int64_t n)
      : mp((m + kTile - 1) / kTile), np((n + kTile - 1) / kTile), bits(std::size_t(mp * np) * kWords, 0) {}
  // Row i's entries j..j + 31 (j a multiple of kTile): bit jj of row.
  void mark_row(std::int64_t i, std::int64_t j, std::uint32_t row) {
    const std::int64_t t = i / kTile + (j / kTile) * mp;
    const int ii = int(i % kTile);
    bits[std::size_t(t) * kWords + std::size_t(ii / 2)] |= std::uint64_t(row) << (ii % 2 * 32);
  }
  // The marked entries column by column, rows ascending: (j, i) order.
  void collect(std::vector<Entry>& out) const {
    for (std::int64_t jp = 0; jp < np; ++jp)
      for (int jj = 0; jj < kTile; ++jj)
        for (std::int64_t ip = 0; ip < mp; ++ip) {
          const std::uint64_t* w = bits.data() + std::size_t(jp * mp + ip) * kWords;
          for (int ii = 0; ii < kTile; ++ii) {
            const int bit = ii * kTile + jj;
            if (w[bit / 64] >> (bit % 64) & 1) out.push_back({ip * kTile + ii, jp * kTile + jj});
          }
        }
  }
};

// Whether the digit product proves an entry: where Lo_ij = H - 127 (norms) - k > 0 and slack Lo_ij >= 127^2
// (its bound's terms). slack <= 0: no entry with a product is proved.
struct EntryProof {
  const policy::EntryBound& bound;
  double slack, kd;
  // Every operation evaluated (no branch: a call that fails, fails at most of its entries, in no pattern a branch
  // predictor follows), each as the proof defines it.
  bool operator()(double hij, double norms) const {
    const double lower = hij - kDigit * norms - kd;  // <= 127^2 P_ij / S_ij
    const double need = bound.c_prod * std::min(kd, hij) + bound.c_norm * norms + bound.c_entry;
    return (slack > 0) & (lower > 0) & (slack * lower >= kDigit * kDigit * need);
  }
  // The entries of the block at (i0, j0) whose H (h, in sp) does not prove them (hij == 0: every product is zero,
  // the entry is exact), marked, row by row; returns their count. Stops after the row at which more than `room`
  // have failed: the call then goes native, and the mask is not read.
  template <typename H>
  std::uint64_t mark_rows(const H& hij, std::int64_t i0, int rows, std::int64_t j0, int cols, const GuardLines& lines,
                          std::uint64_t room, UnprovedMask& mask) const {
    std::uint64_t count = 0;
    const double* nb = lines.nb.data() + j0;
    for (int ii = 0; ii < rows && count <= room; ++ii) {
      const double na = lines.na[std::size_t(i0 + ii)];
      for (int j = 0; j < cols; j += kTile) {
        const int len = std::min(kTile, cols - j);
        std::uint32_t row = 0;
        for (int jj = 0; jj < len; ++jj) {
          const double h = hij(ii, j + jj);
          row |= std::uint32_t((h != 0) & !(*this)(h, na + nb[j + jj])) << jj;
        }
        if (row == 0) continue;
        count += std::uint64_t(__builtin_popcount(row));
        mask.mark_row(i0 + ii, j0 + j, row);
      }
    }
    return count;
  }
  std::uint64_t mark_unproved(const crt::BlockSums& h, const BlockSpace& sp, std::int64_t i0, int rows, std::int64_t j0,
                              int cols, const GuardLines& lines, std::uint64_t room, UnprovedMask& mask) const {
    const std::size_t ld = std::size_t(sp.ld);
    if (h.in_acc)
      return mark_rows([&](int ii, int jj) { return double(sp.acc[std::size_t(ii) * ld + std::size_t(jj)]); }, i0, rows,
                       j0, cols, lines, room, mask);
    return mark_rows([&](int ii, int jj) { return sp.sums[std::size_t(ii) * ld + std::size_t(jj)]; }, i0, rows, j0,
                     cols, lines, room, mask);
  }
};

}  // namespace

template <typename T>
bool scan_lines(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                std::int64_t k, GuardLines& lines) {
  return scan(rows_of(a), m, k, lines.ea.data(), lines.na.data()) ||
         scan(cols_of(b), n, k, lines.eb.data(), lines.nb.data());
}

template <typename T>
GuardCheck check_entries(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                         std::int64_t k, const policy::EntryBound& bound, double tau,
                         const engine::int8::Engine& engine, std::uint64_t limit, GuardLines& lines) {
  GuardCheck r;
  const Lines<T> la = rows_of(a), lb = cols_of(b);
  if (scan_lines(a, b, m, n, k, lines)) {
    r.nonfinite = true;
    return r;
  }
  // Blocks of C, each thread packing the digits of its block's rows and columns one k-block at a time: the
  // workspace is bounded by the block sizes and the thread count, not by m, n or k.
  const int kc = int(std::min<std::int64_t>(1024, (k + int8::kKChunk - 1) / int8::kKChunk * int8::kKChunk));
  const DigitProduct<T> product{la, lb, lines.ea.data(), lines.eb.data(), k, kc, crt::TileRunner(engine)};
  const std::int64_t mb = (m + kBlock - 1) / kBlock, nb = (n + kBlock - 1) / kBlock;
  const EntryProof proved{bound, tau - bound.c_rel, double(k)};
  // Everything the parallel region uses is allocated here: nothing inside it may throw.
  const int threads = int(std::min<std::int64_t>(omp_get_max_threads(), mb * nb));
  std::vector<BlockSpace> spaces = block_spaces(threads, kc, m, n, product.kblocks() > product.fit());
  UnprovedMask mask(m, n);
  std::atomic<std::uint64_t> failed{0};
  std::uint64_t tiles = 0;
  // A share of the work: its worksharing constructs are orphaned here (util/team.hpp).
  const auto share = [&](std::uint64_t& tiles) {
    BlockSpace& sp = spaces[std::size_t(omp_get_thread_num())];
    if (engine.thread_begin) engine.thread_begin();
    util::share_loop(mb * nb, util::Schedule::dynamic, 1, [&](std::int64_t blk) {
      const std::uint64_t before = failed.load(std::memory_order_relaxed);
      if (before > limit) return;  // the call goes native: stop early
      const std::int64_t i0 = (blk % mb) * kBlock, j0 = (blk / mb) * kBlock;
      const int rows = int(std::min<std::int64_t>(kBlock, m - i0)), cols = int(std::min<std::int64_t>(kBlock, n - j0));
      const crt::BlockSums h = product.block(sp, i0, rows, j0, cols);
      tiles += h.tiles;
      const std::uint64_t here = proved.mark_unproved(h, sp, i0, rows, j0, cols, lines, limit - before, mask);
      if (here) failed.fetch_add(here, std::memory_order_relaxed);
    });
    if (engine.thread_end) engine.thread_end();  // TILERELEASE: no tile state outlives the region
  };
  util::on_team(threads, share, tiles);
  r.micro_tiles = tiles;
  r.complete = failed.load() <= limit;
  if (!r.complete) return r;
  r.failing.reserve(std::size_t(failed.load()));
  mask.collect(r.failing);
  return r;
}

template bool scan_lines(const pack::MatrixView<float>&, const pack::MatrixView<float>&, std::int64_t, std::int64_t,
                         std::int64_t, GuardLines&);
template bool scan_lines(const pack::MatrixView<double>&, const pack::MatrixView<double>&, std::int64_t, std::int64_t,
                         std::int64_t, GuardLines&);
template GuardCheck check_entries(const pack::MatrixView<float>&, const pack::MatrixView<float>&, std::int64_t,
                                  std::int64_t, std::int64_t, const policy::EntryBound&, double,
                                  const engine::int8::Engine&, std::uint64_t, GuardLines&);
template GuardCheck check_entries(const pack::MatrixView<double>&, const pack::MatrixView<double>&, std::int64_t,
                                  std::int64_t, std::int64_t, const policy::EntryBound&, double,
                                  const engine::int8::Engine&, std::uint64_t, GuardLines&);

}  // namespace bf16x::method
