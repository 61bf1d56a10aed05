// The componentwise guard around one emulated call (policy/guard.hpp, docs/numerics.md "Componentwise guard"):
// whether it applies, the proof (the fill envelope, then the INT8 digit product), and the repair of the entries it
// could not prove by dot products, or the host GEMM for the whole call where those would cost as much.
#pragma once
#include <cmath>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "driver/entry_repair.hpp"
#include "method/guard_check.hpp"
#include "method/guard_lines.hpp"
#include "method/outcome.hpp"
#include "policy/guard.hpp"
#include "util/clock.hpp"

namespace bf16x::method {

// The second level's least calls. Its products' and exact reconstructions' fixed costs make a call of 50^3
// multiply-adds take 25-35 times the host GEMM's whole call (docs/performance.md); below 64^3 a mode asked for by
// name, a choice of speed, leaves such calls to the host (LAPACK's testers make 2,000 of them), while auto on
// accuracy alone keeps them emulated down to 32^3, under which the host costs a fraction of the fixed costs and
// programs have few of their flops (psi4's DF-MP2: 6% in 730 calls).
constexpr double kSecondLevelNamed = 262144, kSecondLevelAccuracyOnly = 32768;

// Each entry of a product of inner dimension k <= kHostDepth is a dot product of at most four terms, which the host
// GEMM finishes in fewer operations than the emulation's write of that entry alone (N residues reconstructed, or
// the group sums of the slice products widened), on every engine, a matrix engine included; its error,
// gamma_k (|A||B|)_ij, is within the guard's target. (LAPACK's unblocked updates and its testers make many.)
constexpr std::int64_t kHostDepth = 4;

struct GuardRequest {
  int mode = 0;             // the concrete emulation mode
  bool is_double = true;    // dgemm (the target's unit roundoff)
  int int8_engine = -1;     // the INT8 engine of the digit product
  int block_k = 0;          // bf16x_options.block_k
  double fill = -1;         // policy::fill_ratio if auto measured it, else -1
  std::vector<int> ea, eb;  // and the lines' scale exponents from that pass (policy::measure_fill), else empty
  double tau = 0;           // the target; 0: guard_target (4 k u)
  bool host = true;         // a host GEMM can take the call: else every unproved entry is repaired
  // Where too many entries stay unproved, the second level (method/second_level.hpp: four products of the mode)
  // instead of the host GEMM, for calls of at least this many multiply-adds (0: none): a mode asked for by name
  // from kSecondLevelNamed, auto on accuracy alone from kSecondLevelAccuracyOnly; auto's cost model chose the
  // emulation for one product's price, so its calls go to the host as before.
  double second_level_from = 0;
  // Calls of inner dimension k <= host_depth go to the host GEMM unmeasured (0: none): kHostDepth for a mode asked
  // for by name and for auto's cost model, none for auto on accuracy alone.
  std::int64_t host_depth = 0;
  // A triangular call (method::Call::part): only its entries are repaired, and where the host GEMM would run (the
  // whole call, host lines, NaN or Inf alpha or beta) the call is declined before anything is written.
  pack::OutputPart part = pack::OutputPart::all;
  bool timed = true;  // Outcome::seconds_guard wanted (the stats): else no clock is read
};

// Whether a call in `mode` is guarded: `option` (bf16x_options.guard, else BF16X_GUARD: CallPlan::guard), else the
// default of its mode record (mode/records.cpp: fp64x21, fp64c15 and up, fp32c8 and up) and every fixed-point or CRT
// mode auto chose; never for a mode the guard cannot wrap (Guard::none), nor for the paper's unscaled split,
// whose slices the bounds do not describe, nor for fp32x6 (floating-point slices: componentwise by construction).
bool guard_applies(int option, int mode, bool chosen_by_auto, bool scaled);

// The proof for op(A), op(B): the entries to repair and the host lines (method/guard_lines.hpp), or `native` (too
// many: more than 1/8 of C that no host lines bring down; or a call of a few thousand multiply-adds that the envelope
// does not prove, plan_guard).
struct GuardPlan {
  bool native = false;
  bool unproved = false;  // native for too many unproved entries (the second level's case), not for a tiny call
  bool nonfinite = false;
  int result = 0;  // bf16x_guard_result
  std::vector<Entry> failing;
  // The lines' scale exponents where `scales` (the envelope's read or the check's scan measured them: the driver
  // need not scan the operands again), and their 1-norms where the check ran (`unproved` among them).
  GuardLines scan{0, 0};
  bool scales = false;
  HostLines lines;
  std::uint64_t micro_tiles = 0;
};
template <typename T>
GuardPlan plan_guard(const GuardRequest& g, const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m,
                     std::int64_t n, std::int64_t k);

// The verbose fields of a guarded call: ",guard=envelope|entries|native[,repaired=N[,host_lines=L][,levels=2]]".
std::string guard_why(int result, std::uint64_t repaired, std::uint64_t host_lines = 0, int levels = 1);

// alpha (op(A) op(B))_ij + beta c0 rounded once from the exact value (cr/exact_sum.hpp): the repair's last resort
// where the FP64 dot product leaves the exponent range (driver::repair_entries).
template <typename T>
T exact_entry(const driver::RepairArgs<T>& x, std::int64_t i, std::int64_t j, T c0);

// The host GEMM of C = alpha op(A) op(B) + beta C0 on operands that keep it in range, where the unscaled call may
// not: op(A)'s largest row exponent plus op(B)'s largest column exponent plus log2 k reach the overflow threshold
// (a partial sum may overflow, and Inf - Inf is NaN), or |alpha| > 1 meets lines near the underflow threshold
// (products rounded to the subnormal grid, then magnified). FP64: rows and columns scaled by 2^-e, P^ = op(A)^ op(B)^
// by the host DGEMM, then C_ij = (alpha's mantissa P^_ij) 2^(alpha's exponent + ea_i + eb_j) + beta C0_ij: one
// rounding more than the host's alpha AB, overflow only where the result overflows; an entry whose smallest scaled
// products may fall below the normal range is rounded once from its exact value (exact_entry). FP32: the host DGEMM
// on the widened operands (products exact, no range to lose), rounded once to FP32. True where it ran the call;
// false where the unscaled call is safe, an operand, alpha or beta is NaN or Inf (IEEE's classes are the host's), or
// the host DGEMM cannot run. Throws std::bad_alloc before C is written.
template <typename T>
bool host_scaled(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n);

// host_scaled's test from the exponents of the rows of op(A) (ea) and the columns of op(B) (eb), k products per
// entry: a partial sum may overflow, or |alpha| > 1 meets lines near the underflow threshold. The second form takes
// the extremes of those exponents.
bool host_out_of_range(const std::vector<int>& ea, const std::vector<int>& eb, std::int64_t k, double abs_alpha,
                       bool is_double);
bool host_out_of_range(int amin, int amax, int bmin, int bmax, std::int64_t k, double abs_alpha, bool is_double);

// Where |alpha| <= 1, whether the largest entries of op(A) and op(B) alone clear host_out_of_range, from one
// vectorised read of each stored rectangle (`inner` contiguous values, `outer` times at stride `ld`: a complex
// operand's interleaved parts count as values): true where no per-line scan is needed.
template <typename T>
bool host_range_clear(const T* a, std::int64_t lda, std::int64_t a_inner, std::int64_t a_outer, const T* b,
                      std::int64_t ldb, std::int64_t b_inner, std::int64_t b_outer, std::int64_t k, double abs_alpha);

// The host GEMM of a guarded call (column-major C) on op(A) and op(B) untransposed: one stored transposed is copied
// column-major first. OpenBLAS's kernels (its AVX-512 small-matrix ones) sum in orders that depend on the transposes,
// and the guarded modes keep the emulation's promise of the same bits for every layout and transpose. False where
// the host cannot run it; throws std::bad_alloc before C is written.
template <typename T>
bool host_gemm_untransposed(std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const pack::MatrixView<T>& a,
                            const pack::MatrixView<T>& b, T beta, T* c, std::int64_t ldc);

// The host GEMM of a guarded call (guard=native, auto's native choice): host_scaled where the range needs it, else
// host() (the plain host GEMM, also where the scaled operands cannot be allocated).
template <typename T, typename Host>
int host_in_range(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n, Host&& host) {
  try {
    if (host_scaled<T>(x, m, n)) return BF16X_OK;
  } catch (const std::bad_alloc&) {  // C untouched: the plain host GEMM
  }
  return host();
}

// C on the lines from the host GEMMs of the copies (alpha op(A) op(B) + beta C0 each, kept in range as the guard's
// host GEMM is: host_in_range), the rows first, then the columns. Where the host cannot run one of them, its
// entries go to `failing` and their C0 to `c0` (sorted again), for the repair.
template <typename T>
void run_host_lines(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n, const HostLines& lines,
                    LineCopies<T>& copies, std::vector<Entry>& failing, std::vector<T>& c0);

// emulate(bool& ran, const GuardLines* scales) runs the mode (ran = false where it handed the call to the host GEMM:
// NaN/Inf), with the lines' scale exponents where the guard measured them (else null: the mode scans); host() runs the
// host GEMM (host_in_range); level(g, limit, scan, out) the second fixed-point level (method/second_level.hpp) where
// the proof left too many entries unproved (scan: its lines), kSecondLevelNotRun where it did not run. Each returns a
// bf16x status. C is written only by them and, after a successful emulation, by the repair.
template <typename T, typename Emulate, typename Host, typename Level>
int run_guarded(const GuardRequest& g, const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n, Outcome& out,
                Emulate&& emulate, Host&& host, Level&& level) {
  bool ran = true;
  // A NaN or Inf alpha or beta leaves no finite entry to prove or repair (the repair rounds alpha AB + beta C for
  // finite scalars, and its exact sum would turn an Inf into a finite value): the host GEMM's IEEE classes, as for
  // NaN or Inf operands, where it can take the call; else the mode's own, unrepaired.
  const bool whole = g.part == pack::OutputPart::all;
  if (!std::isfinite(double(x.alpha)) || !std::isfinite(double(x.beta))) {
    if (!whole) return kPartDeclined;
    if (!g.host) return emulate(ran, nullptr);
    out.guard = BF16X_GUARD_NATIVE;
    return host();
  }
  const double t0 = util::now_if(g.timed);
  GuardPlan p;
  try {
    p = plan_guard<T>(g, x.a, x.b, m, n, x.k);
  } catch (const std::bad_alloc&) {  // the digit product's panels: the host GEMM needs none
    if (!g.host) throw;
    p.native = true;
    p.result = BF16X_GUARD_NATIVE;
  }
  out.seconds_guard += util::now_if(g.timed) - t0;
  if (p.nonfinite) return emulate(ran, nullptr);  // the mode hands NaN/Inf to the host GEMM itself
  if (!whole) {
    if (p.native || !p.lines.rows.empty() || !p.lines.cols.empty()) return kPartDeclined;
    std::erase_if(p.failing, [&](const Entry& e) { return !pack::in_part(g.part, e.i, e.j); });
  }
  out.guard = p.result;
  if (p.native && p.unproved && whole && g.second_level_from > 0) {
    const std::uint64_t entries = std::uint64_t(m) * std::uint64_t(n);
    const int st = level(g, g.host ? entries / 8 : entries, p.scan, out);
    if (st != kSecondLevelNotRun) return st;
  }
  if (p.native) return host();
  LineCopies<T> lines;
  try {
    lines = copy_lines<T>(x, m, n, p.lines);
  } catch (const std::bad_alloc&) {  // (lines come only where the host can take the call)
    out.guard = BF16X_GUARD_NATIVE;
    return host();
  }
  std::vector<T> c0 = driver::save_entries(x, p.failing);
  const int st = emulate(ran, p.scales ? &p.scan : nullptr);
  if (st != 0 || !ran) {
    out.guard = 0;
    return st;
  }
  const double t1 = util::now_if(g.timed);
  const std::uint64_t on_lines = p.lines.entries(m, n);
  run_host_lines<T>(x, m, n, p.lines, lines, p.failing, c0);
  driver::repair_entries(x, p.failing, c0, &exact_entry<T>);
  out.seconds_guard += util::now_if(g.timed) - t1;
  // Entries the host recomputed on the lines count as repaired (the summary's emulated share leaves them out).
  out.repaired += p.failing.size() + on_lines;
  out.host_lines += p.lines.rows.size() + p.lines.cols.size();
  out.counters.micro_tiles += p.micro_tiles;
  return st;
}

}  // namespace bf16x::method
