// The guard's host lines: where the entries it cannot prove crowd into some rows of op(A) or columns of op(B) (a
// line whose entries spread over many binades, next to lines that do not), the host GEMM of those rows and columns
// and the repair of the few entries left, instead of the host GEMM for the whole call. Every entry keeps the guard's
// bound: the host's gamma_k (|A||B|)_ij on the lines, the repair's elsewhere, the proof on the rest.
#pragma once
#include <cstdint>
#include <vector>

#include "driver/entry_repair.hpp"

namespace bf16x::method {

using Entry = driver::EntryIndex;

struct HostLines {
  std::vector<std::int64_t> rows, cols;  // ascending
  bool empty() const { return rows.empty() && cols.empty(); }
  // The entries of C they cover (an entry in a host row and a host column once).
  std::uint64_t entries(std::int64_t m, std::int64_t n) const;
};

// For `failing` (sorted by column, then row) above `limit`: lines taken greedily, the one with the largest share of
// unproved entries first, while that share is above 1/8 (repairing 1/8 of C costs about the host GEMM of all of
// it, so a line with more is cheaper on the host). True where the lines' host work and the repairs left (8 entries
// of host work each) come to at most half of the whole call's host work; then `failing` keeps only the entries
// outside the lines. False (nothing changed) where the whole call is better on the host. At or below `limit`: true,
// no lines (the repairs alone).
bool choose_host_lines(std::vector<Entry>& failing, std::int64_t m, std::int64_t n, std::uint64_t limit,
                       HostLines& lines);

// The host rows of op(A) and columns of op(B) packed, and C0 on the lines, taken before the emulation writes C.
// Throws std::bad_alloc (before anything is written).
template <typename T>
struct LineCopies {
  std::vector<T> a, ca;  // op(A)'s rows (r x k) and C0's rows (r x n), column-major
  std::vector<T> b, cb;  // op(B)'s columns (k x s) and C0's columns (m x s), column-major
};
template <typename T>
LineCopies<T> copy_lines(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n, const HostLines& lines);

}  // namespace bf16x::method
