// The AMX kernels' schedule (engine/amx/amx_kernels.hpp): BF16X_AMX_KERNEL, read on first use.
#include <atomic>
#include <string>

#include "engine/amx/amx_kernels.hpp"
#include "env/env_vars.hpp"

namespace bf16x::engine::amx {
namespace {

constexpr const char* kNames[] = {"plain", "interleaved", "prefetch"};

std::atomic<int>& chosen() {
  static std::atomic<int> s = [] {
    const std::string v =
        envvar::choice(envvar::process_source(), "BF16X_AMX_KERNEL", {"plain", "interleaved", "prefetch"}, "plain")
            .value_or("plain");
    return v == "interleaved" ? int(Schedule::interleaved) : v == "prefetch" ? int(Schedule::prefetch) : 0;
  }();
  return s;
}

}  // namespace

Schedule schedule() { return Schedule(chosen().load(std::memory_order_relaxed)); }
void set_schedule(Schedule s) { chosen().store(int(s), std::memory_order_relaxed); }
const char* schedule_name(Schedule s) { return kNames[int(s)]; }

}  // namespace bf16x::engine::amx
