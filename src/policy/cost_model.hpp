// Cost model of mode auto: per-core cycle estimates of a native GEMM and of an emulation scheme on an engine,
// from the shape alone, so that auto can settle for native before it reads the operands (docs/auto.md).
//
//   native:     2mnk / R_host + c_host            R_host: FP64 or FP32 FMA rate of the host BLAS, flop/cycle;
//                                                 c_host: the call's fixed price
//   emulation:  P * 2m'n'k' / R_engine            P BF16 products per output, R_engine: effective BF16 rate, on the
//                                                 padded m' n' (32) and k' (32-deep chunks)
//             + (m + n) k (S * c_split + c_fill)  S slices per operand, c_split: scan + split + pack per slice,
//                                                 c_fill: auto's fill pass (policy/error_model.hpp)
//             + c_call                            the emulated call's fixed price (checks, plan, scans, write)
//
// CRT modes (N moduli, INT8 engine e): (N + 1) 2m'n'k'' / R_int8(e)   (the +1: the bound GEMM of the scaling;
//                                                                    k'' padded to 64-deep chunks)
//                                     + P 3 N + mn (2 N + 4)   digits and residues of the P operand elements the
//                                                              blocks pack (crt::crt_packed_elements), CRT, write
//                                     + c_crt                  the call's fixed price; a tiny call (the direct
//                                                              products) costs that alone
//
// Emulation wins when its estimate is below the native one: on CPUs without AMX it never does (the BF16 dot
// product units run at most 4x the FP64 FMA rate, less than the 6 products of the cheapest FP64 scheme need), and
// with the rates measured on AMX (engine/records.cpp) only fp32x6 does, on large problems.
#pragma once
#include <cstdint>

namespace bf16x::policy {

struct EngineCost {
  double fp64_path_flops_per_cycle;  // effective BF16 rate, with per-product stores and FP64 reconstruction
  double fp32_path_flops_per_cycle;  // effective BF16 rate of fp32x6 (one FP32 accumulator per k-block)
};

// Per-engine figures (engine = BF16X_ENGINE_*, from its record in engine/records.cpp); an unknown engine gets zero
// rates and never wins.
EngineCost engine_cost(int engine);

// INT8 GEMM rate (2 ops per multiply-add, per core) of an INT8 engine of the CRT modes, 0 if unknown.
double int8_ops_per_cycle(int int8_engine);
double crt_cycles(int int8_engine, int moduli, std::int64_t m, std::int64_t n, std::int64_t k);

double native_cycles(bool is_double, std::int64_t m, std::int64_t n, std::int64_t k);
double emulation_cycles(int engine, int mode, std::int64_t m, std::int64_t n, std::int64_t k);

// The scheme with the fewest products of the precision (fp32x6, fp64x6): what auto checks before any pass.
int cheapest_mode(bool is_double);
bool emulation_wins(int engine, int mode, std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace bf16x::policy
