// The accuracy experiment for the complex routines (bf16x accuracy --routine cgemm|zgemm): complex operands whose
// real and imaginary parts are drawn from the input class, the host CGEMM/ZGEMM, and every mode with each of the
// complex methods (4M, 3M), against the host routine and the complex double-double reference; complex moduli in
// every measure.
#pragma once
#include "accuracy_run.hpp"

namespace bf16x::cli {

// cfg.routine is "cgemm" or "zgemm"; a mode runs once per cfg.complex_methods entry, reported as "mode/4m".
// The native complex routine's errors go to native_sgemm_vs_exact (cgemm) or native_dgemm_vs_exact (zgemm).
AccuracyReport run_complex_accuracy(const AccuracyConfig& cfg);

}  // namespace bf16x::cli
