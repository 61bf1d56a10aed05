// The element loops of the CRT driver: each call goes to the variant of crt/crt_loops.hpp this CPU runs.
#include "crt/crt_ops.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/features.hpp"
#include "crt/crt_loops.hpp"
#include "engine/int8_kernel.hpp"

namespace bf16x::crt {

const CrtLoops& crt_loops() {
  static const CrtLoops& loops =
      cpu::by_level(kCrtLoopsGeneric, kCrtLoopsAvx2, cpu::has_avx512vnni() ? kCrtLoopsAvx512Vnni : kCrtLoopsAvx512);
  return loops;
}

void load_scaled(const float* x, int len, double f1, double f2, Scaled kind, double* out) {
  crt_loops().load_scaled_fp32(x, len, f1, f2, kind, out);
}
void load_scaled(const double* x, int len, double f1, double f2, Scaled kind, double* out) {
  crt_loops().load_scaled_fp64(x, len, f1, f2, kind, out);
}

void load_scaled_across(const float* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                        Scaled kind, double* yb, int kcp) {
  crt_loops().load_across_fp32(x, ld, rows, len, f1, f2, kind, yb, kcp);
}
void load_scaled_across(const double* x, std::int64_t ld, int rows, int len, const double* f1, const double* f2,
                        Scaled kind, double* yb, int kcp) {
  crt_loops().load_across_fp64(x, ld, rows, len, f1, f2, kind, yb, kcp);
}

void residues(const double* y, int len, double p, double invp, double hi, double lo, int bits, std::int8_t* out) {
  crt_loops().residues(y, len, p, invp, hi, lo, bits, out);
}

namespace {
// pack_panel and pack_chunk: A panels (their row sums into carry where it is not null) or B panels of kcp k.
void pack(bool of_a, bool live, const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits,
          std::int8_t* panel, std::size_t stride, bool stream, std::int32_t* carry) {
  const CrtLoops& l = crt_loops();
  if (of_a)
    l.pack_a(yb, kcp, live ? len : kcp, lines, plan, bits, panel, stride, stream, !live, carry);
  else
    l.pack_b(yb, kcp, live ? len : kcp, lines, plan, bits, panel, stride, stream, !live);
}
}  // namespace

void pack_panel(bool of_a, bool live, const double* yb, int kcp, int len, int lines, const CrtPlan* plan, int bits,
                std::int8_t* panel, std::size_t stride, bool stream) {
  pack(of_a, live, yb, kcp, len, lines, plan, bits, panel, stride, stream, nullptr);
}

void pack_chunk(bool of_a, bool live, const double* yb, int len, int lines, const CrtPlan* plan, int bits,
                std::int8_t* panel, std::size_t stride, bool stream, std::int32_t* carry) {
  pack(of_a, live, yb, engine::int8::kKChunk, len, lines, plan, bits, panel, stride, stream, carry);
}

void reduce_mod(std::int32_t* acc, std::size_t count, const CrtPlan& plan, int t) {
  crt_loops().reduce_mod(acc, count, plan, t);
}

void residue_rows(const std::int32_t* acc, std::size_t ld, int rows, int cols, const CrtPlan& plan, int t,
                  std::int8_t* out, std::size_t ld_out) {
  crt_loops().residue_rows(acc, ld, rows, cols, plan, t, out, ld_out);
}

void reconstruct_row(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* s1, double* s2,
                     double* out) {
  crt_loops().reconstruct_row(res, stride, cols, plan, s1, s2, out);
}

void reconstruct_row_exact(const std::int8_t* res, std::size_t stride, int cols, const CrtPlan& plan, double* out) {
  crt_loops().reconstruct_exact(res, stride, cols, plan, out);
}

void maxima(const std::int32_t* acc, std::size_t ld, int rows, int cols, std::int32_t* row_max, std::int32_t* col_max) {
  crt_loops().maxima(acc, ld, rows, cols, row_max, col_max);
}

void write_scaled(float* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                  const WriteScales& w) {
  crt_loops().write_fp32(c, rs, cs, x, ldx, rows, cols, w);
}
void write_scaled(double* c, std::int64_t rs, std::int64_t cs, const double* x, int ldx, int rows, int cols,
                  const WriteScales& w) {
  crt_loops().write_fp64(c, rs, cs, x, ldx, rows, cols, w);
}

}  // namespace bf16x::crt
