#include "engine/amx/tile_model.hpp"

#include <cstring>
#include <string>

#include "engine/dpbf16.hpp"

namespace bf16x::engine::amx {
namespace {

[[noreturn]] void fault(const char* op, int t, const char* why) {
  throw TileFault(std::string(op) + " tmm" + std::to_string(t) + ": " + why);
}

}  // namespace

ConfigError TileModel::load_config(const void* config64) {
  TileConfig c;
  std::memcpy(&c, config64, sizeof c);
  if (c.palette_id == 0) {  // the init state, as after TILERELEASE
    release();
    return ConfigError::palette;
  }
  const ConfigError e = check_tile_config(c);
  if (e != ConfigError::none) return e;
  palette_ = c.palette_id;
  start_row_ = c.start_row;
  for (int t = 0; t < kTiles; ++t) {
    colsb_[t] = c.colsb[t];
    rows_[t] = c.rows[t];
  }
  std::memset(data_, 0, sizeof data_);
  return ConfigError::none;
}

void TileModel::release() {
  palette_ = 0;
  start_row_ = 0;
  for (int t = 0; t < kTiles; ++t) colsb_[t] = rows_[t] = 0;
  std::memset(data_, 0, sizeof data_);
}

TileConfig TileModel::config() const {
  TileConfig c;
  if (!configured()) return c;
  c.palette_id = palette_;
  c.start_row = start_row_;
  for (int t = 0; t < kTiles; ++t) {
    c.colsb[t] = colsb_[t];
    c.rows[t] = rows_[t];
  }
  return c;
}

void TileModel::require_tile(int t, const char* op) const {
  if (t < 0 || t >= kTiles) fault(op, t, "no such tile");
  if (!configured()) fault(op, t, "tiles not configured (no LDTILECFG)");
  if (rows_[t] == 0) fault(op, t, "tile not configured in the palette");
}

void TileModel::load_tile(int t, const void* base, std::size_t stride) {
  require_tile(t, "tileloadd");
  const auto* src = static_cast<const std::uint8_t*>(base);
  for (int r = start_row_; r < rows_[t]; ++r) {
    std::memcpy(data_[t][r], src + std::size_t(r) * stride, colsb_[t]);
    std::memset(data_[t][r] + colsb_[t], 0, std::size_t(kMaxColsBytes - colsb_[t]));
  }
  for (int r = rows_[t]; r < kMaxRows; ++r) std::memset(data_[t][r], 0, kMaxColsBytes);
  start_row_ = 0;
}

void TileModel::store_tile(int t, void* base, std::size_t stride) {
  require_tile(t, "tilestored");
  auto* dst = static_cast<std::uint8_t*>(base);
  for (int r = start_row_; r < rows_[t]; ++r) std::memcpy(dst + std::size_t(r) * stride, data_[t][r], colsb_[t]);
  start_row_ = 0;
}

void TileModel::zero_tile(int t) {
  require_tile(t, "tilezero");
  std::memset(data_[t], 0, sizeof data_[t]);
  start_row_ = 0;
}

// The #UD rules shared by the dot-product instructions: three distinct configured tiles, dst (M x N dwords) +=
// src1 (M x K dwords: BF16 pairs or 4 bytes) . src2 (K rows x N dwords).
void TileModel::check_dot_operands(const char* op, int dst, int src1, int src2) const {
  require_tile(dst, op);
  require_tile(src1, op);
  require_tile(src2, op);
  if (dst == src1 || dst == src2 || src1 == src2) fault(op, dst, "operands must be three distinct tiles");
  if (colsb_[dst] % 4 != 0 || colsb_[src1] % 4 != 0) fault(op, dst, "colsb not a multiple of 4");
  if (rows_[dst] != rows_[src1]) fault(op, src1, "rows differ from the destination's");
  if (rows_[src2] != colsb_[src1] / 4) fault(op, src2, "rows differ from src1's dwords per row");
  if (colsb_[src2] != colsb_[dst]) fault(op, src2, "colsb differs from the destination's");
}

// Bytes past the destination's shape are zeroed, as the hardware's write_row_and_zero / zero_upper_rows do.
template <typename E>
void TileModel::put_result(int dst, E (&c)[kMaxRows][kMaxRows], int rows, int cols) {
  for (int m = 0; m < kMaxRows; ++m)
    for (int n = 0; n < kMaxRows; ++n)
      if (m >= rows || n >= cols) c[m][n] = E(0);
  std::memcpy(data_[dst], c, sizeof c);
  start_row_ = 0;
}

void TileModel::dpbf16ps_tiles(int dst, int src1, int src2) {
  const char* op = "tdpbf16ps";
  check_dot_operands(op, dst, src1, src2);

  const int M = rows_[dst], N = colsb_[dst] / 4, K = colsb_[src1] / 4;
  bf16_t a[kMaxRows][2 * kMaxRows], b[kMaxRows][2 * kMaxRows];
  float c[kMaxRows][kMaxRows];
  std::memcpy(a, data_[src1], sizeof a);
  std::memcpy(b, data_[src2], sizeof b);
  std::memcpy(c, data_[dst], sizeof c);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = c[m][n];
      for (int k = 0; k < K; ++k) acc = dpbf16_pair(acc, a[m][2 * k], a[m][2 * k + 1], b[k][2 * n], b[k][2 * n + 1]);
      c[m][n] = acc;
    }
  put_result(dst, c, M, N);
}

void TileModel::dp_int8_tiles(int dst, int src1, int src2, bool src1_signed, bool src2_signed) {
  const char* op = src1_signed ? (src2_signed ? "tdpbssd" : "tdpbsud") : (src2_signed ? "tdpbusd" : "tdpbuud");
  check_dot_operands(op, dst, src1, src2);

  const int M = rows_[dst], N = colsb_[dst] / 4, K = colsb_[src1] / 4;
  auto ext = [](std::uint8_t v, bool s) -> std::uint32_t {
    return s ? std::uint32_t(std::int32_t(std::int8_t(v))) : std::uint32_t(v);
  };
  std::uint32_t c[kMaxRows][kMaxRows];
  std::memcpy(c, data_[dst], sizeof c);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      std::uint32_t acc = c[m][n];  // unsigned: the hardware's int32 sums wrap modulo 2^32
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < 4; ++i)
          acc += ext(data_[src1][m][4 * k + i], src1_signed) * ext(data_[src2][k][4 * n + i], src2_signed);
      c[m][n] = acc;
    }
  put_result(dst, c, M, N);
}

}  // namespace bf16x::engine::amx
