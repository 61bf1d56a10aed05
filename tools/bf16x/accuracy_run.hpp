// One accuracy experiment: inputs of a class, the host GEMM and every mode, errors against the host GEMM
// ("native", the paper's reference) and against the double-double reference ("exact").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/inputs.hpp"
#include "check/metrics.hpp"
#include "settings/names.hpp"

namespace bf16x::cli {

struct ModeResult {
  std::string mode;
  check::ErrorStats vs_native;
  check::ErrorStats vs_exact;
  double seconds = 0;         // median over reps
  double native_seconds = 0;  // host GEMM of the same precision, median over reps
  int engine = -1;
  bool host = false;  // the host BLAS ran the call (native, auto's choice or the guard's host GEMM): no speedup
  int status = 0;     // the call's bf16x_status
  std::string error;  // why the mode has no result although the call succeeded or never ran: the library ran
                      // another mode (BF16X_MIN_SIZE), or the CLI's own allocation failed
  bool failed() const { return status != 0 || !error.empty(); }
};
// What a failed mode prints: the call's status string, or the CLI's own reason.
std::string mode_error(const ModeResult& m);

struct AccuracyConfig {
  std::int64_t n = 256;
  std::int64_t k = 0;  // inner dimension (0: n)
  check::Dist dist = check::Dist::uniform;
  std::uint64_t seed = 1;
  std::vector<std::string> modes = settings::bf16_mode_names();
  int engine = 0;                                     // BF16X_ENGINE_AUTO: BF16 engine of the slice modes
  int crt_engine = 0;                                 // INT8 engine of the CRT modes
  int split = 0;                                      // BF16X_SPLIT_SCALED
  int emax = 60;                                      // loguniform range 2^-emax .. 2^emax
  double phi = 0.5;                                   // phi class spread
  int reps = 1;                                       // timing repetitions (median)
  int block_k = 0;                                    // 0: the mode's default BK
  std::string routine = "gemm";                       // gemm (sgemm and dgemm by mode), cgemm or zgemm
  std::vector<std::string> complex_methods = {"4m"};  // cgemm/zgemm: 4m, 3m
};

struct AccuracyReport {
  AccuracyConfig cfg;
  bool ran32 = false, ran64 = false;  // which host references were measured (a precision some mode runs in)
  check::ErrorStats native_sgemm_vs_exact, native_dgemm_vs_exact;
  std::vector<ModeResult> modes;
};

AccuracyReport run_accuracy(const AccuracyConfig& cfg);
// The options of one mode's call ("native32": the host SGEMM row).
bf16x_options mode_options(const AccuracyConfig& cfg, const std::string& name);
// Empty when the call ran the mode asked for, else why its C is not that mode's result: the library forwarded it
// to another (BF16X_MIN_SIZE, a non-finite input), as bench reports it. auto's choice and the guard's sending a call
// to the host GEMM (stats.guard) are that mode's results.
std::string ran_other_mode(int asked, const bf16x_stats& st);
// Whether the host BLAS ran the call (native, auto's choice, the guard's host GEMM): ModeResult::host.
inline bool host_ran(const bf16x_stats& st) { return st.mode == BF16X_MODE_NATIVE || st.guard == BF16X_GUARD_NATIVE; }
// Whether a mode name runs in FP32 (fp32x6, fp32c<N>, fp32cr: settings::mode_fits).
bool single_precision_mode(const std::string& name);
// Bytes the experiment holds at its peak (inputs, references, host results, one mode's C and the library's workspace
// at the current OpenMP thread count), for the check before anything is allocated (cli_checks.hpp).
double accuracy_memory(const AccuracyConfig& cfg);
std::string report_json(const AccuracyReport& r);  // {"n":..,"dist":..,"modes":{...}}
void print_report_table(const AccuracyReport& r);  // readable table like the paper's Table 4

}  // namespace bf16x::cli
