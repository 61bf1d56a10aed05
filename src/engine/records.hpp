// The engine records: one row per engine (engine/records.cpp), everything that depends on which engine runs.
// A record pairs the engine's BF16 micro-kernel (the slice modes) and its INT8 micro-kernel (the CRT modes), either
// of which may be absent, with the figures the cost model plans with. Which engine a call uses, with BF16X_ENGINE,
// BF16X_CRT_ENGINE and bf16x_set_engine, is decided above this layer (planner/engine_choice.hpp); adding an engine is
// described in docs/adding-an-engine.md.
#pragma once
#include <cstddef>

#include "cpu/features.hpp"
#include "engine/engine.hpp"
#include "engine/int8_kernel.hpp"

namespace bf16x::engine {

// Sustained rates per core and cycle, products with their reconstruction, for the cost model (policy/).
struct Rates {
  double fp64_path = 0;  // BF16 flop/cycle on the FP64 path (fp64x*: a widening per product and k-block)
  double fp32_path = 0;  // BF16 flop/cycle on the FP32 path (fp32x6)
  double int8 = 0;       // INT8 multiply-adds per cycle (fp64c*, fp32c*)
};

// A micro-tile: rows x columns of C per kernel call, and the k step of the packed panels.
struct TileShape {
  int m = 0, n = 0, k_step = 0;
  constexpr bool operator==(const TileShape&) const = default;
};
// The shapes the packers build (pack/layout.hpp for the BF16 panels, engine/int8_kernel.hpp for the INT8 ones).
inline constexpr TileShape kBf16Packed{pack::kTileM, pack::kTileN, pack::kKChunk};
inline constexpr TileShape kInt8Packed{int8::kTile, int8::kTile, int8::kKChunk};

struct Record {
  int id = 0;                  // BF16X_ENGINE_*
  const char* name = nullptr;  // bf16x_engine_name, BF16X_ENGINE / BF16X_CRT_ENGINE values
  EngineInfo bf16{};           // kernel null: no BF16 side (an INT8-only engine such as avx2-int8)
  int8::Engine int8{};         // kernel null: no INT8 side
  Rates rates{};
  // A hardware instruction set (listed in the verbose header's isa=, chosen by auto); false for the scalar oracle
  // and the software model.
  bool isa = false;
  // Named as the BF16 engine, it also runs the CRT modes (the oracle, the AMX kernels on tiles or the model) instead
  // of the best INT8 engine.
  bool carries_crt = false;
  // The vector level of the correctly rounded modes' tile sums (cr/tile_sums.hpp, clamped to this CPU's) beside
  // this engine named as the BF16 engine: the scalar sums beside the oracle, AVX2 beside avx2, else the widest.
  cpu::Level sums = cpu::Level::avx512;
  // The micro-tiles its kernels compute. Every engine takes the packers' shapes today; a side whose shape differs is
  // not usable (engine_usable, int8_usable) until the packers build panels of the shape the record declares.
  TileShape bf16_tile = kBf16Packed;
  TileShape int8_tile = kInt8Packed;
};

// The table, in the order auto prefers: the first usable isa record with the side a call needs, else reference.
struct Table {
  const Record* rows;
  std::size_t size;
  const Record* begin() const { return rows; }
  const Record* end() const { return rows + size; }
};
const Table& records();

const Record* record(int id);  // BF16X_ENGINE_* -> record, nullptr for AUTO/unknown

const EngineInfo* engine_info(int id);    // the BF16 side, nullptr if the engine has none
const int8::Engine* int8_engine(int id);  // the INT8 side, nullptr if the engine has none
bool engine_usable(int id);               // has a BF16 side that this CPU runs
bool int8_usable(int id);                 // has an INT8 side that this CPU runs
// The correctly rounded tile sums' vector level beside engine `id` (Record::sums; the widest for AUTO or unknown).
cpu::Level sums_level(int id);

// `want` if usable here, else the next usable BF16 engine down the table (the reference engine at the end).
int best_usable(int want);
// The best usable INT8 engine (amx -> avx512vnni -> avx2-int8 -> reference).
int best_int8();

}  // namespace bf16x::engine
