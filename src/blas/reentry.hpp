// Re-entry guard. While the shim is working on a call (running the emulation, or forwarding to the host BLAS), a
// GEMM entry point reached again on the same thread comes from a host library (a CBLAS wrapper calling dgemm_, a
// host cblas_dgemm reached by the library's native path): it goes straight to the next definition, never back
// into bf16x, so LD_PRELOAD cannot recurse.
#pragma once

namespace bf16x::blas {

class ShimScope {
 public:
  ShimScope();
  ~ShimScope();
  ShimScope(const ShimScope&) = delete;
  ShimScope& operator=(const ShimScope&) = delete;

  static bool active();  // this thread is inside a shim call
};

}  // namespace bf16x::blas
