// The repair of single entries of C: C_ij = alpha (op(A) op(B))_ij + beta C0_ij by an FP64 dot product, whose error
// |fl(a.b) - a.b| <= gamma_k (|a||b|) is the native GEMM's componentwise bound (policy/guard.hpp names the entries).
#pragma once
#include <cstdint>
#include <vector>

#include "pack/operand.hpp"

namespace bf16x::driver {

struct EntryIndex {
  std::int64_t i, j;
};

template <typename T>
struct RepairArgs {
  std::int64_t k;
  T alpha;
  pack::MatrixView<T> a, b;  // op(A) m x k, op(B) k x n
  T beta;
  T* c;
  std::int64_t ldc;
  bool c_rows;  // C(i, j) at c[i * ldc + j]

  T& c_at(std::int64_t i, std::int64_t j) const { return c_rows ? c[i * ldc + j] : c[i + j * ldc]; }
};

// C0 of the entries, before the emulated product overwrites them (none when beta == 0: C is not read).
template <typename T>
std::vector<T> save_entries(const RepairArgs<T>& x, const std::vector<EntryIndex>& entries);

// alpha (op(A) op(B))_ij + beta c0 from the exact value, rounded once (the correctly rounded modes' exact sum,
// which this layer cannot see): for the entries whose FP64 dot product leaves the exponent range. Thread-safe.
template <typename T>
using ExactEntry = T (*)(const RepairArgs<T>& x, std::int64_t i, std::int64_t j, T c0);

// Writes the entries (sorted by column, then row) from their dot products and c0 (save_entries). Threads over
// columns; the sums run in one fixed order, so the bits do not depend on the thread count. Where the FP64 dot
// product cannot be trusted (FP64 only: a product or partial sum overflowed, alpha times it did, or |alpha| > 1
// would magnify products lost below the normal range), the entry is `exact`'s: the result is never less IEEE-correct
// or of smaller range than the emulated mode's. Throws std::bad_alloc before anything is written.
template <typename T>
void repair_entries(const RepairArgs<T>& x, const std::vector<EntryIndex>& entries, const std::vector<T>& c0,
                    ExactEntry<T> exact);

}  // namespace bf16x::driver
