// The reference points of `bf16x bench`: host BLAS thread control, oneDNN's BF16 matmul (the raw BF16 GEMM of a
// vendor library) and the VDPBF16PS peak of this CPU.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "split/bf16.hpp"

namespace bf16x::cli::bench {

// Sets the host BLAS thread count (OpenBLAS or BLIS entry point found in the loaded library). Returns the call
// used, or "" when the library offers none.
std::string set_host_threads(int threads);

// C (m x n, FP32) = A (m x k, BF16) B (k x n, BF16), row-major, through a oneDNN matmul primitive created once.
class OnednnMatmul {
 public:
  OnednnMatmul(std::int64_t m, std::int64_t n, std::int64_t k);
  ~OnednnMatmul();
  bool ok() const;
  double run(const bf16_t* a, const bf16_t* b, float* c);  // seconds of one execution (stream waited)
  std::string impl() const;                                // oneDNN's implementation name
  static std::string version();

 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

// VDPBF16PS issue rate: `threads` threads each running independent register chains for about `seconds`.
struct Peak {
  int threads = 0;
  double gflops = 0;  // all threads together, 64 flops per instruction
  double gflops_per_thread = 0;
  double latency_ns = 0;  // one dependent chain, one thread
};
Peak measure_peak(int threads, double seconds);

// A short peak measurement to pair with each timed run of a raw GEMM (the machine may be shared: a ratio of two
// measurements taken back to back is steadier than a ratio of two medians taken minutes apart).
class PeakProbe {
 public:
  PeakProbe(int threads, double seconds);  // calibrates the iteration count for about `seconds`
  double gflops() const;                   // one measurement, all threads together
 private:
  int threads_;
  std::uint64_t iters_ = 0;
};

}  // namespace bf16x::cli::bench
