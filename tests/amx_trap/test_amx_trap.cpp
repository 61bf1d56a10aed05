// The amx engines' real machine code under trap and emulate (amx_trap.hpp): through the public API, every mode, odd
// shapes, k across the block and chunk boundaries, both layouts, 1-4 threads, bit for bit equal to the reference
// engine; the trapped instructions counted against bf16x_stats; a thread that skips LDTILECFG, and an instruction
// the trap does not know, caught. On a CPU with AMX the instructions run on the hardware and the trap never fires:
// the tests then check the same equalities without the counts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "amx_trap.hpp"
#include "bf16x/bf16x.h"
#include "broken_tiles.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "gemm_fixture.hpp"

namespace bf16x::test {
namespace {

using amx_trap::Op;

// The instructions the hardware would run: counted only where the trap executes them.
bool trapping() { return !amx_trap::hardware_amx(); }

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The mode itself (guard off: where the guard cannot prove the wide-range inputs it would run the host GEMM).
template <typename T>
std::vector<T> run_on(Problem<T> p, int mode, int engine, int guard = BF16X_GUARD_OFF) {
  bf16x_stats st;
  bf16x_stats_init(&st);
  p.guard = guard;
  EXPECT_EQ(p.run(mode, engine, &st), BF16X_OK);
  EXPECT_EQ(st.engine, engine) << bf16x_mode_name(mode);  // the amx engine ran, not a fallback
  return p.c;
}

template <typename T>
void expect_same_bits(const std::vector<T>& x, const std::vector<T>& y, const std::string& what) {
  ASSERT_EQ(x.size(), y.size());
  std::size_t bad = 0, first = x.size();
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0 && !(x[i] != x[i] && y[i] != y[i])) {
      if (bad++ == 0) first = i;
    }
  EXPECT_EQ(bad, 0u) << what << ": first at " << first << " amx " << (first < x.size() ? double(x[first]) : 0)
                     << " reference " << (first < y.size() ? double(y[first]) : 0);
}

struct Shape {
  std::int64_t m, n, k;
};

TEST(AmxTrapDecode, TheAssemblersEncodings) {
  struct Case {
    std::vector<std::uint8_t> bytes;
    Op op;
    int length, tile, src1, src2, base, index, scale;
    std::int64_t disp;
    bool rip;
  };
  // From GNU as / objdump (tile operands in Intel order: destination first).
  const Case cases[] = {
      {{0xc4, 0xe2, 0x78, 0x49, 0x00}, Op::ldtilecfg, 5, -1, -1, -1, 0, -1, 1, 0, false},  // ldtilecfg (%rax)
      {{0xc4, 0xe2, 0x78, 0x49, 0x05, 0x10, 0, 0, 0}, Op::ldtilecfg, 9, -1, -1, -1, -1, -1, 1, 16, true},
      {{0xc4, 0xe2, 0x79, 0x49, 0x44, 0x24, 0x40}, Op::sttilecfg, 7, -1, -1, -1, 4, -1, 1, 0x40, false},
      {{0xc4, 0xe2, 0x79, 0x49, 0x45, 0xf8}, Op::sttilecfg, 6, -1, -1, -1, 5, -1, 1, -8, false},
      {{0xc4, 0xe2, 0x78, 0x49, 0xc0}, Op::tilerelease, 5, -1, -1, -1, -1, -1, 1, 0, false},
      {{0xc4, 0xe2, 0x7b, 0x49, 0xf8}, Op::tilezero, 5, 7, -1, -1, -1, -1, 1, 0, false},
      {{0xc4, 0xe2, 0x7b, 0x4b, 0x0c, 0x08}, Op::tileloadd, 6, 1, -1, -1, 0, 1, 1, 0, false},
      {{0xc4, 0x82, 0x79, 0x4b, 0x9c, 0x59, 0x00, 0x01, 0, 0}, Op::tileloaddt1, 10, 3, -1, -1, 9, 11, 2, 0x100, false},
      {{0xc4, 0xe2, 0x7a, 0x4b, 0x6c, 0x9c, 0xf0}, Op::tilestored, 7, 5, -1, -1, 4, 3, 4, -16, false},
      {{0xc4, 0x82, 0x7b, 0x4b, 0x74, 0x15, 0x00}, Op::tileloadd, 7, 6, -1, -1, 13, 10, 1, 0, false},
      {{0xc4, 0xe2, 0x7b, 0x4b, 0x14, 0xd5, 0x78, 0x56, 0x34, 0x12},
       Op::tileloadd,
       10,
       2,
       -1,
       -1,
       -1,
       2,
       8,
       0x12345678,
       false},
      {{0xc4, 0xe2, 0x42, 0x5c, 0xc6}, Op::tdpbf16ps, 5, 0, 6, 7, -1, -1, 1, 0, false},
      {{0xc4, 0xe2, 0x73, 0x5e, 0xda}, Op::tdpbssd, 5, 3, 2, 1, -1, -1, 1, 0, false},
      {{0xc4, 0xe2, 0x72, 0x5e, 0xda}, Op::tdpbsud, 5, 3, 2, 1, -1, -1, 1, 0, false},
      {{0xc4, 0xe2, 0x71, 0x5e, 0xda}, Op::tdpbusd, 5, 3, 2, 1, -1, -1, 1, 0, false},
      {{0xc4, 0xe2, 0x70, 0x5e, 0xda}, Op::tdpbuud, 5, 3, 2, 1, -1, -1, 1, 0, false},
  };
  for (const Case& c : cases) {
    std::uint8_t code[16] = {};
    std::memcpy(code, c.bytes.data(), c.bytes.size());
    const amx_trap::Decoded d = amx_trap::decode(code);
    const std::string what = std::string(amx_trap::op_name(c.op)) + " #" + std::to_string(&c - cases);
    EXPECT_EQ(d.op, c.op) << what;
    EXPECT_EQ(d.length, c.length) << what;
    EXPECT_EQ(d.tile, c.tile) << what;
    EXPECT_EQ(d.src1, c.src1) << what;
    EXPECT_EQ(d.src2, c.src2) << what;
    if (c.op == Op::ldtilecfg || c.op == Op::sttilecfg || c.op == Op::tileloadd || c.op == Op::tileloaddt1 ||
        c.op == Op::tilestored) {
      EXPECT_EQ(d.mem.base, c.base) << what;
      EXPECT_EQ(d.mem.index, c.index) << what;
      EXPECT_EQ(d.mem.scale, c.scale) << what;
      EXPECT_EQ(d.mem.disp, c.disp) << what;
      EXPECT_EQ(d.mem.rip, c.rip) << what;
    }
  }
  // Not AMX, or not a form the SDM allows: ud2, VEX.W1, a register operand for TILELOADD, a tile past 7.
  const std::vector<std::vector<std::uint8_t>> unknown = {{0x0f, 0x0b},
                                                          {0xc4, 0xe2, 0xfb, 0x49, 0xf8},
                                                          {0xc4, 0xe2, 0x7b, 0x4b, 0xc8},
                                                          {0xc4, 0x62, 0x7b, 0x49, 0xc0},
                                                          {0xc4, 0xe2, 0x3a, 0x5c, 0xc6}};
  for (const auto& u : unknown) {
    std::uint8_t code[16] = {};
    std::memcpy(code, u.data(), u.size());
    EXPECT_EQ(amx_trap::decode(code).op, Op::unknown) << "bytes " << int(u[2]) << " " << int(u[3]);
  }
}

// The BF16 engine: every slice mode, odd shapes, k across the 32-chunk and the k-block, layouts, transposes and
// 1-4 threads, against the reference engine bit for bit.
TEST(AmxTrap, Bf16EngineEqualsReferenceBitForBit) {
  const Shape shapes[] = {{1, 1, 1}, {33, 17, 31}, {31, 65, 257}, {70, 40, 300}, {5, 3, 600}};
  int seed = 0;
  for (int threads = 1; threads <= 4; ++threads) {
    ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
    for (const Shape& s : shapes)
      for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
        const int ta = ++seed % 2 ? BF16X_TRANS : BF16X_NO_TRANS, tb = seed % 3 ? BF16X_NO_TRANS : BF16X_TRANS;
        const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                                 " threads " + std::to_string(threads) + " layout " + std::to_string(layout);
        Problem<double> d(s.m, s.n, s.k, layout, ta, tb, seed, 2, -20, 20);
        d.alpha = -1.5, d.beta = 0.25;
        for (int mode : {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21})
          expect_same_bits(run_on(d, mode, BF16X_ENGINE_AMX), run_on(d, mode, BF16X_ENGINE_REFERENCE),
                           what + " " + bf16x_mode_name(mode));
        // fp32x6 sums in TDPBF16PS's pair order: the SDM's under the trap, the hardware's own on AMX
        Problem<float> f(s.m, s.n, s.k, layout, ta, tb, seed, 1, -5, 5);
        f.alpha = 0.75f, f.beta = 2;
        if (trapping())
          expect_same_bits(run_on(f, BF16X_MODE_FP32X6, BF16X_ENGINE_AMX),
                           run_on(f, BF16X_MODE_FP32X6, BF16X_ENGINE_REFERENCE), what + " fp32x6");
      }
  }
  bf16x_set_num_threads(0);
}

// The AMX-INT8 kernel of the CRT modes: every fp64c<N> and fp32c<N>, k across the 64-chunk and the CRT k-block
// (2048), both layouts, against the reference engine bit for bit; the thread count (1-4) turns with the moduli, so
// that every mode meets two of them.
TEST(AmxTrap, Int8EngineEqualsReferenceBitForBit) {
  const Shape shapes[] = {{1, 1, 1}, {33, 31, 63}, {40, 33, 65}, {9, 35, 2049}};
  int seed = 100;
  const auto each = [&](auto run_mode, int lo, int hi) {
    for (int moduli = lo; moduli <= hi; ++moduli)
      for (const int threads : {1 + moduli % 4, 1 + (moduli + 2) % 4}) {
        ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
        for (const Shape& s : shapes)
          for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
            const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                                     " threads " + std::to_string(threads) + " layout " + std::to_string(layout);
            run_mode(moduli, s, layout, ++seed, what);
          }
      }
  };
  each(
      [](int moduli, const Shape& s, int layout, int seed, const std::string& what) {
        Problem<double> d(s.m, s.n, s.k, layout, seed % 2 ? BF16X_TRANS : BF16X_NO_TRANS, BF16X_NO_TRANS, seed, 1, -30,
                          30);
        d.beta = -0.5;
        const int mode = BF16X_MODE_FP64C(moduli);
        expect_same_bits(run_on(d, mode, BF16X_ENGINE_AMX), run_on(d, mode, BF16X_ENGINE_REFERENCE),
                         what + " " + bf16x_mode_name(mode));
      },
      BF16X_FP64C_MIN, BF16X_FP64C_MAX);
  each(
      [](int moduli, const Shape& s, int layout, int seed, const std::string& what) {
        Problem<float> f(s.m, s.n, s.k, layout, BF16X_NO_TRANS, seed % 2 ? BF16X_TRANS : BF16X_NO_TRANS, seed, 0, -8,
                         8);
        const int mode = BF16X_MODE_FP32C(moduli);
        expect_same_bits(run_on(f, mode, BF16X_ENGINE_AMX), run_on(f, mode, BF16X_ENGINE_REFERENCE),
                         what + " " + bf16x_mode_name(mode));
      },
      BF16X_FP32C_MIN, BF16X_FP32C_MAX);
  bf16x_set_num_threads(0);
}

// The componentwise guard's digit product on the AMX-INT8 kernel, under a slice and a CRT mode: inputs within a
// few binades, which it proves, so that the calls stay on the amx engine.
TEST(AmxTrap, GuardedModesEqualReferenceBitForBit) {
  for (int threads : {1, 2}) {
    ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
    Problem<double> d(70, 45, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 5 + threads, 1, -1, 1);
    for (int mode : {BF16X_MODE_FP64X21, BF16X_MODE_FP64C(15)})
      expect_same_bits(run_on(d, mode, BF16X_ENGINE_AMX, BF16X_GUARD_ON),
                       run_on(d, mode, BF16X_ENGINE_REFERENCE, BF16X_GUARD_ON),
                       std::string("guarded ") + bf16x_mode_name(mode));
  }
  bf16x_set_num_threads(0);
}

// ZGEMM and CGEMM (their real products on the amx engines: 4M and 3M, a slice and a CRT mode), and auto on the amx
// engine (whatever it chooses, that mode on the reference engine gives the same bits).
TEST(AmxTrap, ComplexAndAutoEqualReferenceBitForBit) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::int64_t m = 37, n = 29, k = 130;
  std::vector<bf16x_complex_double> a(std::size_t(m * k)), b(std::size_t(k * n)), c0(std::size_t(m * n));
  for (auto* v : {&a, &b, &c0})
    for (auto& x : *v) x = {u(rng), u(rng)};
  std::vector<bf16x_complex_float> af(a.size()), bf(b.size()), cf0(c0.size());
  for (std::size_t i = 0; i < a.size(); ++i) af[i] = {float(a[i].re), float(a[i].im)};
  for (std::size_t i = 0; i < b.size(); ++i) bf[i] = {float(b[i].re), float(b[i].im)};
  for (std::size_t i = 0; i < c0.size(); ++i) cf0[i] = {float(c0[i].re), float(c0[i].im)};
  for (int method : {BF16X_COMPLEX_4M, BF16X_COMPLEX_3M})
    for (int mode : {int(BF16X_MODE_FP64X21), int(BF16X_MODE_FP64C(16))}) {
      std::vector<bf16x_complex_double> c[2] = {c0, c0};
      for (int e = 0; e < 2; ++e) {
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = bf16x_mode(mode);
        o.engine = e ? BF16X_ENGINE_REFERENCE : BF16X_ENGINE_AMX;
        o.guard = BF16X_GUARD_OFF;
        o.complex_method = bf16x_complex_method(method);
        ASSERT_EQ(bf16x_zgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_CONJ_TRANS, m, n, k, {0.5, -1}, a.data(), m,
                                 b.data(), n, {0.25, 0.5}, c[e].data(), m, &o),
                  BF16X_OK);
      }
      expect_same_bits(std::vector<double>(&c[0][0].re, &c[0][0].re + 2 * c[0].size()),
                       std::vector<double>(&c[1][0].re, &c[1][0].re + 2 * c[1].size()),
                       std::string("zgemm ") + bf16x_mode_name(mode) + " method " + std::to_string(method));
      if (!trapping()) continue;  // (fp32x6's pair order: see Bf16EngineEqualsReferenceBitForBit)
      std::vector<bf16x_complex_float> cf[2] = {cf0, cf0};
      for (int e = 0; e < 2; ++e) {
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = BF16X_MODE_FP32X6;
        o.engine = e ? BF16X_ENGINE_REFERENCE : BF16X_ENGINE_AMX;
        o.complex_method = bf16x_complex_method(method);
        ASSERT_EQ(bf16x_cgemm_ex(BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, m, n, k, {1, 0.5f}, af.data(), m,
                                 bf.data(), n, {0, 0}, cf[e].data(), n, &o),
                  BF16X_OK);
      }
      expect_same_bits(std::vector<float>(&cf[0][0].re, &cf[0][0].re + 2 * cf[0].size()),
                       std::vector<float>(&cf[1][0].re, &cf[1][0].re + 2 * cf[1].size()),
                       "cgemm fp32x6 method " + std::to_string(method));
    }
  // auto on the amx engine and on the reference engine, on accuracy alone (BF16X_AUTO_COST=off, set in main: the
  // cost model would keep calls this small native): where both choose one mode, the same bits
  bf16x_set_num_threads(2);
  int emulated = 0;
  for (const double target : {0.0, 1e-9, 1e-6}) {
    Problem<double> p(100, 90, 200, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 77, 0, -3, 3);
    p.auto_target = target;
    Problem<double> q = p;
    bf16x_stats sp, sq;
    bf16x_stats_init(&sp);
    bf16x_stats_init(&sq);
    ASSERT_EQ(p.run(BF16X_MODE_AUTO, BF16X_ENGINE_AMX, &sp), BF16X_OK);
    ASSERT_EQ(q.run(BF16X_MODE_AUTO, BF16X_ENGINE_REFERENCE, &sq), BF16X_OK);
    std::printf("auto, target %g: %s on %s, %s on %s\n", target, bf16x_mode_name(sp.mode),
                sp.engine >= 0 ? bf16x_engine_name(sp.engine) : "host", bf16x_mode_name(sq.mode),
                sq.engine >= 0 ? bf16x_engine_name(sq.engine) : "host");
    if (sp.mode != sq.mode || sp.mode == BF16X_MODE_NATIVE) continue;
    EXPECT_EQ(sp.engine, BF16X_ENGINE_AMX);
    expect_same_bits(p.c, q.c, std::string("auto chose ") + bf16x_mode_name(sp.mode));
    ++emulated;
  }
  EXPECT_GT(emulated, 0) << "auto never emulated: nothing compared";
  bf16x_set_num_threads(0);
}

// The instructions one call executes, per kind, against its bf16x_stats tile counters; every thread's tiles are
// released (TILERELEASE) by the end of the call.
void count_one_call(int mode, std::int64_t n, int threads) {
  ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
  Problem<double> p(n, n, n, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 7, 0, -4, 4);
  bf16x_stats st;
  bf16x_stats_init(&st);
  amx_trap::reset_counts();
  const double t0 = now();
  // (guard off: the guard's own INT8 bound product is not in the mode's counters)
  p.guard = BF16X_GUARD_OFF;
  ASSERT_EQ(p.run(mode, BF16X_ENGINE_AMX, &st), BF16X_OK);
  const double secs = now() - t0;
  bf16x_set_num_threads(0);
  ASSERT_EQ(st.engine, BF16X_ENGINE_AMX);
  if (!trapping()) GTEST_SKIP() << "AMX hardware: no instruction trapped";
  const amx_trap::Counts c = amx_trap::counts();
  std::printf("%s n = %lld, %d thread(s), %.2f s under the trap:", bf16x_mode_name(mode), static_cast<long long>(n),
              threads, secs);
  for (int op = 1; op < int(Op::count); ++op)
    if (c.n[op]) std::printf(" %s %llu", amx_trap::op_name(Op(op)), static_cast<unsigned long long>(c.n[op]));
  std::printf("\n");
  const bool crt = mode >= BF16X_MODE_FP64C_BASE;
  const Op dot = crt ? Op::tdpbssd : Op::tdpbf16ps;
  EXPECT_EQ(c[dot], st.dot_products);
  EXPECT_EQ(c[crt ? Op::tdpbf16ps : Op::tdpbssd], 0u);
  EXPECT_EQ(c[Op::tilestored], st.tile_stores);
  // Operand loads: the counter's A and B tiles; the trap also sees the accumulator loads of the INT8 kernel (four
  // per call, which starts from C) and of BF16 calls that accumulate (none at this n: one k-block).
  EXPECT_EQ(c[Op::tileloadd], st.tile_loads + (crt ? 4 * st.micro_tiles : 0));
  EXPECT_EQ(c[Op::tilezero], crt ? 0 : st.tile_stores);  // the BF16 kernel starts each group from zero
  EXPECT_GE(c[Op::ldtilecfg], 1u);
  // one palette per thread and parallel region (the CRT modes: the bound pass and the products pass)
  EXPECT_LE(c[Op::ldtilecfg], std::uint64_t(threads) * (crt ? 2 : 1));
  EXPECT_EQ(c[Op::tilerelease], c[Op::ldtilecfg]) << "a thread kept its tiles configured after the call";
  EXPECT_FALSE(amx_trap::thread_configured());
}

TEST(AmxTrap, InstructionsOfOneCallMatchTheStats) {
  for (int threads : {1, 3}) {
    count_one_call(BF16X_MODE_FP64X21, 256, threads);
    count_one_call(BF16X_MODE_FP64C(15), 256, threads);
  }
}

// Every schedule of the AMX kernels (BF16X_AMX_KERNEL; engine/amx/kernel_amx_bf16_32x32.hpp) on the hardware
// kernels, under the trap where there is no AMX: the same bits as the reference engine for a slice, a CRT and the
// FP32 mode, across k-chunks and k-blocks and two thread counts, and the same instructions as the plain schedule (the
// trap counts of one call; a prefetch is no tile instruction). The counts are printed for the device's comparison.
TEST(AmxTrap, EveryKernelScheduleEqualsReferenceWithTheSameTileInstructions) {
  using engine::amx::Schedule;
  const Shape shapes[] = {{33, 17, 31}, {31, 65, 257}, {9, 35, 130}};
  amx_trap::Counts plain{};
  for (Schedule s : {Schedule::plain, Schedule::interleaved, Schedule::prefetch}) {
    engine::amx::set_schedule(s);
    const std::string name = engine::amx::schedule_name(s);
    int seed = 300;
    for (int threads : {1, 2}) {
      ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
      for (const Shape& sh : shapes) {
        const std::string what = name + " " + std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" +
                                 std::to_string(sh.k) + " threads " + std::to_string(threads);
        Problem<double> d(sh.m, sh.n, sh.k, BF16X_COL_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, ++seed, 2, -20, 20);
        d.beta = 0.5;
        for (int mode : {BF16X_MODE_FP64X21, BF16X_MODE_FP64C(15)})
          expect_same_bits(run_on(d, mode, BF16X_ENGINE_AMX), run_on(d, mode, BF16X_ENGINE_REFERENCE),
                           what + " " + bf16x_mode_name(mode));
        Problem<float> f(sh.m, sh.n, sh.k, BF16X_ROW_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, seed, 1, -5, 5);
        if (trapping())
          expect_same_bits(run_on(f, BF16X_MODE_FP32X6, BF16X_ENGINE_AMX),
                           run_on(f, BF16X_MODE_FP32X6, BF16X_ENGINE_REFERENCE), what + " fp32x6");
      }
    }
    // One call of each kind, counted.
    bf16x_set_num_threads(1);
    amx_trap::reset_counts();
    Problem<double> p(96, 96, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 5, 0, -4, 4);
    p.guard = BF16X_GUARD_OFF;
    ASSERT_EQ(p.run(BF16X_MODE_FP64X21, BF16X_ENGINE_AMX), BF16X_OK);
    ASSERT_EQ(p.run(BF16X_MODE_FP64C(15), BF16X_ENGINE_AMX), BF16X_OK);
    const amx_trap::Counts c = amx_trap::counts();
    if (trapping()) {
      std::printf("[schedule] %s: fp64x21 + fp64c15, 96 x 96 x 300, 1 thread:", name.c_str());
      for (int op = 1; op < int(Op::count); ++op)
        if (c.n[op]) std::printf(" %s %llu", amx_trap::op_name(Op(op)), static_cast<unsigned long long>(c.n[op]));
      std::printf("\n");
      if (s == Schedule::plain) plain = c;
      for (int op = 1; op < int(Op::count); ++op) EXPECT_EQ(c.n[op], plain.n[op]) << name << " " << op;
    }
  }
  engine::amx::set_schedule(Schedule::plain);
  bf16x_set_num_threads(0);
}

// The TDPBF16PS issue-rate probe of bf16x_microbench (AmxPeak): register tiles only, its thread's palette loaded
// and released like a kernel's, and the instruction count it reports is the one it ran.
TEST(AmxTrap, PeakProbeRunsWhatItCounts) {
  ASSERT_TRUE(bf16x_engine_available(BF16X_ENGINE_AMX));
  amx_trap::reset_counts();
  EXPECT_EQ(engine::amx::tdpbf16ps_peak_loop(5), 20u);
  EXPECT_FALSE(amx_trap::thread_configured());
  if (!trapping()) GTEST_SKIP() << "AMX hardware: no instruction trapped";
  const amx_trap::Counts c = amx_trap::counts();
  EXPECT_EQ(c[Op::tdpbf16ps], 20u);
  EXPECT_EQ(c[Op::tileloadd], 4u);
  EXPECT_EQ(c[Op::tilezero], 4u);
  EXPECT_EQ(c[Op::ldtilecfg], 1u);
  EXPECT_EQ(c[Op::tilerelease], 1u);
}

// A thread that runs a tile instruction without its own LDTILECFG is caught (tile state is per thread: the
// configuration of the thread that made it does not cover another), and so is an instruction the trap does not know.
TEST(AmxTrapDeathTest, TileWithoutLdtilecfgOnAWorkerThreadIsCaught) {
  if (!trapping()) GTEST_SKIP() << "AMX hardware: its own #UD would end the process";
  EXPECT_DEATH(
      {
        broken::configure_this_thread();                                   // the main thread is configured...
        std::thread worker([] { broken::tilezero_without_ldtilecfg(); });  // ...the worker is not
        worker.join();
      },
      "tiles not configured");
}

TEST(AmxTrapDeathTest, UnknownInstructionIsCaught) {
  if (!trapping()) GTEST_SKIP() << "AMX hardware";
  EXPECT_DEATH(__builtin_trap(), "unknown instruction");
}

}  // namespace
}  // namespace bf16x::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  setenv("BF16X_AUTO_COST", "off", 1);  // auto decides on accuracy alone here (read once, at the first call)
  bf16x::amx_trap::install();
  return RUN_ALL_TESTS();
}
