// Element loops of the CRT driver (built per vector level in crt/crt_loops.hpp, chosen once). All but the FP64 sums of
// reconstruct_row are exact integer arithmetic in FP64, so every version gives the same bits.
#pragma once
#include <cstddef>
#include <cstdint>

#include "crt/moduli.hpp"
#include "crt/scaled.hpp"
#include "crt/write_scales.hpp"

namespace bf16x::crt {

// out[l] = x_l scaled as `kind` says (crt_loops.hpp: trunc(x_l f1 f2), ceil(|x_l| f1 f2) or the guard's digit).
void load_scaled(const float* x, int len, double f1, double f2, Scaled kind, double* out);
void load_scaled(const double* x, int len, double f1, double f2, Scaled kind, double* out);

// yb[r kcp + l] = the same of x[r + l ld], r < rows, l < len: `rows` lines that run across memory.
void load_scaled_across(const float* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                        Scaled kind, double* yb, int kcp);
void load_scaled_across(const double* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                        Scaled kind, double* yb, int kcp);

// Symmetric residues in [lo, hi] of the integer-valued y[l] modulo p, |y| < 2^bits, bits <= 100.
void residues(const double* y, int len, double p, double invp, double hi, double lo, int bits, std::int8_t* out);
// The 32 x kcp block yb (row r at yb + r kcp) as packed A panels (engine/int8_kernel.hpp) with their row sums, or
// as packed B panels (line c = column c): one panel per modulus of the plan, panel t at panel + t stride, from one
// pass over yb (|values| < 2^bits, bits <= 100); or one panel of the values themselves (the digits) when plan is
// null. Lines at or past `lines` are padding: zero bytes, and yb is not read there. stream: streaming stores where
// the CPU has AVX2 or AVX-512 and a line of the panels is whole (for panels that will not be read before they leave the
// caches: the operand caches of crt_driver).
// Live panels, the same for the part kernels (engine/int8_kernel.hpp): yb's values end at len (zero from there to kcp),
// and only their residues are formed (len rounded up to 16): the rest of each 64-k chunk of an A line zero bytes,
// of a B line zero or left unwritten; lines past `lines` (and their A row sums) may be left unwritten, holding
// whatever the memory held. Only kernels that leave those out (the part kernels, engine/int8_kernel.hpp, or the
// whole-tile kernel on 32 x 32 live lines and a whole kcp) may read these.
//
// pack_panel: A panels (of_a) or B panels, the live ones above where `live` (len values of each line), else the
// whole zero-padded ones (every k up to kcp; len is not read).
void pack_panel(bool of_a, bool live, const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits,
                std::int8_t* panel, std::size_t stride, bool stream = false);
// One 64-k chunk of an A (of_a) or B panel, as pack_panel packs it: yb holds the chunk's 64 values of each line
// (line r at yb + 64 r, len of them live), panel points at the chunk's place in the panel (64 x 32 bytes per chunk
// on, in both layouts), and an A panel's row sums are added into carry[t * 32 + r] (t: the plan's modulus, or 0 for
// the digits), for the caller to write after the last chunk (B: carry is null).
void pack_chunk(bool of_a, bool live, const double* yb, int len, int lines, const CrtPlan* plan, int bits,
                std::int8_t* panel, std::size_t stride, bool stream, std::int32_t* carry);

// acc[e] = symmetric residue of acc[e] modulo p_t.
void reduce_mod(std::int32_t* acc, std::size_t count, const CrtPlan& plan, int t);

// out[i ld_out + j] = symmetric residue of acc[i ld + j] modulo p_t (as reduce_mod; it fits a byte: p_t <= 256), for
// i < rows, j < cols. out may be acc itself, as bytes (ld_out <= 4 ld): each row's bytes land where its int32 were
// read or before, and never on a later row's.
void residue_rows(const std::int32_t* acc, std::size_t ld, int rows, int cols, const CrtPlan& plan, int t,
                  std::int8_t* out, std::size_t ld_out);

// out[j] = X_j (as FP64) for j < cols, where X_j == res[t * stride + j] (mod p_t) for every t and |X_j| <= P/4; res
// holds the symmetric residues (residue_rows). s1, s2: scratch of cols doubles.
void reconstruct_row(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* s1, double* s2,
                     double* out);

// reconstruct_row's X_j with every sum exact but the last (the plan's 40-bit chunks, moduli.hpp), in one scalar
// order on every CPU: |out_j - X_j| <= u |out_j| + 2 u^2 |X_j| + 2^(g - 92) (docs/numerics.md, "Second level").
void reconstruct_row_exact(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* out);

// C(i, j) at c[i rs + j cs], i < rows, j < cols, from X(i, j) at x[i ldx + j]: v = m_alpha X, s = (v f_row[i])
// f_col[j] where both are nonzero (one rounding, as ldexp), else ldexp(v, e_row[i] + e_col[j]); then C = T(s) where
// beta is 0 (C not read), else T(s + beta C) in FP64.
void write_scaled(float* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                  const WriteScales& w);
void write_scaled(double* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                  const WriteScales& w);

// row_max[i] = max(0, max_j acc[i ld + j]), col_max[j] = max(0, max_i acc[i ld + j]) over the rows x cols block.
void maxima(const std::int32_t* acc, std::size_t ld, int rows, int cols, std::int32_t* row_max, std::int32_t* col_max);

}  // namespace bf16x::crt
