// The method table: one row per method of the mode records (mode::Method), each with its run functions and the
// workspace it reserves. The real GEMM, the complex GEMM, the workspace query and the level-3 layer (through them)
// reach every method here, with a plan (method/plan.hpp) that was decided before; the guard (method/guard.hpp)
// wraps the methods whose modes it applies to. Adding a method is one row and its file (docs/adding-a-mode.md).
//
//   api: checks -> plan_call -> [auto's data step] -> method::run -> row: slices | crt | correctly_rounded | native
#pragma once
#include <cstdint>

#include "method/call.hpp"
#include "method/outcome.hpp"
#include "method/plan.hpp"
#include "mode/records.hpp"

namespace bf16x::method {

template <typename T>
using RunReal = int (*)(const Plan&, const Call<T>&, Outcome&);
// done = false: NaN or Inf alpha or beta, nothing written, for the host's complex GEMM.
template <typename T>
using RunComplex = int (*)(const Plan&, const ComplexCall<T>&, Outcome&, bool& done);

struct Row {
  mode::Method method;
  // C = alpha op(A) op(B) + beta C: a bf16x status, C written only on BF16X_OK. NaN or Inf in the operands go to the
  // host GEMM (",fallback=nonfinite").
  RunReal<float> real_s = nullptr;
  RunReal<double> real_d = nullptr;
  // The method's own complex path; nullptr: the complex layer over its real GEMM (api/complex_entry.cpp).
  RunComplex<float> complex_s = nullptr;
  RunComplex<double> complex_d = nullptr;
  // The bytes of workspace a call of this shape reserves on the plan's threads.
  std::uint64_t (*workspace)(const Plan&, std::int64_t m, std::int64_t n, std::int64_t k) = nullptr;
  // Whether real_s / real_d take a call on one triangle of C (Call::part), computing only its blocks.
  bool parts = false;
  // Whether a TRSM of a few right sides runs its updates on the FMA units instead of this method's GEMMs
  // (level3::trsm's fma_updates): GEMMs of a few columns that split and pack their block of op(A) and pad B to whole
  // tiles cost far more than their products (the slice and CRT methods).
  bool narrow_solves_on_fma = false;
};

// The row of a method that runs (native, slices, crt, correctly_rounded); nullptr for the two that choose
// (process_default, automatic), which planning resolves first.
const Row* row(mode::Method m);

// The plan's method on the call (plan.mode concrete, plan.status BF16X_OK).
template <typename T>
int run(const Plan& plan, const Call<T>& x, Outcome& out);

// The plan's method's own complex path; false where it has none.
template <typename T>
bool has_complex(const Plan& plan);
template <typename T>
int run_complex(const Plan& plan, const ComplexCall<T>& x, Outcome& out, bool& done);

// The rows, each defined beside its method (method/<method>.cpp).
const Row& native_row();
const Row& slices_row();
const Row& crt_row();
const Row& correctly_rounded_row();

}  // namespace bf16x::method
