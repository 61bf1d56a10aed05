// The checked real GEMM after layout normalisation, shared by bf16x_sgemm/bf16x_dgemm and by the complex routines
// (which run it on the deinterleaved real and imaginary parts).
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include "bf16x/bf16x.h"
#include "method/outcome.hpp"
#include "pack/operand.hpp"
#include "planner/call_plan.hpp"
#include "report/verbose.hpp"
#include "settings/env.hpp"
#include "settings/names.hpp"
#include "settings/runtime.hpp"

namespace bf16x::api {

// What a call did (method/outcome.hpp), summed over the GEMMs of a call that runs several.
using method::merge_outcome;
using method::Outcome;
// The layers the entries stand on: the plan (planner/), the verbose line (report/), the settings (settings/).
using planner::CallPlan;
using planner::plan_call;
using planner::settle_auto;
using report::verbose_line;
using report::verbose_wanted;
using report::VerboseCall;
using settings::env;
using settings::mode_fits;
using settings::ThreadScope;

// BF16X_OK or the status for options out of range or a mode of the other precision.
int check_options(const bf16x_options& o, bool is_double);

// A checked call on column-major operand views (row-major operands already read as transposed) and a C in either
// layout (c_rows: C(i, j) at c[i * ldc + j]): quick return, engine and mode, then the driver or the host GEMM.
// Returns the status; C is written only when it returns BF16X_OK.
// With `part` a triangle of the square C (GEMMT in one call), only that part is computed and written, where the
// plan's method takes parts (method::Row::parts) and the call needs no host GEMM; else method::kPartDeclined, with
// nothing written and nothing in `out`. `a_lower`: op(A) is lower triangular (pack::LowerOperand), and the
// drivers may skip its zero products.
template <typename T>
int run_gemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
             std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, bool c_rows,
             const bf16x_options& opt, Outcome& out, pack::OutputPart part = pack::OutputPart::all,
             pack::LowerOperand a_lower = {});

// The interleaved complex type of bf16x.h for float or double.
template <typename T>
using ComplexOf = std::conditional_t<std::is_same_v<T, float>, bf16x_complex_float, bf16x_complex_double>;

// The checked complex GEMM (api/complex_entry.cpp), as run_gemm is for the real one: op(A) and op(B) read in place
// as the column-major storage transposed and/or conjugated, C in either layout.
struct OperandFlags {
  bool transposed, conj;
};
template <typename T>
int run_complex_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const ComplexOf<T>& alpha, const ComplexOf<T>* a,
                     std::int64_t lda, OperandFlags fa, const ComplexOf<T>* b, std::int64_t ldb, OperandFlags fb,
                     const ComplexOf<T>& beta, ComplexOf<T>* c, std::int64_t ldc, bool c_rows, const bf16x_options& opt,
                     Outcome& out);

char trans_char(int t);  // 'N', 'T', 'C'

// The verbose record of a call as the caller made it (layout, transposes and leading dimensions before
// normalisation); alpha, beta and the complex fields are the caller's to fill.
VerboseCall call_as_made(bool is_double, int layout, int transa, int transb, std::int64_t m, std::int64_t n,
                         std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc);

// The start of every GEMM call (real and complex): the caller's options (no further than their size) or the
// defaults, their stats cleared (engine -1 until a call runs); `status` BF16X_ERR_OPTIONS for options or stats
// smaller than the first version (then the defaults, nothing written).
bf16x_options call_options(const bf16x_options* user, int& status);

// The defaults with `mode`: the options of the plain entries (bf16x_sgemm .. bf16x_zgemm).
bf16x_options options_for_mode(int mode);

// Whether a call made with `opt` wants its seconds (its stats, a verbose line or the summary, as Plan::timed): else
// the entry reads no clock.
inline bool call_timed(const bf16x_options& opt) { return opt.stats != nullptr || verbose_wanted(); }

// The end of every GEMM call (real and complex): the caller's stats on success, and the verbose line of `v` (the
// call as the caller made it) completed from what the call did.
void report_call(const bf16x_options& opt, const Outcome& out, int status, double seconds, VerboseCall v);

}  // namespace bf16x::api
