// bf16x bench --routine cgemm|zgemm: the complex routines' speed, host CGEMM/ZGEMM against every mode with the 4M
// and 3M methods, per size and thread count (uniform [-1, 1] parts, square, column-major, alpha 1, beta 0).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bf16x::cli {

struct ComplexBenchArgs {
  std::string routine;  // cgemm or zgemm
  std::vector<std::int64_t> sizes;
  std::vector<int> threads;
  std::vector<std::string> modes;    // modes of the routine's precision; "native" is the host row
  std::vector<std::string> methods;  // 4m, 3m
  int engine = 0;
  int reps = 5, warmup = 1;
  std::string csv;  // optional: the rows as CSV
};

int run_complex_bench(const ComplexBenchArgs& a);  // the process exit code

}  // namespace bf16x::cli
