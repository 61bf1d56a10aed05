// Force-included (-include) into every translation unit of the ThreadSanitizer build.
//
// Functions declared with __attribute__((target_clones(...))) are dispatched by an ifunc resolver that the loader
// runs while relocating the executable, before the TSan runtime is initialised; both GCC and clang instrument the
// resolver (__tsan_func_entry), so the test binary crashes at load. Here each such function is compiled once, for
// the default target (`target_clones(...)` becomes `used`); what TSan checks, the memory accesses, is unchanged.
#pragma once
#define target_clones(...) used
