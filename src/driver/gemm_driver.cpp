// The loops around the micro-kernel (BLIS-style, one readable file):
//
//   scan:    per-row/column power-of-two scales, NaN/Inf detection (one read of A and B)
//   pack:    split A and B into BF16 slices, once, into block-contiguous panels (B in VNNI pairs)
//   loop 1:  BM x BN output blocks                      (OpenMP, one block per thread at a time)
//   loop 2:    BK k-blocks                              (the exactness unit of the FP64 path)
//   loop 3:      32-row micro-panels of the block
//   loop 4:        32-column micro-panels of the block
//                    micro-kernel: every product group of the scheme on one 32x32 tile
//                    FP64 path: widen each group's exact FP32 sum and add it into the FP64 block accumulator
//   write:   C = alpha * 2^(ea_i + eb_j) * acc + beta * C   (beta == 0: C is not read)
#include "driver/gemm_driver.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "driver/workspace.hpp"
#include "pack/panels.hpp"

namespace bf16x::driver {
namespace {

using pack::kBlockM;
using pack::kBlockN;
using pack::kTileM;
using pack::kTileN;

constexpr std::size_t align64(std::size_t x) { return (x + 63) / 64 * 64; }

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Layout {
  std::size_t a_off, b_off, thread_off, per_thread, total;
};

Layout layout_for(std::int64_t m, std::int64_t n, std::int64_t k, int slices, int ngroups, int threads, bool fp64) {
  const std::size_t kp = std::size_t(pack::round_up(k, pack::kKChunk));
  Layout l{};
  l.a_off = 0;
  l.b_off = align64(std::size_t(pack::round_up(m, kTileM)) * kp * slices * sizeof(bf16_t));
  l.thread_off = l.b_off + align64(std::size_t(pack::round_up(n, kTileN)) * kp * slices * sizeof(bf16_t));
  const std::size_t acc = std::size_t(kBlockM) * kBlockN * (fp64 ? sizeof(double) : sizeof(float));
  const std::size_t scratch = std::size_t(ngroups) * kTileM * kTileN * sizeof(float);
  l.per_thread = align64(acc) + align64(scratch);
  l.total = l.thread_off + l.per_thread * std::size_t(threads);
  return l;
}

// Power-of-two scale of row i and column j applied to an accumulator value: one rounding in the result.
struct Scales {
  const int* ea;
  const int* eb;
  double apply(double v, std::int64_t i, std::int64_t j) const {
    const int e = ea[i] + eb[j];
    return e == 0 ? v : std::ldexp(v, e);
  }
};

template <typename T, typename Acc>
void write_block(const GemmArgs<T>& args, const Acc* acc, std::int64_t i0, std::int64_t j0, int bm, int bn,
                 const Scales& sc) {
  const double alpha = double(args.alpha), beta = double(args.beta);
  for (int c = 0; c < bn; ++c) {
    T* col = args.c + (j0 + c) * args.ldc + i0;
    for (int r = 0; r < bm; ++r) {
      const double v = alpha * sc.apply(double(acc[std::int64_t(r) * kBlockN + c]), i0 + r, j0 + c);
      col[r] = T(beta == 0.0 ? v : v + beta * double(col[r]));
    }
  }
}

}  // namespace

std::size_t workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, const split::Scheme& s, int bk,
                            int threads, bool fp64, bool fuse) {
  if (bk <= 0) bk = fp64 ? pack::kBlockK : pack::kBlockKFp32;
  const split::GroupPlan plan = split::plan_groups(s, fuse, bk);
  return layout_for(m, n, k, s.slices, int(plan.groups.size()), threads, fp64).total;
}

template <typename T>
DriverStatus gemm_emulated(const GemmArgs<T>& args, DriverConfig& cfg) {
  const split::Scheme& scheme = *cfg.scheme;
  const bool fp64 = scheme.reconstruction == split::Reconstruction::fp64;
  const int bk = cfg.block_k > 0 ? cfg.block_k : (fp64 ? pack::kBlockK : pack::kBlockKFp32);
  const split::GroupPlan plan = split::plan_groups(scheme, cfg.fuse_diagonals, bk);
  const int ngroups = int(plan.groups.size());
  const std::int64_t mblocks = (args.m + kBlockM - 1) / kBlockM, nblocks = (args.n + kBlockN - 1) / kBlockN;
  const int threads = int(std::max<std::int64_t>(1, std::min<std::int64_t>(omp_get_max_threads(), mblocks * nblocks)));

  const double t0 = now();
  pack::PackedPanels pa, pb;
  pack::init_panels(pa, args.m, args.k, bk, scheme.slices);
  pack::init_panels(pb, args.n, args.k, bk, scheme.slices);
  if (pack::scan_scales_a(args.a, args.m, args.k, cfg.scaled, pa.scale_exp).nonfinite ||
      pack::scan_scales_b(args.b, args.k, args.n, cfg.scaled, pb.scale_exp).nonfinite)
    return DriverStatus::nonfinite_input;

  const Layout lay = layout_for(args.m, args.n, args.k, scheme.slices, ngroups, threads, fp64);
  Workspace& ws = thread_workspace();
  auto* base = static_cast<unsigned char*>(ws.reserve(lay.total));
  if (!base) return DriverStatus::no_memory;
  pa.data = reinterpret_cast<bf16_t*>(base + lay.a_off);
  pb.data = reinterpret_cast<bf16_t*>(base + lay.b_off);
  const pack::SplitOptions sopt{scheme.slices, cfg.scaled};
  pack::pack_a(args.a, sopt, pa);
  pack::pack_b_vnni(args.b, sopt, pb);
  const double t1 = now();

  const Scales sc{pa.scale_exp.data(), pb.scale_exp.data()};
  std::vector<engine::EngineCounters> counters(static_cast<std::size_t>(threads));
  const engine::MicroKernel kernel = cfg.engine->kernel;

  // loop 1: output blocks; each thread brackets its micro-tiles with the engine's set-up (AMX: tile palette)
#pragma omp parallel num_threads(threads)
  {
  if (cfg.engine->thread_begin) cfg.engine->thread_begin();
#pragma omp for collapse(2) schedule(dynamic)
  for (std::int64_t mb = 0; mb < mblocks; ++mb)
    for (std::int64_t nb = 0; nb < nblocks; ++nb) {
      const int tid = omp_get_thread_num();
      unsigned char* tbase = base + lay.thread_off + lay.per_thread * std::size_t(tid);
      engine::EngineCounters* cnt = cfg.counters ? &counters[std::size_t(tid)] : nullptr;
      const std::int64_t i0 = mb * kBlockM, j0 = nb * kBlockN;
      const int bm = int(std::min<std::int64_t>(kBlockM, args.m - i0));
      const int bn = int(std::min<std::int64_t>(kBlockN, args.n - j0));
      const int mtiles = (bm + kTileM - 1) / kTileM, ntiles = (bn + kTileN - 1) / kTileN;
      const bf16_t* ap[pack::kMaxSlices];
      const bf16_t* bp[pack::kMaxSlices];
      std::vector<float*> outs(static_cast<std::size_t>(ngroups));

      if (!fp64) {
        // FP32 path: a fresh accumulator per k-block, then one FP32 add into the block accumulator. Restarting
        // keeps the partial sums that absorb the 6*kb rounded additions small (docs/numerics.md, "fp32x6").
        auto* acc = reinterpret_cast<float*>(tbase);
        auto* part = reinterpret_cast<float*>(tbase + align64(std::size_t(kBlockM) * kBlockN * sizeof(float)));
        float* o = part;
        for (std::int64_t kb = 0; kb < pa.kblk.blocks(); ++kb)        // loop 2: k-blocks
          for (int mt = 0; mt < mtiles; ++mt)                         // loop 3: micro-panels of A
            for (int nt = 0; nt < ntiles; ++nt) {                     // loop 4: micro-panels of B
              for (int s = 0; s < scheme.slices; ++s) {
                ap[s] = pa.panel(kb, i0 / kTileM + mt, s);
                bp[s] = pb.panel(kb, j0 / kTileN + nt, s);
              }
              const engine::MicroTileArgs mta{ap, bp, pa.kblk.padded(kb), plan.groups.data(), 1, &o, kTileN,
                                              false, cnt};
              kernel(mta);
              float* dst = acc + std::int64_t(mt) * kTileM * kBlockN + nt * kTileN;
              for (int r = 0; r < kTileM; ++r)
                for (int c = 0; c < kTileN; ++c)
                  dst[std::int64_t(r) * kBlockN + c] = kb == 0 ? part[r * kTileN + c]
                                                                : dst[std::int64_t(r) * kBlockN + c] + part[r * kTileN + c];
            }
        write_block(args, acc, i0, j0, bm, bn, sc);
      } else {
        auto* acc = reinterpret_cast<double*>(tbase);
        auto* scratch = reinterpret_cast<float*>(tbase + align64(std::size_t(kBlockM) * kBlockN * sizeof(double)));
        for (int g = 0; g < ngroups; ++g) outs[std::size_t(g)] = scratch + std::int64_t(g) * kTileM * kTileN;
        for (int r = 0; r < mtiles * kTileM; ++r) std::memset(acc + std::int64_t(r) * kBlockN, 0, sizeof(double) * ntiles * kTileN);
        for (std::int64_t kb = 0; kb < pa.kblk.blocks(); ++kb)        // loop 2: k-blocks
          for (int mt = 0; mt < mtiles; ++mt)                         // loop 3
            for (int nt = 0; nt < ntiles; ++nt) {                     // loop 4
              for (int s = 0; s < scheme.slices; ++s) {
                ap[s] = pa.panel(kb, i0 / kTileM + mt, s);
                bp[s] = pb.panel(kb, j0 / kTileN + nt, s);
              }
              const engine::MicroTileArgs mta{ap, bp, pa.kblk.padded(kb), plan.groups.data(), ngroups, outs.data(),
                                              kTileN, false, cnt};
              kernel(mta);
              // Reconstruction: each group's sum is exact; widen and add, smallest diagonals first.
              double* dst = acc + std::int64_t(mt) * kTileM * kBlockN + nt * kTileN;
              for (int g = 0; g < ngroups; ++g) {
                const float* src = outs[std::size_t(g)];
                for (int r = 0; r < kTileM; ++r)
                  for (int c = 0; c < kTileN; ++c) dst[std::int64_t(r) * kBlockN + c] += double(src[r * kTileN + c]);
              }
            }
        write_block(args, acc, i0, j0, bm, bn, sc);
      }
    }
  if (cfg.engine->thread_end) cfg.engine->thread_end();
  }

  if (cfg.counters)
    for (const auto& c : counters) cfg.counters->add(c);
  cfg.seconds_split = t1 - t0;
  cfg.seconds_compute = now() - t1;
  ws.release_if_large();
  return DriverStatus::ok;
}

template DriverStatus gemm_emulated(const GemmArgs<float>&, DriverConfig&);
template DriverStatus gemm_emulated(const GemmArgs<double>&, DriverConfig&);

}  // namespace bf16x::driver
