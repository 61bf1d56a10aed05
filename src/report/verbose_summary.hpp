// The verbose summary (BF16X_VERBOSE=summary or all, docs/verbose.md): every call's report is counted under its
// (routine, mode, engine), and at process exit (or when the library is unloaded) one block is written where verbose
// lines go:
//
//   BF16X_SUMMARY,routine=dgemm,mode=fp64x21,engine=avx2,calls=12,gflop=3.21,seconds=0.456,repaired=40,repaired_gflop=0.0001
//   BF16X_SUMMARY,total,calls=12,gflop=3.21,emulated_gflop_share=0.99997,repaired=40
//
// repaired: entries the componentwise guard recomputed by FP64 dot products (repaired_gflop: their 2k flops each),
// which count as not emulated.
#pragma once
#include "report/verbose_call.hpp"

namespace bf16x::report {

// One call as a summary counts it: plain C fields, as it crosses between bf16x instances (report/verbose_hub.hpp, which
// sends every instance's calls to one summary).
struct SummaryRecord {
  const char* routine;  // "dgemm"
  const char* mode;
  const char* engine;
  double flops, seconds, repaired, repaired_flops;
};
// Counts it in this instance's own summary (thread-safe). The first call arranges the block at exit; a process with no
// call writes nothing.
void summary_add(const SummaryRecord& r);

}  // namespace bf16x::report
