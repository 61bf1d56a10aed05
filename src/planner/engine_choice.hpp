// Which BF16 engine a call runs on: the call's request, else bf16x_set_engine, else BF16X_ENGINE, else the best
// available (engine/records.hpp's order).
#pragma once

#include "settings/settings.hpp"

namespace bf16x::planner {

using settings::Settings;  // what a plan depends on besides the call

// Resolves a requested engine id. AUTO consults the runtime setting, then BF16X_ENGINE (read once; an unavailable
// choice falls back and is said once on stderr). Returns -1 if an explicitly requested engine cannot run here.
int resolve_engine(int requested, const Settings& s);

// An engine that only runs INT8 products (the CRT modes): avx2-int8, avx512vnni.
bool int8_only(int engine);
// The INT8 engine the CRT modes use beside a resolved BF16 engine: the BF16 engine itself where its record carries
// the CRT modes (reference, amx, amx-model) and this CPU runs its INT8 side, else BF16X_CRT_ENGINE or the best.
int crt_engine_for(int bf16_engine);
// The INT8 engine of a CRT-mode call: an explicit request if usable (else -1); AUTO: bf16x_set_engine's INT8
// setting, else BF16X_CRT_ENGINE, else an INT8-only BF16X_ENGINE, else the best available.
int resolve_crt_engine(int requested, const Settings& s);
// The same for a call: BF16X_OK with `id` set, BF16X_ERR_ENGINE_KIND for a BF16-only engine, BF16X_ERR_ENGINE for an
// INT8 engine this CPU cannot run.
int crt_engine_for_call(int requested, int& id, const Settings& s);

}  // namespace bf16x::planner
