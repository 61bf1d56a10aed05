// The element loops of crt/crt_ops.hpp, built once per vector level (cmake/isa.cmake), members as documented
// there. All but the FP64 sums of reconstruct_row and the last three of reconstruct_exact are exact integer
// arithmetic in FP64, and no variant contracts a multiply and an add into an FMA, so every variant gives the same
// bits.
#pragma once
#include <cstddef>
#include <cstdint>

#include "crt/moduli.hpp"
#include "crt/scaled.hpp"
#include "crt/write_scales.hpp"

namespace bf16x::crt {

struct CrtLoops {
  void (*load_scaled_fp32)(const float* x, int len, double f1, double f2, Scaled kind, double* out);
  void (*load_scaled_fp64)(const double* x, int len, double f1, double f2, Scaled kind, double* out);
  void (*load_across_fp32)(const float* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                           Scaled kind, double* yb, int kcp);
  void (*load_across_fp64)(const double* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                           Scaled kind, double* yb, int kcp);
  void (*residues)(const double* y, int len, double p, double invp, double hi, double lo, int bits, std::int8_t* out);
  // pack_panel (crt_ops.hpp): the whole padded panels (pad, len = kcp) or the live ones (not pad); pack_a's row
  // sums added into carry[t * 32 + r] where it is not null (pack_chunk), else written after the panel's kcp.
  void (*pack_a)(const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits, std::int8_t* panel,
                 std::size_t stride, bool stream, bool pad, std::int32_t* carry);
  void (*pack_b)(const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits, std::int8_t* panel,
                 std::size_t stride, bool stream, bool pad);
  void (*reduce_mod)(std::int32_t* acc, std::size_t count, const CrtPlan& plan, int t);
  void (*residue_rows)(const std::int32_t* acc, std::size_t ld, int rows, int cols, const CrtPlan& plan, int t,
                       std::int8_t* out, std::size_t ld_out);
  void (*reconstruct_row)(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* s1,
                          double* s2, double* out);
  void (*reconstruct_exact)(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* out);
  void (*maxima)(const std::int32_t* acc, std::size_t ld, int rows, int cols, std::int32_t* row_max,
                 std::int32_t* col_max);
  // out[e] = the symmetric residue modulo p of x2[e] w84 + x1[e] w42 + x0[e], e < count (<= 1024): integer-valued
  // sums below 2^51 (crt/direct_products.cpp, which says why the residue is exact).
  void (*split_residues)(const double* x0, const double* x1, const double* x2, int count, double w42, double w84,
                         double p, double invp, std::int8_t* out);
  void (*write_fp32)(float* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                     const WriteScales& w);
  void (*write_fp64)(double* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                     const WriteScales& w);
};

// crt_loops_generic.cpp (x86-64), crt_loops_avx2_isa.cpp, crt_loops_avx512_isa.cpp, crt_loops_avx512vnni_isa.cpp.
extern const CrtLoops kCrtLoopsGeneric, kCrtLoopsAvx2, kCrtLoopsAvx512, kCrtLoopsAvx512Vnni;

// The variant for this CPU (cpu::vector_level(); avx512vnni where AVX-512 has VNNI too).
const CrtLoops& crt_loops();

}  // namespace bf16x::crt
