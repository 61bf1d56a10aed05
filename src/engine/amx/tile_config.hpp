// The 64-byte AMX tile configuration (LDTILECFG operand) and its palette-1 validity rules, as the Intel SDM
// states them. Used to build the kernel's palette at compile time, by the tile model's LDTILECFG, and by tests.
//
//   byte 0      palette_id      1 = the 8 x (16 rows x 64 bytes) palette; 0 = init state (no tiles configured)
//   byte 1      start_row       restart row of an interrupted tile load/store, 0 otherwise
//   bytes 2-15  reserved        must be zero
//   bytes 16-47 colsb[16]       uint16 bytes per row of tile t (palette 1 names tiles 0-7; 8-15 must be zero)
//   bytes 48-63 rows[16]        uint8 rows of tile t (likewise)
#pragma once
#include <cstddef>
#include <cstdint>

namespace bf16x::engine::amx {

inline constexpr int kTiles = 8;          // palette 1: tile names TMM0-TMM7
inline constexpr int kMaxRows = 16;       // palette 1: rows per tile
inline constexpr int kMaxColsBytes = 64;  // palette 1: bytes per tile row

struct alignas(64) TileConfig {
  std::uint8_t palette_id = 0;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64);
static_assert(offsetof(TileConfig, reserved) == 2 && offsetof(TileConfig, colsb) == 16 &&
              offsetof(TileConfig, rows) == 48);

// Why a configuration is not a valid palette-1 configuration (LDTILECFG raises #GP for all but `palette`, where
// palette 0 is legal on hardware but configures no tiles, and palettes above 1 do not exist on current parts).
enum class ConfigError {
  none,
  palette,         // palette_id != 1
  reserved,        // a byte of 2-15 nonzero, or colsb/rows of a tile name >= 8 nonzero
  colsb,           // colsb > 64
  rows,            // rows > 16
  half_configured  // exactly one of rows and colsb is zero
};

constexpr ConfigError check_tile_config(const TileConfig& c) {
  if (c.palette_id != 1) return ConfigError::palette;
  for (std::uint8_t r : c.reserved)
    if (r != 0) return ConfigError::reserved;
  for (int t = kTiles; t < 16; ++t)
    if (c.colsb[t] != 0 || c.rows[t] != 0) return ConfigError::reserved;
  for (int t = 0; t < kTiles; ++t) {
    if (c.colsb[t] > kMaxColsBytes) return ConfigError::colsb;
    if (c.rows[t] > kMaxRows) return ConfigError::rows;
    if ((c.colsb[t] == 0) != (c.rows[t] == 0)) return ConfigError::half_configured;
  }
  return ConfigError::none;
}

constexpr const char* config_error_name(ConfigError e) {
  constexpr const char* kNames[] = {"none", "palette", "reserved", "colsb", "rows", "half_configured"};
  const auto i = static_cast<std::size_t>(e);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "?";
}

}  // namespace bf16x::engine::amx
