// Mode resolution: DEFAULT -> the environment's mode; small problems (BF16X_MIN_SIZE) -> native; AUTO -> the cost
// model first (from the shape alone), then, only where emulation could be faster, the accuracy target against
// the error model of the operands (docs/auto.md).
#pragma once
#include <cstdint>
#include <vector>

#include "pack/operand.hpp"
#include "settings/names.hpp"  // mode_fits
#include "settings/settings.hpp"

namespace bf16x::planner {

using settings::Settings;  // what a plan depends on besides the call

struct ModeRequest {
  int mode;        // as passed (may be DEFAULT or AUTO)
  bool is_double;  // dgemm
  std::int64_t m, n, k;
  int engine;            // resolved engine id, or -1 if none usable
  double target;         // auto: target e_scaled; 0: BF16X_AUTO_TARGET, else the native GEMM's bound gamma_k
  int block_k = 0;       // bf16x_options.block_k (0: default)
  bool scaled = true;    // the scaled split: the error model's bounds do not hold for the paper's unscaled slices
  bool guarded = false;  // auto's choice runs under the componentwise guard (method/guard.hpp)
};

// A concrete mode (NATIVE, FP32X6, FP64X*), or AUTO where emulation may be faster and the choice needs the
// operands (choose_auto). Reads nothing but the request and the settings (the second form: current_settings()).
int resolve_mode(const ModeRequest& r, const Settings& s);
int resolve_mode(const ModeRequest& r);

// The auto target in e_scaled: the request's, else the settings' (BF16X_AUTO_TARGET), else native_escaled (gamma_k).
double auto_target(const ModeRequest& r, const Settings& s);

struct AutoChoice {
  int mode = 0;            // concrete
  bool measured = false;   // the fill pass over A and B ran
  bool nonfinite = false;  // ... and found NaN/Inf: the host GEMM classifies them
  double fill_ratio = 0;   // policy::fill_ratio of the operands
  double predicted = 0;    // predicted e_scaled of the chosen emulation mode
  double target = 0;
  // The scale exponents of op(A)'s rows and op(B)'s columns from the same pass (policy::measure_fill), where it
  // measured finite operands: the guard hands them to the driver, which then scans neither operand again.
  std::vector<int> ea, eb;
};

// Auto for op(A) (m x k) and op(B) (k x n): native without touching the operands unless the cost model lets the
// cheapest scheme win; else the fewest products whose predicted e_scaled meets the target, if that scheme still
// wins on cost; else native. Guarded (r.guarded), where no scheme's envelope meets the target, the CRT scheme with
// the most moduli (fp64c20, fp32c10; fp64x21 without an INT8 engine) is the candidate: the guard proves or repairs
// entry by entry.
template <typename T>
AutoChoice choose_auto(const ModeRequest& r, const Settings& s, const pack::MatrixView<T>& a,
                       const pack::MatrixView<T>& b);

}  // namespace bf16x::planner
