// Decoding of one fuzzer input into a GEMM call. One byte per field, front to back (missing bytes read as 0, the
// first value of each field), so seeds can be written by hand (fuzz/make_corpus.py mirrors this layout):
//
//   0 precision (even: dgemm, odd: sgemm)  1 layout  2 transa  3 transb  4 m  5 n  6 k
//   7 lda  8 ldb  9 ldc  10 alpha  11 beta  12 mode  13 engine  14 flags  15 block_k  16 auto_target
//   17 NULL pointers  18..20 contents of A, B, C  21..28 PRNG seed  29.. plants: 4 bytes each
//
// Every field has a valid range (most byte values) and an invalid or extreme tail (the top values).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "bf16x/bf16x.h"
#include "mode/records.hpp"

namespace bf16x::fuzz {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  std::uint8_t u8() { return i_ < n_ ? p_[i_++] : 0; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | u8();
    return v;
  }
  bool done() const { return i_ >= n_; }

 private:
  const std::uint8_t* p_;
  std::size_t n_, i_ = 0;
};

// Contents of one operand: a distribution class and how often special values replace entries.
struct Fill {
  int dist;         // 0 uniform [-1,1], 1 log-uniform 2^+-30, 2 log-uniform over the type's whole range,
                    // 3 small integers, 4 rows/columns scaled by 2^+-100, 5 cancelling pairs, 6 sparse, 7 constant
  int finite_rate;  // special finite values (+-0, subnormals, min normal, max): never, 1/64, 1/8, 1/2
  int nonfinite;    // NaN / +-Inf: 0 none, 1 one entry, 2 one in 16
};

// A special value put at a raw buffer index (padding included: it must never be read).
struct Plant {
  int which;  // 0 A, 1 B, 2 C
  std::uint32_t index;
  int value;  // index into special_value()
};

struct FuzzCase {
  bool dbl;
  int layout, transa, transb;
  std::uint8_t m_code, n_code, k_code, lda_code, ldb_code, ldc_code;
  int alpha_code, beta_code;
  bool ex_api, stats;
  bf16x_options opt;
  int null_mask;  // bit 0 A, 1 B, 2 C
  Fill fill[3];
  std::uint64_t seed;
  std::vector<Plant> plants;
};

// Special values: 0..7 finite, 8..10 non-finite.
template <typename T>
T special_value(int i) {
  using L = std::numeric_limits<T>;
  const T v[] = {T(0),     -T(0),        L::denorm_min(), -L::denorm_min() * 3, L::min(),      -L::max(),
                 L::max(), L::epsilon(), L::quiet_NaN(),  L::infinity(),        -L::infinity()};
  return v[unsigned(i) % 11];
}
inline constexpr int kFiniteSpecials = 8;

template <typename T>
T scalar_value(int code, std::uint64_t seed) {
  using L = std::numeric_limits<T>;
  const T common[8] = {T(1), T(0), T(-1), T(0.5), T(2), T(-0.75), T(3), T(1) / T(3)};
  if (code < 128) return common[code % 8];
  const T rare[8] = {
      -T(0),           L::quiet_NaN(), L::infinity(), -L::infinity(),
      L::denorm_min(), L::max(),       T(1e-30),      T(std::ldexp(double(seed % 2001) - 1000, -int(seed % 37)))};
  return rare[code % 8];
}

// m, n, k: 0..300, or a negative / huge value from the top 16 codes.
inline std::int64_t dim_value(std::uint8_t d) {
  if (d < 160) return d;
  if (d < 240) return 160 + (std::int64_t(d) - 160) * 140 / 79;
  constexpr std::int64_t one = 1;
  const std::int64_t huge[16] = {-1,
                                 -7,
                                 std::numeric_limits<std::int64_t>::min(),
                                 INT32_MAX,
                                 one << 31,
                                 one << 32,
                                 (one << 32) + 1,
                                 one << 40,
                                 one << 46,
                                 one << 53,
                                 one << 61,
                                 one << 62,
                                 std::numeric_limits<std::int64_t>::max(),
                                 std::numeric_limits<std::int64_t>::max() - 63,
                                 3 * (one << 60),
                                 (one << 31) - 3};
  return huge[d - 240];
}

// Leading dimension from the minimum the shape needs: padded by 0..3, too small by 1..3, or extreme.
inline std::int64_t ld_value(std::uint8_t l, std::int64_t minimal) {
  std::int64_t v;
  if (l < 192) return __builtin_add_overflow(minimal, l % 4, &v) ? minimal : v;
  if (l < 240) return minimal - 1 - l % 3;  // minimal >= 1
  constexpr std::int64_t one = 1;
  const std::int64_t extreme[16] = {0,
                                    -1,
                                    std::numeric_limits<std::int64_t>::min(),
                                    INT32_MAX,
                                    one << 31,
                                    one << 32,
                                    one << 40,
                                    one << 62,
                                    std::numeric_limits<std::int64_t>::max(),
                                    one << 61,
                                    (one << 31) + 5,
                                    (one << 32) + 3,
                                    one << 20,
                                    1,
                                    2,
                                    65};
  return extreme[l - 240];
}

inline int pick(std::uint8_t b, int valid_below, const int* v, std::size_t nv, std::initializer_list<int> invalid) {
  const int* x = invalid.begin();
  if (b < valid_below || invalid.size() == 0) return v[b % nv];
  return x[(b - valid_below) % invalid.size()];
}
inline int pick(std::uint8_t b, int valid_below, std::initializer_list<int> valid, std::initializer_list<int> invalid) {
  return pick(b, valid_below, valid.begin(), valid.size(), invalid);
}

// Every mode the library's records list (mode/records.hpp), in value order: DEFAULT .. AUTO first, so that a seed's
// byte keeps its mode, then fp64cr, fp32cr and the CRT modes.
inline const std::vector<int>& record_modes() {
  static const std::vector<int> ids = [] {
    std::vector<int> v;
    for (const mode::Record& r : mode::records()) v.push_back(r.id);
    return v;
  }();
  return ids;
}

inline Fill fill_from(std::uint8_t b) {
  const int nf = b >> 5;
  return {b & 7, (b >> 3) & 3, nf == 6 ? 1 : (nf == 7 ? 2 : 0)};
}

inline FuzzCase decode(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  FuzzCase c{};
  c.dbl = (in.u8() & 1) == 0;
  c.layout = pick(in.u8(), 240, {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}, {0, 100, 103, -1, 'C', 'R'});
  c.transa = pick(in.u8(), 240, {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS}, {0, 110, 114, 'N', 'T', -1});
  c.transb = pick(in.u8(), 240, {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS}, {0, 110, 114, 'N', 'C', -1});
  c.m_code = in.u8();
  c.n_code = in.u8();
  c.k_code = in.u8();
  c.lda_code = in.u8();
  c.ldb_code = in.u8();
  c.ldc_code = in.u8();
  c.alpha_code = in.u8();
  c.beta_code = in.u8();
  bf16x_options_init(&c.opt);
  c.opt.mode = pick(in.u8(), 232, record_modes().data(), record_modes().size(),
                    {-1, 99, 1000, INT32_MIN, INT32_MAX, 12, 107, 221});  // no mode: refused
  // The auto engine is the one users get: half of the inputs use it.
  const std::uint8_t e = in.u8();
  c.opt.engine = e < 128 ? BF16X_ENGINE_AUTO : pick(e - 128, 104, {0, 1, 2, 3, 4, 5}, {-1, 6, 7, 99, INT32_MIN});
  const std::uint8_t f = in.u8();
  c.opt.split = (f & 3) == 3 ? ((f & 4) ? 2 : -1) : ((f & 3) == 1 ? BF16X_SPLIT_PAPER : BF16X_SPLIT_SCALED);
  c.opt.fuse_diagonals = (f >> 3) & 1;
  c.stats = (f >> 4) & 1;
  c.ex_api = ((f >> 5) & 3) != 0;
  const std::uint8_t bk = in.u8();
  c.opt.block_k = bk < 160 ? 0 : pick(bk - 160, 64, {32, 64, 96, 128, 160, 192, 224, 256}, {-32, 16, 288, 33, 512, 1});
  const std::uint8_t at = in.u8();
  const double targets[8] = {1e-3, 1e-8, 1e-15, 1.0, -1.0, std::nan(""), -0.0, HUGE_VAL};
  c.opt.auto_target = at < 200 ? 0.0 : targets[at % 8];
  const std::uint8_t nb = in.u8();
  c.null_mask = nb < 224 ? 0 : (nb - 224) % 8;
  for (Fill& fl : c.fill) fl = fill_from(in.u8());
  c.seed = in.u64();
  while (!in.done() && c.plants.size() < 64) {
    const std::uint8_t w = in.u8(), i1 = in.u8(), i0 = in.u8(), v = in.u8();
    c.plants.push_back({w % 3, std::uint32_t(w / 3) << 16 | std::uint32_t(i1) << 8 | i0, v});
  }
  return c;
}

}  // namespace bf16x::fuzz
