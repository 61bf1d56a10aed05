#include "api/call_plan.hpp"

#include "api/engine_choice.hpp"
#include "api/guard_step.hpp"
#include "api/runtime.hpp"
#include "crt/crt_mode.hpp"
#include "crt/crt_model.hpp"

namespace bf16x::api {

CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k) {
  return plan_call(opt, is_double, m, n, k, current_settings());
}

CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k,
                   const Settings& s) {
  CallPlan p;
  p.settings = s;
  p.guard = opt.guard != BF16X_GUARD_DEFAULT ? opt.guard : s.guard;
  p.user_target = opt.auto_target > 0 ? opt.auto_target : s.auto_target;
  const bool scaled = opt.split == BF16X_SPLIT_SCALED && s.split == BF16X_SPLIT_SCALED;
  p.requested = opt.mode == BF16X_MODE_DEFAULT ? s.mode(is_double) : opt.mode;
  // The mode before the engine is known: DEFAULT and BF16X_MIN_SIZE applied.
  // (Without an engine, AUTO reads as NATIVE here: only a concrete emulation mode can be refused.)
  const int asked = resolve_mode({opt.mode, is_double, m, n, k, -1, opt.auto_target}, s);
  if (crt::is_crt_mode(asked)) {  // CRT modes run on their own INT8 engines
    p.mode = asked;
    p.status = crt_engine_for_call(opt.engine, p.engine, s);
    return p;
  }
  // An INT8-only engine runs no slice mode: an error for a slice mode asked for by name; auto's slice modes take
  // the BF16 engine AUTO would, its CRT modes that INT8 engine. An explicitly requested engine that cannot run here
  // is an error only if an emulation mode is asked for.
  const bool int8_named = int8_only(opt.engine);
  p.engine = resolve_engine(int8_named ? int(BF16X_ENGINE_AUTO) : opt.engine, s);
  const bool emulation_named = asked != BF16X_MODE_NATIVE && asked != BF16X_MODE_AUTO;
  if (emulation_named && int8_named) p.status = BF16X_ERR_ENGINE_KIND;
  if (emulation_named && !int8_named && p.engine < 0 && opt.engine != BF16X_ENGINE_AUTO) p.status = BF16X_ERR_ENGINE;
  if (p.status != BF16X_OK) {
    p.mode = asked;  // what was refused (the shim hands it to the library, which says why)
    return p;
  }
  p.crt_engine_option = int8_named ? opt.engine : crt_engine_for(p.engine);
  p.request = ModeRequest{opt.mode, is_double, m, n, k, p.engine, opt.auto_target, opt.block_k, scaled};
  p.request.guarded =
      guard_applies(p.guard, is_double ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32C(BF16X_FP32C_MAX), true, scaled);
  p.mode = resolve_mode(p.request, s);
  return p;
}

}  // namespace bf16x::api
