// The decision of one call, made once before any operand is read: the mode the call's options and its settings give
// (api/settings.hpp: the environment under the runtime settings, read once per call; DEFAULT, BF16X_MIN_SIZE, auto's
// cost model from the shape), the engine that runs it with the engine-kind checks, the split. The real GEMM, the
// workspace query, the complex GEMM and the BLAS shim all ask it; only auto's data-dependent step (choose_auto, the
// fill pass) and the guard's proof come later, in the call that reads the operands.
//
//   C entry (bf16x_dgemm_ex, cblas_dgemm/dgemm_ through the shim) -> checks -> plan_call -> [choose_auto]
//     -> slices: driver::gemm_emulated | CRT: crt::gemm_crt | native: host GEMM   (each under the guard, guard_step)
#pragma once
#include <cstdint>

#include "api/mode_policy.hpp"
#include "bf16x/bf16x.h"

namespace bf16x::api {

struct CallPlan {
  int status = BF16X_OK;            // a refusal: an engine of the other kind, or one this CPU cannot run, for the mode
  int requested = 0;                // the mode asked for, DEFAULT resolved (AUTO stays AUTO)
  int mode = 0;                     // NATIVE, a slice mode, a CRT mode, or AUTO (the operands decide: choose_auto)
  int engine = -1;                  // the BF16 engine (slice modes, auto); the INT8 engine of a CRT mode
  int crt_engine_option = 0;        // the engine option auto's CRT choice runs with (crt_engine_for_call)
  ModeRequest request{};            // what choose_auto needs
  Settings settings;                // what the call was planned with (choose_auto and the CRT engine of auto use them)
  int guard = BF16X_GUARD_DEFAULT;  // the call's guard option, else BF16X_GUARD (guard_applies)
  double user_target = 0;           // the call's auto target, else the settings' (0: none set)
};

// Reads nothing but its arguments; the second form plans with current_settings().
CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k,
                   const Settings& s);
CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace bf16x::api
