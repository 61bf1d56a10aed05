// The inner loops of the per-line operand scan (pack/line_scan.hpp), built once per vector level (cmake/isa.cmake):
// unsigned maxima and minima of magnitude bit patterns, exact in every variant.
#pragma once
#include <cstdint>

namespace bf16x::pack {

struct ScanLoops {
  // Largest magnitude pattern of x[0..len).
  std::uint32_t (*line_max_fp32)(const float* x, std::int64_t len);
  std::uint64_t (*line_max_fp64)(const double* x, std::int64_t len);
  // m[i] = max(m[i], |x[i]|) for i < len.
  void (*lane_max_fp32)(const float* x, std::int64_t len, std::uint32_t* m);
  void (*lane_max_fp64)(const double* x, std::int64_t len, std::uint64_t* m);
  // *hi = the largest, *lo = the smallest nonzero magnitude pattern of x[0..len) (0: none; +0 and -0 do not count).
  void (*line_extremes_fp32)(const float* x, std::int64_t len, std::uint32_t* hi, std::uint32_t* lo);
  void (*line_extremes_fp64)(const double* x, std::int64_t len, std::uint64_t* hi, std::uint64_t* lo);
  // hi[i] = max(hi[i], |x[i]|), lo[i] = the smaller nonzero of lo[i] and |x[i]| (0: none) for i < len.
  void (*lane_extremes_fp32)(const float* x, std::int64_t len, std::uint32_t* hi, std::uint32_t* lo);
  void (*lane_extremes_fp64)(const double* x, std::int64_t len, std::uint64_t* hi, std::uint64_t* lo);
};

// scan_loops_generic.cpp (x86-64), scan_loops_avx2_isa.cpp, scan_loops_avx512_isa.cpp.
extern const ScanLoops kScanLoopsGeneric, kScanLoopsAvx2, kScanLoopsAvx512;

// The variant for this CPU (cpu::vector_level()).
const ScanLoops& scan_loops();

}  // namespace bf16x::pack
