// The second fixed-point level of a guarded FP64 CRT call (docs/numerics.md, "Componentwise guard", "Second
// level"): where the one-level product would leave the guard too many unproved entries for the dot-product repair
// and the host lines, every row of op(A) splits at t = sigma bits below its largest magnitude into A1 (truncated
// toward zero) and A2 = A - A1, every column of op(B) likewise into B1 and B2, and
//
//     AB = A1 B1 + A1 B2 + A2 B,
//
// three products of the mode on its engine with the exact reconstruction (crt/crt_ops.hpp). A1 and B1 are exact in
// the mode's fixed point (it keeps at least sigma bits of every line), so the first is exact but for its rounding,
// and the other two are 2^-t smaller than the one-level product's error; a fourth product, |A1||B1| <= |A||B|, is
// the proof's lower bound of (|A||B|)_ij. The entries it does not prove are repaired as the one-level guard repairs
// them.
#pragma once
#include <cstdint>
#include <functional>

#include "driver/entry_repair.hpp"
#include "method/guard.hpp"
#include "method/outcome.hpp"
#include "pack/operand.hpp"
#include "util/driver_status.hpp"

namespace bf16x::method {

// The mode's raw product C' = op(A') op(B') (alpha 1, beta 0, C' column-major) on the call's engine and threads,
// reconstructed exactly.
using LevelProduct = std::function<util::DriverStatus(const pack::GemmArgs<double>&)>;

// C = alpha op(A) op(B) + beta C0 by the second level, every entry within the guard's bound, from the lines the
// one-level check measured (`lines`: the exponents and 1-norms of op(A)'s rows and op(B)'s columns): BF16X_OK, or
// kSecondLevelNotRun (method/outcome.hpp) where the mode is not an FP64 CRT mode, the call is triangular, its lines'
// scales leave the range the proof assumes, the copies cannot be allocated, a product did not run, or more entries
// stay unproved than the repair takes (`limit`).
int second_level(const GuardRequest& g, const driver::RepairArgs<double>& x, std::int64_t m, std::int64_t n,
                 std::uint64_t limit, const GuardLines& lines, Outcome& out, const LevelProduct& product);

}  // namespace bf16x::method
