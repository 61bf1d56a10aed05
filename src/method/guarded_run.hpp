// A method's emulation under the plan's guard where it applies (method/guard.hpp run_guarded), else alone.
#pragma once
#include "host/host_blas.hpp"
#include "method/call.hpp"
#include "method/guard.hpp"
#include "method/plan.hpp"

namespace bf16x::method {

// driver(scales) runs the method's driver (a util::DriverStatus) with the lines' scale exponents the guard measured
// (null where it did not: the driver scans): `done` where it wrote C, not where it handed NaN or Inf to the host GEMM
// (nonfinite_input). The status of the call; out.guard == BF16X_GUARD_NATIVE where the guard sent the
// whole call to the host GEMM instead (the plan's reason then on the verbose line, as for a call the method ran).
// level(g, limit, scan, out): the method's second fixed-point level (method/second_level.hpp), kSecondLevelNotRun
// where it has none; `done` where it ran.
template <typename T, typename Driver, typename Level>
int guarded_run(const Plan& p, const Call<T>& x, Outcome& out, bool& done, Driver&& driver, Level&& level) {
  done = false;
  const auto emulate = [&](bool& ran, const GuardLines* scales) {
    const util::DriverStatus s = driver(scales);
    done = ran = s == util::DriverStatus::ok;
    return call_status(s);
  };
  if (!p.guard) {
    bool ran;
    return emulate(ran, nullptr);
  }
  GuardRequest g = *p.guard;
  g.host = host::can_take(x.m, x.n, x.k, x.lda, x.ldb, x.ldc);  // else the guard repairs every unproved entry
  g.part = x.part;
  const auto second = [&](const GuardRequest& r, std::uint64_t limit, const GuardLines& scan, Outcome& o) {
    const int st = level(r, limit, scan, o);
    done = st == BF16X_OK;
    return st;
  };
  const int st = run_guarded<T>(
      g, x.repair(), x.m, x.n, out, emulate, [&] { return x.host_guarded(); }, second);
  if (out.guard == BF16X_GUARD_NATIVE) out.why += p.reason;
  return st;
}

// The scale exponents the guard measured, for the driver (pack::KnownScales; none where scales is null).
inline pack::KnownScales known_scales(const GuardLines* scales) {
  return scales ? pack::KnownScales{scales->ea.data(), scales->eb.data()} : pack::KnownScales{};
}

// The end of a method's call: what ran, and the plan's reason on the verbose line.
inline void ran_as_planned(const Plan& p, Outcome& out) {
  out.mode = p.mode;
  out.engine = p.engine;
  out.why += p.reason;
}

// A method without a second level (guarded_run's `level`).
inline int no_second_level(const GuardRequest&, std::uint64_t, const GuardLines&, Outcome&) {
  return kSecondLevelNotRun;
}

// NaN or Inf in the operands, or a NaN or Inf alpha or beta: the host GEMM classifies them exactly.
template <typename T>
int nonfinite_to_host(const Call<T>& x, Outcome& out) {
  out.why = ",fallback=nonfinite";
  return x.host();
}

}  // namespace bf16x::method
