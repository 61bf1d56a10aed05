// Verbose lines (format in docs/verbose.md): one header line per process, then one line per call, emulated,
// native or rejected, from the C API and from the BLAS shim alike, on stderr or BF16X_VERBOSE_OUTPUT_FILE:
//
//   BF16X_VERBOSE,header,version=0.1.0,engine=avx512bf16,isa=...,host=libopenblas.so.0,kernel=Cooperlake,threads=2
//   BF16X_VERBOSE,dgemm,N,T,m,n,k,mode=fp64x6,engine=avx512bf16[,why],layout=col,alpha=1,lda=..,ldb=..,beta=0,
//       ldc=..,threads=2,status=ok,time_ms=1.234
#pragma once
#include "report/verbose_call.hpp"

namespace bf16x::report {

// Whether a call should build its VerboseCall: per-call lines are on (BF16X_VERBOSE=1, bf16x_set_verbose) or the
// summary at exit is (BF16X_VERBOSE=summary or all).
bool verbose_wanted();

// Every call's one report: counted for the summary if it is on; if lines are on, writes the header first if this
// process has not, then the call's line (one write, so lines never interleave).
void verbose_line(const VerboseCall& c);

}  // namespace bf16x::report
