// Verbose lines (format in docs/verbose.md): one header line per process, then one line per call, emulated,
// native or rejected, from the C API and from the BLAS shim alike, on stderr or BF16X_VERBOSE_OUTPUT_FILE:
//
//   BF16X_VERBOSE,header,version=0.1.0,engine=avx512bf16,isa=...,host=libopenblas.so.0,kernel=Cooperlake,threads=2
//   BF16X_VERBOSE,dgemm,N,T,m,n,k,mode=fp64x6,engine=avx512bf16[,why],layout=col,alpha=1,lda=..,ldb=..,beta=0,
//       ldc=..,threads=2,status=ok,time_ms=1.234
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace bf16x::api {

struct VerboseCall {
  bool is_double;
  bool row_major = false;
  char ta, tb;  // 'N', 'T', 'C'
  std::int64_t m, n, k, lda, ldb, ldc;
  double alpha, beta;
  std::string mode{};    // mode that ran, or "-" for a rejected call
  std::string engine{};  // engine or host library, or "-"
  std::string why{};     // extra key=value pairs (",fallback=...", ",auto_fill=..."), may be empty
  int threads = -1;      // bf16x threads of an emulated call; -1: the host BLAS ran it ("threads=host")
  int status = 0;        // bf16x_status
  double seconds = 0;
  std::uint64_t repaired = 0;  // entries the guard recomputed (their flops count as native in the summary)
  bool is_complex = false;     // cgemm/zgemm: the line also has alpha_im and beta_im
  double alpha_im = 0, beta_im = 0;
};

// 's', 'd', 'c' or 'z': the routine's letter.
inline char routine_letter(const VerboseCall& c) {
  return c.is_complex ? (c.is_double ? 'z' : 'c') : (c.is_double ? 'd' : 's');
}

// Whether a call should build its VerboseCall: per-call lines are on (BF16X_VERBOSE=1, bf16x_set_verbose) or the
// summary at exit is (BF16X_VERBOSE=summary or all).
bool verbose_wanted();

// Every call's one report: counted for the summary if it is on; if lines are on, writes the header first if this
// process has not, then the call's line (one write, so lines never interleave).
void verbose_line(const VerboseCall& c);

// Where verbose output goes: BF16X_VERBOSE_OUTPUT_FILE, else stderr.
std::FILE* verbose_sink();

}  // namespace bf16x::api
