// A method's emulation under the plan's guard where it applies (method/guard.hpp run_guarded), else alone.
#pragma once
#include "host/host_blas.hpp"
#include "method/call.hpp"
#include "method/guard.hpp"
#include "method/plan.hpp"

namespace bf16x::method {

// emulate(bool& ran) runs the method (ran = false where it handed NaN/Inf to the host GEMM). The status of the call;
// out.guard == BF16X_GUARD_NATIVE where the guard sent the whole call to the host GEMM instead (the plan's reason then
// on the verbose line, as for a call the method ran).
template <typename T, typename Emulate>
int guarded_run(const Plan& p, const Call<T>& x, Outcome& out, Emulate&& emulate) {
  if (!p.guard) {
    bool ran;
    return emulate(ran);
  }
  GuardRequest g = *p.guard;
  g.host = host::can_take(x.m, x.n, x.k, x.lda, x.ldb, x.ldc);  // else the guard repairs every unproved entry
  const int st = run_guarded<T>(g, x.repair(), x.m, x.n, out, emulate, [&] { return x.host_guarded(); });
  if (out.guard == BF16X_GUARD_NATIVE) out.why += p.reason;  // the decision stands on the line: the host ran it
  return st;
}

// The end of a method's call: what ran, and the plan's reason on the verbose line.
inline void ran_as_planned(const Plan& p, Outcome& out) {
  out.mode = p.mode;
  out.engine = p.engine;
  out.why += p.reason;
}

// NaN or Inf in the operands, or a NaN or Inf alpha or beta: the host GEMM classifies them exactly.
template <typename T>
int nonfinite_to_host(const Call<T>& x, Outcome& out) {
  out.why = ",fallback=nonfinite";
  return x.host();
}

}  // namespace bf16x::method
