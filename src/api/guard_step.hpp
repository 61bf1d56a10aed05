// The componentwise guard around one emulated call (policy/guard.hpp, docs/numerics.md "Componentwise guard"):
// whether it applies, the proof (the fill envelope, then the INT8 digit product), and the repair of the entries it
// could not prove by dot products, or the host GEMM for the whole call where those would cost as much.
#pragma once
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "api/real_gemm.hpp"
#include "bf16x/bf16x.h"
#include "driver/entry_repair.hpp"
#include "policy/guard.hpp"
#include "util/clock.hpp"

namespace bf16x::api {

struct GuardRequest {
  int mode = 0;           // the concrete emulation mode
  bool is_double = true;  // dgemm (the target's unit roundoff)
  int int8_engine = -1;   // the INT8 engine of the digit product
  int block_k = 0;        // bf16x_options.block_k
  double fill = -1;       // policy::fill_ratio if auto measured it, else -1
  double tau = 0;         // the target; 0: guard_target (4 k u)
  bool host = true;       // a host GEMM can take the call: else every unproved entry is repaired
};

// Whether a call in `mode` is guarded: `option` (bf16x_options.guard, else BF16X_GUARD: CallPlan::guard), else the
// default (fp64x21, fp64c15 and up, fp32c8 and up, and every mode auto chose); never for the paper's unscaled split,
// whose slices the bounds do not describe, nor for fp32x6 (floating-point slices: componentwise by construction).
bool guard_applies(int option, int mode, bool chosen_by_auto, bool scaled);

// The proof for op(A), op(B): the entries to repair, or `native` (too many: more than 1/8 of C).
struct GuardPlan {
  bool native = false;
  bool nonfinite = false;
  int result = 0;  // bf16x_guard_result
  std::vector<policy::Entry> failing;
  std::uint64_t micro_tiles = 0;
};
template <typename T>
GuardPlan plan_guard(const GuardRequest& g, const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m,
                     std::int64_t n, std::int64_t k);

// The verbose fields of a guarded call: ",guard=envelope|entries|native[,repaired=N]".
std::string guard_why(int result, std::uint64_t repaired);

// emulate(bool& ran) runs the mode (ran = false where it handed the call to the host GEMM: NaN/Inf); host() runs the
// host GEMM. Both return a bf16x status. C is written only by them and, after a successful emulation, by the repair.
template <typename T, typename Emulate, typename Host>
int run_guarded(const GuardRequest& g, const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n, Outcome& out,
                Emulate&& emulate, Host&& host) {
  const double t0 = util::now();
  GuardPlan p;
  try {
    p = plan_guard<T>(g, x.a, x.b, m, n, x.k);
  } catch (const std::bad_alloc&) {  // the digit product's panels: the host GEMM needs none
    if (!g.host) throw;
    p.native = true;
    p.result = BF16X_GUARD_NATIVE;
  }
  out.seconds_guard += util::now() - t0;
  bool ran = true;
  if (p.nonfinite) return emulate(ran);  // the mode hands NaN/Inf to the host GEMM itself
  out.guard = p.result;
  if (p.native) return host();
  const std::vector<T> c0 = driver::save_entries(x, p.failing);
  const int st = emulate(ran);
  if (st != 0 || !ran) {
    out.guard = 0;
    return st;
  }
  const double t1 = util::now();
  driver::repair_entries(x, p.failing, c0);
  out.seconds_guard += util::now() - t1;
  out.repaired += p.failing.size();
  out.counters.micro_tiles += p.micro_tiles;
  return st;
}

}  // namespace bf16x::api
