// refdump: runs the C API over a fixed set of shapes, layouts, transposes, alpha/beta, modes, engines and options
// and writes every C it computes (raw bytes) to one file, so that two builds can be compared bit for bit:
//
//   refdump OUT [--big]     (--big adds 1000 x 1000 x 1000 and 2100 x 300 x 600)
//   cmp OUT_old OUT_new
//
// Inputs are a fixed pseudo-random sequence (log-uniform magnitudes, both signs), so the file depends only on the
// library's arithmetic.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bf16x/bf16x.h"

namespace {

std::uint64_t g_state = 0x9e3779b97f4a7c15ull;
double next_value() {
  g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
  const double u = double(g_state >> 11) * 0x1p-53;
  g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
  const double e = double(g_state >> 11) * 0x1p-53 * 16.0 - 8.0;
  return (u < 0.5 ? -1 : 1) * std::ldexp(0.5 + u, int(e));
}

struct Shape {
  std::int64_t m, n, k;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: refdump OUT [--big]\n");
    return 2;
  }
  const bool big = argc > 2 && std::strcmp(argv[2], "--big") == 0;
  std::FILE* out = std::fopen(argv[1], "wb");
  if (!out) return 2;
  std::vector<Shape> shapes = {{1, 1, 1}, {257, 3, 1000}, {300, 500, 700}, {33, 65, 257}, {64, 31, 300}};
  if (big) {
    shapes.push_back({1000, 1000, 1000});
    shapes.push_back({2100, 300, 600});
  }
  const int layouts[] = {BF16X_COL_MAJOR, BF16X_ROW_MAJOR};
  const int dmodes[] = {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21};
  long runs = 0, failures = 0;
  for (const Shape& s : shapes)
    for (int layout : layouts)
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
          const bool col = layout == BF16X_COL_MAJOR;
          const bool large = s.m * s.n * s.k > 50'000'000;
          // Stored A: rows x cols with ld = rows + 3 (column-major storage of the array as given to the API).
          const std::int64_t ar = (col != bool(ta)) ? s.m : s.k, ac = (col != bool(ta)) ? s.k : s.m;
          const std::int64_t br = (col != bool(tb)) ? s.k : s.n, bc = (col != bool(tb)) ? s.n : s.k;
          const std::int64_t cr = col ? s.m : s.n, cc = col ? s.n : s.m;
          const std::int64_t lda = ar + 3, ldb = br + 1, ldc = cr + 2;
          std::vector<double> a(std::size_t(lda * ac)), b(std::size_t(ldb * bc)), c0(std::size_t(ldc * cc));
          for (double& x : a) x = next_value();
          for (double& x : b) x = next_value();
          for (double& x : c0) x = next_value();
          std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), cf0(c0.begin(), c0.end());
          const bf16x_transpose tra = ta ? BF16X_TRANS : BF16X_NO_TRANS, trb = tb ? BF16X_TRANS : BF16X_NO_TRANS;
          struct AB {
            double alpha, beta;
          };
          const AB abs[] = {{1.0, 0.0}, {-1.5, 0.75}};
          for (const AB& ab : abs)
            for (int engine : {BF16X_ENGINE_AVX512BF16, BF16X_ENGINE_REFERENCE}) {
              if (!bf16x_engine_available(engine)) continue;
              if (engine == BF16X_ENGINE_REFERENCE && s.m * s.n * s.k > 2'000'000) continue;
              // Variants: default, fused diagonals, block_k = 96, paper split.
              for (int variant = 0; variant < 4; ++variant) {
                if (large && variant > 0 && !(ta == 0 && tb == 0 && layout == BF16X_COL_MAJOR)) continue;
                bf16x_options o;
                bf16x_options_init(&o);
                o.engine = engine;
                o.fuse_diagonals = variant == 1;
                o.block_k = variant == 2 ? 96 : 0;
                o.split = variant == 3 ? BF16X_SPLIT_PAPER : BF16X_SPLIT_SCALED;
                for (int mode : dmodes) {
                  o.mode = mode;
                  std::vector<double> c = c0;
                  const int st = bf16x_dgemm_ex(bf16x_layout(layout), tra, trb, s.m, s.n, s.k, ab.alpha, a.data(), lda,
                                                b.data(), ldb, ab.beta, c.data(), ldc, &o);
                  failures += st != BF16X_OK;
                  std::fwrite(&st, sizeof st, 1, out);
                  std::fwrite(c.data(), sizeof(double), c.size(), out);
                  ++runs;
                }
                if (variant == 1) continue;  // fusion is an FP64 option
                o.mode = BF16X_MODE_FP32X6;
                std::vector<float> cf = cf0;
                const int st = bf16x_sgemm_ex(bf16x_layout(layout), tra, trb, s.m, s.n, s.k, float(ab.alpha), af.data(),
                                              lda, bf.data(), ldb, float(ab.beta), cf.data(), ldc, &o);
                failures += st != BF16X_OK;
                std::fwrite(&st, sizeof st, 1, out);
                std::fwrite(cf.data(), sizeof(float), cf.size(), out);
                ++runs;
              }
            }
        }
  std::fclose(out);
  std::printf("%ld runs, %ld not ok\n", runs, failures);
  return 0;
}
