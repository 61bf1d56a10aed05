#include "settings/runtime.hpp"

#include <omp.h>

#include <atomic>
#include <cmath>

#include "bf16x/bf16x.h"
#include "settings/env.hpp"
#include "settings/names.hpp"
#include "util/after_fork.hpp"

namespace bf16x::settings {
namespace {

constexpr int kUnset = -1;
std::atomic<int> g_sgemm_mode{kUnset}, g_dgemm_mode{kUnset}, g_engine{BF16X_ENGINE_AUTO},
    g_crt_engine{BF16X_ENGINE_AUTO}, g_verbose{kUnset}, g_threads{0};
std::atomic<double> g_target{-1.0};
std::atomic<unsigned> g_generation{0};
void changed() { g_generation.fetch_add(1); }

// DEFAULT removes the setting; any other mode must fit the routine.
int set_mode(std::atomic<int>& slot, int mode, bool is_double) {
  if (mode == BF16X_MODE_DEFAULT) {
    slot = kUnset;
    changed();
    return BF16X_OK;
  }
  if (!bf16x_mode_name(mode) || !mode_fits(mode, is_double)) return BF16X_ERR_MODE;
  slot = mode;
  changed();
  return BF16X_OK;
}

}  // namespace

int effective_mode(bool is_double) {
  const int m = (is_double ? g_dgemm_mode : g_sgemm_mode).load(std::memory_order_relaxed);
  return m != kUnset ? m : (is_double ? env().dgemm_mode : env().sgemm_mode);
}
Settings current_settings() {
  const Env& e = env();
  Settings s;
  s.sgemm_mode = effective_mode(false);
  s.dgemm_mode = effective_mode(true);
  s.engine = runtime_engine();
  s.crt_engine = runtime_crt_engine();
  s.env_engine = e.engine;
  s.auto_target = effective_auto_target();
  s.auto_cost = e.auto_cost;
  s.min_size = e.min_size;
  s.split = e.split;
  s.guard = e.guard;
  s.crt_fast_scaling = e.crt_fast_scaling;
  s.complex_method = e.complex_method;
  return s;
}

int runtime_engine() { return g_engine.load(std::memory_order_relaxed); }
int runtime_crt_engine() { return g_crt_engine.load(std::memory_order_relaxed); }
void set_runtime_engine(int engine) {
  g_engine = engine;
  changed();
}
void set_runtime_crt_engine(int engine) {
  g_crt_engine = engine;
  changed();
}
unsigned generation() { return g_generation.load(); }
double effective_auto_target() {
  const double t = g_target.load(std::memory_order_relaxed);
  return t >= 0 ? t : env().auto_target;
}
bool effective_verbose() {
  const int v = g_verbose.load(std::memory_order_relaxed);
  return v != kUnset ? v != 0 : env().verbose;
}
int runtime_threads() { return g_threads.load(std::memory_order_relaxed); }
int effective_threads() {
  if (util::team_lost_in_fork()) return 1;  // OpenMP's pool did not survive the fork (util/after_fork.hpp)
  const int n = runtime_threads();
  return n > 0 ? n : env().num_threads;
}

}  // namespace bf16x::settings

extern "C" {

int bf16x_set_sgemm_mode(int mode) { return bf16x::settings::set_mode(bf16x::settings::g_sgemm_mode, mode, false); }
int bf16x_set_dgemm_mode(int mode) { return bf16x::settings::set_mode(bf16x::settings::g_dgemm_mode, mode, true); }

int bf16x_get_sgemm_mode(void) { return bf16x::settings::effective_mode(false); }
int bf16x_get_dgemm_mode(void) { return bf16x::settings::effective_mode(true); }

int bf16x_set_auto_target(double target) {
  if (!(target >= 0) || target == HUGE_VAL) return BF16X_ERR_OPTIONS;
  bf16x::settings::g_target = target == 0 ? -1.0 : target;
  bf16x::settings::changed();
  return BF16X_OK;
}

double bf16x_get_auto_target(void) { return bf16x::settings::effective_auto_target(); }

void bf16x_set_verbose(int on) { bf16x::settings::g_verbose = on < 0 ? bf16x::settings::kUnset : (on != 0); }
int bf16x_get_verbose(void) { return bf16x::settings::effective_verbose() ? 1 : 0; }

int bf16x_set_num_threads(int threads) {
  if (threads < 0 || threads > BF16X_MAX_THREADS) return BF16X_ERR_OPTIONS;
  bf16x::settings::g_threads = threads;
  return BF16X_OK;
}

int bf16x_get_num_threads(void) {
  const int n = bf16x::settings::effective_threads();
  return n > 0 ? n : omp_get_max_threads();
}

}  // extern "C"
