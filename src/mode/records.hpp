// The mode records: one row per bf16x_mode value (mode/records.cpp), every fact of a mode that does not depend on
// the engine that runs it: its name, the routine it fits, the method that computes it, its size (slice products or
// moduli), the componentwise guard's default and the BF16X_MIN_SIZE rule. The engines are the other table
// (engine/records.hpp). Names (bf16x_mode_name, bf16x_mode_from_name), mode_fits, guard_applies, the CRT and
// correctly rounded predicates (crt/crt_mode.hpp, cr/cr_mode.hpp), the error and cost models and the fuzz contract
// read it; adding a mode is described in docs/adding-a-mode.md.
#pragma once
#include <span>

namespace bf16x::mode {

enum class Precision : unsigned char {
  both,  // DEFAULT, NATIVE and AUTO fit sgemm and dgemm
  fp32,  // sgemm (and cgemm per part)
  fp64   // dgemm (and zgemm per part)
};

enum class Method : unsigned char {
  process_default,    // DEFAULT: the process default of the routine (runtime setting, environment, else auto)
  native,             // the host BLAS
  slices,             // BF16 slice products on a BF16 engine (split/scheme.cpp lists the products, driver/ runs them)
  crt,                // INT8 residues on an INT8 engine, Ozaki scheme II (crt/)
  correctly_rounded,  // TwoProd and FastTwoSum on the FMA units, exact sums where undecided (cr/)
  automatic           // AUTO: chosen per call by the cost and error models (policy/, planner/mode_policy.cpp)
};

// The componentwise guard (policy/guard.hpp): whether it can wrap the mode and whether it does unless told.
enum class Guard : unsigned char {
  none,  // not a fixed-point or CRT scheme: the guard never applies (the modes AUTO picks are guarded as picked)
  raw,   // BF16X_GUARD=on guards it; off by default
  on     // guarded unless BF16X_GUARD=off: the modes that claim the routine's own accuracy
};

struct Record {
  int id = 0;                  // the bf16x_mode value
  const char* name = nullptr;  // bf16x_mode_name, BF16X_SGEMM_MODE / BF16X_DGEMM_MODE values
  Precision precision = Precision::both;
  Method method = Method::native;
  // slices: BF16 slices per operand, slice products, and d with the products i + j < d: the index of the truncation
  // term T_d in the error model (policy/error_model.cpp) and the guard's bound (policy/guard.cpp).
  int slices = 0, products = 0, diagonals = 0;
  // crt: the number of moduli N, the index of the CRT plan (crt/moduli.hpp) whose budget L sets the error model
  // (crt/crt_model.cpp) and the guard's bound.
  int moduli = 0;
  Guard guard = Guard::none;
  // BF16X_MIN_SIZE sends a call with min(m, n, k) under it to the host BLAS; never a correctly rounded one.
  bool min_size = false;
};

// The table, in bf16x_mode order (the order bf16_mode_names and the models' searches read it in).
std::span<const Record> records();

const Record* record(int mode);           // nullptr for a value that is no mode
const Record* by_name(const char* name);  // nullptr for a name that is no mode

bool is(int mode, Method m);  // record(mode) runs by method m
// Whether `mode` may run this routine: DEFAULT, NATIVE and AUTO fit both, every other mode only its precision.
bool fits(int mode, bool is_double);
// BF16X_MIN_SIZE may send the call to the host BLAS: every mode but NATIVE and the correctly rounded ones (and an
// unknown value, which the entries have refused before).
bool min_size_applies(int mode);

}  // namespace bf16x::mode
