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
#include "api/verbose_call.hpp"

namespace bf16x::api {

// Counts one call (thread-safe). The first call arranges the block at exit; a process with no call writes nothing.
void summary_record(const VerboseCall& c);

}  // namespace bf16x::api
