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
};

// C0 of the entries, before the emulated product overwrites them (none when beta == 0: C is not read).
template <typename T>
std::vector<T> save_entries(const RepairArgs<T>& x, const std::vector<EntryIndex>& entries);

// Writes the entries (sorted by column, then row) from their dot products and c0 (save_entries). Threads over
// columns; the sums run in one fixed order, so the bits do not depend on the thread count. Throws std::bad_alloc
// before anything is written.
template <typename T>
void repair_entries(const RepairArgs<T>& x, const std::vector<EntryIndex>& entries, const std::vector<T>& c0);

}  // namespace bf16x::driver
