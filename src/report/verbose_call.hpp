// One call as the verbose line and the summary report it (report/verbose.hpp, report/verbose_summary.hpp), and where
// their output goes.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace bf16x::report {

struct VerboseCall {
  bool is_double;
  bool row_major = false;
  char ta, tb;  // 'N', 'T', 'C'
  std::int64_t m, n, k, lda, ldb, ldc;
  double alpha, beta;
  std::string mode{};         // mode that ran, or "-" for a rejected call
  std::string engine{};       // engine or host library, or "-"
  std::string why{};          // extra key=value pairs (",fallback=...", ",auto_fill=..."), may be empty
  int threads = -1;           // bf16x threads of an emulated call; -1: the host BLAS ran it ("threads=host")
  int status = 0;             // bf16x_status
  std::string status_text{};  // the status field where not bf16x_status_string(status) (the shim's rejections)
  double seconds = 0;
  std::uint64_t repaired = 0;  // entries the guard recomputed (their flops count as native in the summary)
  bool is_complex = false;     // cgemm/zgemm: the line also has alpha_im and beta_im
  double alpha_im = 0, beta_im = 0;
  const char* routine = "gemm";  // without its letter: "gemm", "syrk", "trsm", ...
  std::string flags{};           // level 3: its character arguments ("L,N" for syrk), shown in place of ta,tb
  double flops = -1;             // the summary's flop count where not GEMM's 2mnk (8mnk complex)
};

// 's', 'd', 'c' or 'z': the routine's letter.
inline char routine_letter(const VerboseCall& c) {
  return c.is_complex ? (c.is_double ? 'z' : 'c') : (c.is_double ? 'd' : 's');
}

// Where verbose output goes: BF16X_VERBOSE_OUTPUT_FILE (appended to), else stderr; a file that cannot be opened is
// said once and stderr used.
std::FILE* verbose_sink();

}  // namespace bf16x::report
