// The blocked driver of the CRT modes (Ozaki scheme II on INT8 products): C = alpha op(A) op(B) + beta C,
// column-major, for fp64c<N> / fp32c<N>. docs/numerics.md ("CRT modes") has the method and its error bound.
//
//   1. scan      per row of op(A) / column of op(B): the exponent e with max |x| in [2^(e-1), 2^e), and NaN/Inf
//   2. bound     one INT8 GEMM of the digits ceil(64 |x| 2^-e) in [0, 64]: H >= 4096 |A^| |B^| entrywise
//                (A^ = diag(2^-ea) A, B^ = B diag(2^-eb)); per row rho_i = ceil(log2 max_j H_ij) - 12, per column
//                gamma_j likewise; fast scaling: rho_i = ceil(log2 ||64 A^_i.||^2) - 12 (Cauchy-Schwarz), no GEMM
//   3. scales    sa_i = floor((L - rho_i) / 2), sb_j = floor((L - gamma_j) / 2), A'_il = trunc(A^_il 2^sa_i),
//                B'_lj = trunc(B^_lj 2^sb_j): since |A^||B^|_ij <= min(2^rho_i, 2^gamma_j) <= 2^((rho_i+gamma_j)/2),
//                sum_l |A'_il| |B'_lj| <= 2^L <= P/4
//   4. products  for each modulus p_t: residues of A' and B' as int8, exact INT32 products per k-block, reduced
//                modulo p_t only when the int32 sums could overflow (after 63 k-blocks of 2048)
//   5. CRT       X = A'B' exactly from the residues (moduli.hpp), C = alpha 2^(ea_i - sa_i + eb_j - sb_j) X (+ beta C):
//                alpha's exponent joins the scales and beta C is added in FP64, so only the result is rounded to T
//
// Parallel over output blocks (mc x nc); each thread packs its own A and B residue panels per k-block and keeps
// N int32 accumulator blocks: the workspace is threads x (N (mc + nc) kc + 4 N mc nc + ...) bytes, independent of
// m, n and k. C is written only after every input was found finite and all workspace was allocated.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/int8_kernel.hpp"
#include "pack/operand.hpp"
#include "util/driver_status.hpp"
#include "util/phase_times.hpp"

namespace bf16x::crt {

// The INT8 micro-kernel's packed layout (engine/int8_kernel.hpp).
using engine::int8::a_index;
using engine::int8::a_panel_bytes;
using engine::int8::a_rowsums;
using engine::int8::b_index;
using engine::int8::b_panel_bytes;
using engine::int8::kKChunk;
using engine::int8::kTile;
using Int8Kernel = engine::int8::Kernel;
using Int8Engine = engine::int8::Engine;
using util::DriverStatus;

using pack::GemmArgs;

// Exponents of the scaling (filled when CrtConfig::scales is set; for tests and the docs' error bound).
struct CrtScales {
  std::vector<int> ea, eb;  // max |row i of op(A)| in [2^(ea-1), 2^ea) (0 for a zero row)
  std::vector<int> sa, sb;  // integer bits: A'_il = trunc(a_il 2^(sa_i - ea_i))
};

struct CrtConfig {
  int moduli = 0;
  const Int8Engine* engine = nullptr;
  int mc = 0, nc = 0, kc = 0;  // 0: defaults (512, 512, 2048), mc/nc shrunk to give every thread work
  int threads = 0;             // 0: omp_get_max_threads()
  // Scales from the 2-norms of the rows of op(A) and columns of op(B) instead of the bound GEMM: one INT8 GEMM
  // fewer, at most a few bits fewer on typical data (docs/numerics.md, "Fast scaling"). BF16X_CRT_SCALING=fast.
  bool fast_scaling = false;
  // Pack an operand once into a cache shared by all blocks where it fits (crt_workspace_bytes); off: every block
  // packs its own panels. The same results either way (tests compare them).
  bool operand_caches = true;
  // The CRT of every entry with the exact way (reconstruct_row_exact: only its last sum rounds), for the guard's
  // second level (method/second_level.hpp); off: the vectorised way, error 2^(g-34) + u |X|.
  bool exact_reconstruction = false;
  CrtScales* scales = nullptr;
  pack::KnownScales known;  // the lines' scale exponents where the caller measured them: no scan
  bool timed = true;        // the phases' and passes' seconds wanted (stats or a verbose line): else no clock is read
  // Filled by the call.
  std::size_t workspace_bytes = 0;  // crt_workspace_bytes of the call's blocking: what it reserved
  std::uint64_t micro_tiles = 0;
  std::uint64_t dot_products = 0;  // TDPBSSD (16 x 16 x 64) equivalents, the bound GEMM's included
  double seconds_scale = 0, seconds_products = 0;
  util::PhaseTimes phases;
};

template <typename T>
DriverStatus gemm_crt(const GemmArgs<T>& args, CrtConfig& cfg);

struct Blocking {
  int mc, nc, kc, threads;
};
Blocking crt_blocking(std::int64_t m, std::int64_t n, std::int64_t k, const CrtConfig& cfg);
// All threads together, and the call's operand caches where it packs an operand once (within max(64 MiB, the
// per-thread panels they replace), so the bound stays one of the block sizes, the moduli and the thread count).
std::size_t crt_workspace_bytes(int moduli, std::int64_t m, std::int64_t n, std::int64_t k, const Blocking& b);
// Operand elements one pass over the blocks loads and packs (the bound pass's digits, the products pass's
// residues): an operand once where the call caches it; else B by each block, and A by each block unless the
// thread kept it from the block before (one k-block, whole block rows per thread). The cost model's residue term.
double crt_packed_elements(int moduli, std::int64_t m, std::int64_t n, std::int64_t k, const Blocking& b);

}  // namespace bf16x::crt
