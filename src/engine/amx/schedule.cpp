// The AMX kernels' schedule (engine/amx/amx_kernels.hpp): BF16X_AMX_KERNEL, read on first use.
#include <algorithm>
#include <atomic>
#include <iterator>
#include <string>

#include "engine/amx/amx_kernels.hpp"
#include "env/env_vars.hpp"

namespace bf16x::engine::amx {
namespace {

constexpr const char* kNames[] = {"plain", "interleaved", "prefetch"};

std::atomic<int>& chosen() {
  static std::atomic<int> s = [] {
    const std::string v =
        envvar::choice(envvar::process_source(), "BF16X_AMX_KERNEL", {kNames[0], kNames[1], kNames[2]}, kNames[0])
            .value_or(kNames[0]);
    return int(std::find(std::begin(kNames), std::end(kNames), v) - std::begin(kNames));
  }();
  return s;
}

}  // namespace

Schedule schedule() { return Schedule(chosen().load(std::memory_order_relaxed)); }
void set_schedule(Schedule s) { chosen().store(int(s), std::memory_order_relaxed); }
const char* schedule_name(Schedule s) { return kNames[int(s)]; }

}  // namespace bf16x::engine::amx
