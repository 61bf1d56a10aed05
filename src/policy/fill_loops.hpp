// The counting loops of the fill pass (policy/error_model.cpp), built once per vector level (cmake/isa.cmake): the
// vector levels compute the bins of 16 (AVX-512) or 8 (AVX2) entries at a time and leave only the increments
// scalar. Counts are integers, so every variant gives the same counts.
#pragma once
#include <xmmintrin.h>

#include <cstdint>
#include <cstring>

namespace bf16x::policy {

// Across memory, each column of a block is a piece of a few cache lines at a stride the hardware does not follow:
// the piece kAhead columns on is asked for ahead of its use.
inline constexpr std::int64_t kAhead = 8;
template <typename T>
void prefetch_piece(const T* p, std::int64_t nr) {
  for (std::int64_t q = 0; q < nr * std::int64_t(sizeof(T)); q += 64)
    _mm_prefetch(reinterpret_cast<const char*>(p) + q, _MM_HINT_T0);
}

// The bin of a finite x of a line whose scale exponent E is at least kBinades - 1022: max(0, key + c), with key the
// exponent and first two significand bits of |x| (bits 50..62) and c = 1 + kSubBins (kBinades - 1023 - E). Zeros,
// subnormals and every x with |x| 2^-E < 2^-kBinades fall into bin 0, as the general form (bin_of) puts them.
inline int fast_bin(double x, int c) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  const int b = int((u << 1) >> 51) + c;
  return b > 0 ? b : 0;
}

// Counts per bin of a line along memory (entry l into count l % kAlongCopies): equal bins in a row then do not wait
// for each other's increments.
inline constexpr int kAlongCopies = 4;

struct FillLoops {
  // ++h[(l % kAlongCopies) bins + fast_bin(x[l], c)] for l < len: one line, contiguous, each set of counts `bins`
  // long.
  void (*count_along_fp32)(const float* x, std::int64_t len, int c, int bins, std::uint32_t* h);
  void (*count_along_fp64)(const double* x, std::int64_t len, int c, int bins, std::uint32_t* h);
  // ++h[(fast_bin(x[r + l sl], c[r]) << shift) + r] for r < nr <= 2^shift, l < len: a block of lines side by side
  // (the block's column l contiguous), the counts of each bin in a row of 2^shift.
  void (*count_across_fp32)(const float* x, std::int64_t sl, int nr, std::int64_t len, const int* c, int shift,
                            std::uint32_t* h);
  void (*count_across_fp64)(const double* x, std::int64_t sl, int nr, std::int64_t len, const int* c, int shift,
                            std::uint32_t* h);
  // The largest exponent field of x[o ld + l], l < inner, o < outer (0x7ff / 0xff: a NaN or Inf among them): from
  // the high words' integer maximum, which each vector level vectorises.
  int (*max_field_fp32)(const float* x, std::int64_t ld, std::int64_t inner, std::int64_t outer);
  int (*max_field_fp64)(const double* x, std::int64_t ld, std::int64_t inner, std::int64_t outer);
  // The least positive s_ij = sum_l va[i k + l] vb[l nn + j] over i < m, j < n, +Inf where none is positive: the
  // products of the tiny calls' fill bound (policy/direct_fill.cpp). Each product and each sum rounded once, in the
  // order of l (so every variant gives the same s_ij), eight columns at a time: nn a multiple of 8, vb zero past n.
  double (*least_sum)(const double* va, const double* vb, std::int64_t m, std::int64_t n, std::int64_t nn,
                      std::int64_t k);
};

// Columns of C per step of least_sum.
inline constexpr std::int64_t kLeastStrip = 8;

// fill_loops_generic.cpp (x86-64), fill_loops_avx2_isa.cpp, fill_loops_avx512_isa.cpp.
extern const FillLoops kFillLoopsGeneric, kFillLoopsAvx2, kFillLoopsAvx512;

// The variant for this CPU (cpu::vector_level()).
const FillLoops& fill_loops();

}  // namespace bf16x::policy
