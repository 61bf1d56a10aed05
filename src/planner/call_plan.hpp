// The decision of one call, made once before any operand is read: the mode the call's options and its settings give
// (settings/settings.hpp: the environment under the runtime settings, read once per call; DEFAULT, BF16X_MIN_SIZE,
// auto's cost model from the shape), the engine that runs it with the engine-kind checks, the method's parameters and
// the guard: the plan object (method/plan.hpp) that the real GEMM, the workspace query, the complex GEMM and the BLAS
// shim take. Only auto's data-dependent step (settle_auto: the fill pass) and the guard's proof come later, in the call
// that reads the operands.
//
//   C entry (bf16x_dgemm_ex, cblas_dgemm/dgemm_ through the shim) -> checks -> plan_call -> [settle_auto]
//     -> method::run (method/table.hpp: slices | crt | correctly_rounded | native, each under its guard)
#pragma once
#include <cstdint>

#include "bf16x/bf16x.h"
#include "method/plan.hpp"
#include "planner/mode_policy.hpp"

namespace bf16x::planner {

// The plan, and what auto's data step needs to finish it.
struct CallPlan : method::Plan {
  ModeRequest request{};                   // what choose_auto needs (a reused plan's: not its call's shape)
  Settings settings;                       // what the call was planned with
  int engine_option = 0;                   // the call's engine option (the reference engine's warning)
  int crt_engine_option = 0;               // the engine option auto's CRT choice runs with (crt_engine_for_call)
  int guard_option = BF16X_GUARD_DEFAULT;  // the call's guard option, else BF16X_GUARD (guard_applies)
  double user_target = 0;                  // the call's auto target, else the settings' (0: none set)
};

// Reads nothing but its arguments; the second form plans with current_settings().
CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k,
                   const Settings& s);
CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k);

// Auto's data-dependent step (plan.mode AUTO): the fill pass over op(A) and op(B) chooses the mode (choose_auto), and
// the plan is finished for it. BF16X_OK, or a refusal (no INT8 engine for its CRT choice).
template <typename T>
int settle_auto(CallPlan& plan, const pack::MatrixView<T>& a, const pack::MatrixView<T>& b);

}  // namespace bf16x::planner
