// TileModel: the AMX tile state in software, a TileBackend for the micro-kernel on machines without AMX.
//
// Eight tiles of 16 rows x 64 bytes and a palette-1 configuration, with the SDM semantics of
//   LDTILECFG   validate the 64-byte config (tile_config.hpp), zero all tile data; palette 0 = init state
//   TILELOADD   rows start_row..rows-1 of colsb bytes from base + r*stride; bytes past colsb and rows past rows zero
//   TILESTORED  rows start_row..rows-1 of colsb bytes to base + r*stride
//   TILEZERO    all bytes zero
//   TDPBF16PS   dst[m][n] += sum over pairs k of src1[m] pair k . src2[k] pair n, one pair step at a time in
//               k order (engine/dpbf16.hpp, the arithmetic the reference engine uses), rows/columns past the
//               dst shape zeroed
//   TDPB[SU][SU]D  dst[m][n] += sum over k of the four byte products src1[m] dword k . src2[k] dword n, each byte
//               sign- or zero-extended as the mnemonic says (S = signed, U = unsigned; first letter src1), int32
//               arithmetic wrapping modulo 2^32, rows/columns past the dst shape zeroed (AMX-INT8)
//   TILERELEASE back to the init state
// Where the hardware faults (#GP for a bad config, #UD for a tile instruction on an unconfigured or wrongly
// shaped tile) the model throws TileFault and leaves its state unchanged. Tile numbers are template arguments,
// exactly as the hardware encodes them in the instruction.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "engine/amx/tile_config.hpp"

namespace bf16x::engine::amx {

struct TileFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class TileModel {
 public:
  // LDTILECFG. Returns ConfigError::none after configuring; otherwise the state is unchanged (the hardware's #GP),
  // except for palette 0, which is the init state: legal, but it leaves no tile configured.
  ConfigError load_config(const void* config64);
  void release();  // TILERELEASE
  bool configured() const { return palette_ != 0; }
  TileConfig config() const;  // STTILECFG (all zero when unconfigured)

  template <int T>
  void load(const void* base, std::size_t stride) {
    static_assert(T >= 0 && T < kTiles);
    load_tile(T, base, stride);
  }
  template <int T>
  void store(void* base, std::size_t stride) {
    static_assert(T >= 0 && T < kTiles);
    store_tile(T, base, stride);
  }
  template <int T>
  void zero() {
    static_assert(T >= 0 && T < kTiles);
    zero_tile(T);
  }
  // PREFETCHT0 of one line: no architectural effect (the kernels' prefetch schedule), counted for the tests.
  void prefetch(const void*) { ++prefetches_; }
  std::uint64_t prefetches() const { return prefetches_; }

  template <int Dst, int Src1, int Src2>
  void dpbf16ps() {
    static_assert(Dst >= 0 && Dst < kTiles && Src1 >= 0 && Src1 < kTiles && Src2 >= 0 && Src2 < kTiles);
    static_assert(Dst != Src1 && Dst != Src2 && Src1 != Src2, "TDPBF16PS needs three distinct tiles");
    dpbf16ps_tiles(Dst, Src1, Src2);
  }

  // AMX-INT8: TDPBSSD (the kernels' instruction), and TDPBSUD, TDPBUSD, TDPBUUD by their operands' signedness.
  template <int Dst, int Src1, int Src2, bool Src1Signed = true, bool Src2Signed = true>
  void dpb() {
    check_three<Dst, Src1, Src2>();
    dp_int8_tiles(Dst, Src1, Src2, Src1Signed, Src2Signed);
  }
  template <int Dst, int Src1, int Src2>
  void dpbssd() {
    dpb<Dst, Src1, Src2>();
  }

  // The same operations on runtime tile numbers (tests probe the fault rules through these).
  void load_tile(int t, const void* base, std::size_t stride);
  void store_tile(int t, void* base, std::size_t stride);
  void zero_tile(int t);
  void dpbf16ps_tiles(int dst, int src1, int src2);
  void dp_int8_tiles(int dst, int src1, int src2, bool src1_signed, bool src2_signed);

 private:
  template <int Dst, int Src1, int Src2>
  static constexpr void check_three() {
    static_assert(Dst >= 0 && Dst < kTiles && Src1 >= 0 && Src1 < kTiles && Src2 >= 0 && Src2 < kTiles);
    static_assert(Dst != Src1 && Dst != Src2 && Src1 != Src2, "TDPB*D needs three distinct tiles");
  }
  void require_tile(int t, const char* op) const;
  // A dot product's rows x cols result c into tile dst, the bytes past that shape zeroed.
  template <typename E>
  void put_result(int dst, E (&c)[kMaxRows][kMaxRows], int rows, int cols);
  void check_dot_operands(const char* op, int dst, int src1, int src2) const;

  std::uint8_t palette_ = 0;
  std::uint8_t start_row_ = 0;
  std::uint16_t colsb_[kTiles] = {};
  std::uint8_t rows_[kTiles] = {};
  alignas(64) std::uint8_t data_[kTiles][kMaxRows][kMaxColsBytes] = {};
  std::uint64_t prefetches_ = 0;
};

}  // namespace bf16x::engine::amx
