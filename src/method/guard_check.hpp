// Level 2 of the componentwise guard (policy/guard.hpp has the bound and the proof): the per-line scan of op(A) and
// op(B), and the digit product H = D(|op(A)|) D(|op(B)|) on the INT8 engine (crt/digit_product.hpp, the CRT bound
// pass's blocked GEMM), with the entries it cannot prove.
#pragma once
#include <cstdint>
#include <vector>

#include "driver/entry_repair.hpp"
#include "engine/int8_kernel.hpp"
#include "pack/operand.hpp"
#include "policy/guard.hpp"

namespace bf16x::method {

// Entries (i, j) of C the digit product could not prove, column by column (j, then i ascending).
using Entry = driver::EntryIndex;

struct GuardCheck {
  bool nonfinite = false;      // NaN or Inf in op(A) or op(B): nothing else was measured
  bool complete = true;        // false: stopped once more than `limit` entries failed (the caller goes native)
  std::vector<Entry> failing;  // sorted by (j, i)
  std::uint64_t micro_tiles = 0;
};

// The per-line state of level 2 (scale exponents, 1-norms), allocated before any operand is read, so that a call
// whose lines cannot even be described fails before it touches A or B, as the drivers do.
struct GuardLines {
  std::vector<int> ea, eb;
  std::vector<double> na, nb;
  GuardLines(std::int64_t m, std::int64_t n)
      : ea(std::size_t(m)), eb(std::size_t(n)), na(std::size_t(m)), nb(std::size_t(n)) {}
};

// The scale exponents of the rows of op(A) and the columns of op(B) (max |x| in [2^(e-1), 2^e), 0 for a zero
// line) and upper bounds of their scaled 1-norms, into `lines`: true (and nothing else measured) on NaN or Inf.
template <typename T>
bool scan_lines(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                std::int64_t k, GuardLines& lines);

// Level 2 for op(A) (m x k) and op(B) (k x n) on the INT8 engine `engine` (its thread_begin called on every
// thread): the entries that fail (Bound) <= tau P_ij, at most limit + 1 of them. Throws std::bad_alloc.
template <typename T>
GuardCheck check_entries(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                         std::int64_t k, const policy::EntryBound& bound, double tau,
                         const engine::int8::Engine& engine, std::uint64_t limit, GuardLines& lines);

}  // namespace bf16x::method
