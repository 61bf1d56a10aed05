// Re-entry guard. While the shim is working on a call (running the emulation, or forwarding to the host BLAS), a
// GEMM entry point reached again on the same thread comes from a host library (a CBLAS wrapper calling dgemm_, a
// host cblas_dgemm reached by the library's native path): it goes straight to the next definition, never back
// into bf16x, so LD_PRELOAD cannot recurse.
#pragma once

namespace bf16x::blas {

inline thread_local int shim_depth = 0;  // how many shim calls this thread is inside

// This thread is inside a shim call for the scope's lifetime (it is neither copied nor moved).
struct ShimScope {
  ShimScope() { ++shim_depth; }
  ~ShimScope() { --shim_depth; }
  ShimScope(ShimScope&&) = delete;

  static bool active() { return shim_depth > 0; }
};

}  // namespace bf16x::blas
