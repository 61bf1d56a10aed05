// Runtime settings (bf16x_set_* in bf16x/bf16x_runtime.h), layered over the environment: the effective value of
// each setting is the runtime one where it was set, else the environment's (settings/env.hpp), else the default. The
// call's own arguments override both. Lock-free: each setting is one atomic, read at the start of a call.
#pragma once

#include "settings/settings.hpp"
#include "util/thread_scope.hpp"

namespace bf16x::settings {

// The settings a call plans with, read once at its start.
Settings current_settings();
// A count that every bf16x_set_* of a setting in Settings raises after storing it: a plan made with the settings
// read after this count was read stands while the count stays (planner/call_plan.cpp).
unsigned generation();

int effective_mode(bool is_double);   // BF16X_MODE_NATIVE / AUTO / an emulation mode of that precision
int runtime_engine();                 // BF16X_ENGINE_AUTO unless bf16x_set_engine chose one
int runtime_crt_engine();             // BF16X_ENGINE_AUTO unless bf16x_set_engine chose an INT8-only engine
void set_runtime_engine(int engine);  // bf16x_set_engine's settings (planner/engine_choice.cpp checks them)
void set_runtime_crt_engine(int engine);
double effective_auto_target();  // 0: the native GEMM's bound
bool effective_verbose();
int runtime_threads();  // bf16x_set_num_threads; 0: not set
// 1 in a child forked from a threaded process (util/after_fork.hpp); else runtime_threads(), else
// BF16X_NUM_THREADS; 0: OpenMP's default (omp_get_max_threads).
int effective_threads();

// Sets the calling thread's OpenMP thread count to effective_threads() for its lifetime (nothing when 0).
struct ThreadScope : util::ThreadScope {
  ThreadScope() : util::ThreadScope(effective_threads()) {}
};

}  // namespace bf16x::settings
