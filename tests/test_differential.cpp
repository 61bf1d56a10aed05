// The differential sweep: every engine this CPU runs (BF16 engines for the slice modes, INT8 engines for the CRT
// modes) x threads 1-4 x skinny and deep shapes x both layouts x every mode, bit for bit against the one-thread
// reference engine on the column-major call. Every emulated mode is deterministic by design (docs/numerics.md: the
// same bits for any engine, thread count and layout), so any difference is a defect and there is no tolerance.
//
// Shapes: m, n in {1, 8, 31, 33, 100} x k in {255, 256, 257, 1023, 1024, 1025, 4097}: k across the k-block of 256,
// the CRT k-block of 1024 and the driver's KC steps, m and n below, at and across the 32-wide micro-panel. Each mode
// runs seven shapes, one per k, its (m, n) pair rotating through the 25 pairs with the mode's index, so the 24
// modes together cover the 25 x 7 grid. The oracle and the scalar engines under test (reference at 2-4 threads,
// amx-model) run about 10 ns per MAC, the vector engines 30-300x faster: the scalar engines under test take the
// shapes up to kScalarWork padded MACs, the vector engines every shape. That keeps the suite near a minute on two
// cores. BF16X_DIFFERENTIAL=full runs the whole grid for every mode and engine (hours on the scalar engines);
// BF16X_DIFFERENTIAL=tsan the slice scripts/test-tsan runs (fp64x21, fp32x6, fp64c15, fp32c8 on the vector engines,
// 2 and 3 threads, shapes whose k spans several driver steps).
//
// One exception to the bits: fp32x6 on the AMX hardware, whose TDPBF16PS rounds the FP32 sums in its own pair order
// (docs/numerics.md, "Reproducibility"). That engine's one-thread column-major call is held to the reference within
// the FP32 summation bound (support/bounds.hpp), and its other calls (threads, layouts) to that one bit for bit.
//
// A 2+ thread defect that only one engine has (the avx2 engine's reuse of an A panel across the driver's repacked
// buffers) shows here: the engine suite calls the micro-kernel on one thread, and the reproducibility suite uses
// shapes whose steps each ran on one thread.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "engine/records.hpp"
#include "split/scheme.hpp"
#include "support/bounds.hpp"
#include "support/stored_product.hpp"

namespace bf16x::test {
namespace {

constexpr std::int64_t kSizes[] = {1, 8, 31, 33, 100};
constexpr std::int64_t kDepths[] = {255, 256, 257, 1023, 1024, 1025, 4097};
constexpr double kScalarWork = 0x1p24;  // padded m n k x products above which the scalar engines under test skip

enum class Slice { standard, full, tsan };

Slice slice() {
  const char* v = std::getenv("BF16X_DIFFERENTIAL");
  if (v && std::string(v) == "full") return Slice::full;
  if (v && std::string(v) == "tsan") return Slice::tsan;
  return Slice::standard;
}

bool is_crt(int mode) { return mode >= BF16X_MODE_FP64C_BASE; }

// Products per micro-tile pass (sizes the scalar engines' share only): the scheme's slice products, or the moduli
// (one INT8 product each).
int products(int mode) { return is_crt(mode) ? mode % 100 : int(split::scheme_for_mode(mode)->products.size()); }

// The scalar oracle and the software tile model: far slower than the others, so they see the smaller shapes only.
bool scalar_engine(int id) { return !engine::record(id)->isa; }

// The engines of the mode's method that can run here: every record with that side (engine/records.cpp).
std::vector<int> engines_for(int mode) {
  std::vector<int> ids;
  for (const engine::Record& r : engine::records()) {
    const bool has_side = is_crt(mode) ? engine::int8_engine(r.id) != nullptr : engine::engine_info(r.id) != nullptr;
    if (has_side && bf16x_engine_available(r.id) && !(slice() == Slice::tsan && scalar_engine(r.id)))
      ids.push_back(r.id);
  }
  return ids;
}

struct Shape {
  std::int64_t m, n, k;
  double work(int mode) const {
    auto pad = [](std::int64_t x) { return double((x + 31) / 32 * 32); };
    return pad(m) * pad(n) * double(k) * products(mode);
  }
};

// The mode's shapes: one per k with the rotating (m, n) pair, or the whole grid (full), or the multi-step ones (tsan).
std::vector<Shape> shapes(int mode_index) {
  std::vector<Shape> s;
  const Slice sl = slice();
  for (int ki = 0; ki < 7; ++ki) {
    const std::int64_t k = kDepths[ki];
    if (sl == Slice::tsan && k < 1024) continue;
    for (int p = 0; p < 25; ++p) {
      const bool rotating = p == (mode_index * 7 + ki) % 25;
      if (sl == Slice::standard && !rotating) continue;
      if (sl == Slice::tsan && !(rotating || p == 7)) continue;  // pair 7: (8, 31)
      s.push_back({kSizes[p / 5], kSizes[p % 5], k});
    }
  }
  return s;
}

// The engine's FP32 sums may round otherwise than the reference's (the AMX hardware on fp32x6).
// fp32x3's fewer products add fewer terms, so fp32x6's bound covers it too.
bool own_fp32_rounding(int mode, int engine) {
  return (mode == BF16X_MODE_FP32X6 || mode == BF16X_MODE_FP32X3) && engine == BF16X_ENGINE_AMX;
}

// The first entry where `got` and `want` differ: by more than (*bound)[i], or in any bit without a bound; or -1.
template <typename T>
std::ptrdiff_t first_difference(const std::vector<T>& got, const std::vector<T>& want,
                                const std::vector<double>* bound) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (bound ? !(std::fabs(double(got[i]) - double(want[i])) <= (*bound)[i])
              : std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return std::ptrdiff_t(i);
  return -1;
}

// The fp32x6 bound of two engines at every entry of C = -0.75 op(A) op(B) + 0.5 C (the StoredProduct call).
template <typename T>
std::vector<double> two_engines_bound(const StoredProduct<T>& p) {
  std::vector<double> b(std::size_t(p.m * p.n));
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      double abs_ab = 0;
      for (std::int64_t l = 0; l < p.k; ++l)
        abs_ab +=
            std::fabs(double(p.opa[std::size_t(i + l * p.m)])) * std::fabs(double(p.opb[std::size_t(l + j * p.k)]));
      const std::size_t e = std::size_t(i + j * p.m);
      // abs_ab summed in FP64: within k 2^-53 of its value, far below 2^-40
      b[e] = fp32x6_two_engines_bound(double(p.k), abs_ab * (1 + 0x1p-40), 0.75, 0.5 * double(p.c0[e]));
    }
  return b;
}

template <typename T>
void sweep(int mode, int mode_index) {
  const std::vector<int> engines = engines_for(mode);
  const std::vector<int> threads = slice() == Slice::tsan ? std::vector<int>{2, 3} : std::vector<int>{1, 2, 3, 4};
  std::string ran;
  for (int e : engines) ran += std::string(" ") + bf16x_engine_name(e);
  int cases = 0, calls = 0;
  std::uint64_t seed = std::uint64_t(mode) * 1000;
  for (const Shape& sh : shapes(mode_index)) {
    const StoredProduct<T> p(sh.m, sh.n, sh.k, seed++);
    const std::vector<T> want = p.run(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, mode, 1, BF16X_ENGINE_REFERENCE);
    ++cases;
    for (int e : engines) {
      if (scalar_engine(e) && slice() != Slice::full && sh.work(mode) > kScalarWork) continue;
      const bool own = own_fp32_rounding(mode, e);
      std::vector<T> own_first;  // that engine's first call (one thread, column-major): the bits of its others
      std::vector<double> bound;
      if (own) bound = two_engines_bound(p);
      for (int t : threads)
        for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
          if (e == BF16X_ENGINE_REFERENCE && t == 1 && layout == BF16X_COL_MAJOR) continue;  // the oracle's call
          // Transposes vary with the seed so both operand orientations are packed.
          const int ta = seed % 2 ? BF16X_NO_TRANS : BF16X_TRANS, tb = seed % 3 ? BF16X_NO_TRANS : BF16X_TRANS;
          const std::vector<T> got = p.run(layout, ta, tb, mode, t, e);
          ++calls;
          const bool first = own && own_first.empty();
          const std::ptrdiff_t i = first_difference(got, own && !first ? own_first : want, first ? &bound : nullptr);
          if (first) own_first = got;
          if (i >= 0) {
            const std::size_t u = std::size_t(i);
            ADD_FAILURE() << bf16x_mode_name(mode) << " " << sh.m << "x" << sh.n << "x" << sh.k << " on "
                          << bf16x_engine_name(e) << ", " << t << " threads, "
                          << (layout == BF16X_ROW_MAJOR ? "row" : "col") << "-major: entry (" << u % std::size_t(sh.m)
                          << ", " << u / std::size_t(sh.m) << ") is " << got[u]
                          << (first ? ", beyond the bound of the reference's "
                              : own ? ", the same engine's first call's "
                                    : ", the reference's ")
                          << (own && !first ? own_first[u] : want[u]);
            return;  // one report per mode
          }
        }
    }
  }
  std::printf("[ sweep    ] %-8s %d shapes, %d calls on%s\n", bf16x_mode_name(mode), cases, calls, ran.c_str());
  std::fflush(stdout);
}

// Every mode in one order: its index rotates the (m, n) pairs.
std::vector<int> all_modes(bool crt) {
  std::vector<int> v;
  if (!crt) {
    for (int m : {BF16X_MODE_FP32X6, BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21,
                  BF16X_MODE_FP32X3})
      if (slice() != Slice::tsan || m == BF16X_MODE_FP32X6 || m == BF16X_MODE_FP64X21) v.push_back(m);
    return v;
  }
  for (int n = BF16X_FP64C_MIN; n <= BF16X_FP64C_MAX; ++n)
    if (slice() != Slice::tsan || n == 15) v.push_back(BF16X_MODE_FP64C(n));
  for (int n = BF16X_FP32C_MIN; n <= BF16X_FP32C_MAX; ++n)
    if (slice() != Slice::tsan || n == 8) v.push_back(BF16X_MODE_FP32C(n));
  return v;
}

void sweep_modes(bool crt) {
  int index = crt ? 5 : 0;
  for (int mode : all_modes(crt)) {
    const bool single = mode == BF16X_MODE_FP32X6 || mode == BF16X_MODE_FP32X3 || mode >= BF16X_MODE_FP32C_BASE;
    if (single)
      sweep<float>(mode, index++);
    else
      sweep<double>(mode, index++);
  }
}

TEST(Differential, SliceModesEveryEngineThreadCountAndLayoutGiveTheReferenceBits) { sweep_modes(false); }

TEST(Differential, CrtModesEveryEngineThreadCountAndLayoutGiveTheReferenceBits) { sweep_modes(true); }

}  // namespace
}  // namespace bf16x::test
