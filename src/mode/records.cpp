#include "mode/records.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>

#include "bf16x/bf16x.h"

namespace bf16x::mode {
namespace {

// A slice mode: `slices` BF16 slices per operand, the d (d + 1) / 2 products i + j < d.
constexpr Record slice_row(Precision p, int id, const char* name, int slices, int d, Guard guard) {
  return {.id = id,
          .name = name,
          .precision = p,
          .method = Method::slices,
          .slices = slices,
          .products = d * (d + 1) / 2,
          .diagonals = d,
          .guard = guard,
          .min_size = true};
}
// FP64: 6 fixed-point slices. FP32: residual slices, whose bound is componentwise (no guard).
constexpr Record slices64(int id, const char* name, int d, Guard guard) {
  return slice_row(Precision::fp64, id, name, 6, d, guard);
}
constexpr Record slices32(int id, const char* name, int slices, int d) {
  return slice_row(Precision::fp32, id, name, slices, d, Guard::none);
}

constexpr Record crt_row(Precision p, int n, const char* name, Guard guard) {
  const int base = p == Precision::fp64 ? BF16X_MODE_FP64C_BASE : BF16X_MODE_FP32C_BASE;
  return {.id = base + n,
          .name = name,
          .precision = p,
          .method = Method::crt,
          .moduli = n,
          .guard = guard,
          .min_size = true};
}
constexpr Record crt64(int n, const char* name, Guard guard) { return crt_row(Precision::fp64, n, name, guard); }
constexpr Record crt32(int n, const char* name, Guard guard) { return crt_row(Precision::fp32, n, name, guard); }

// In bf16x_mode order (record() searches it by id). The guarded modes are those that claim DGEMM's (fp64x21,
// fp64c15..20) or SGEMM's (fp32c8..10) accuracy; fp32x6 needs no guard (its residual slices are floating point, its
// bound componentwise). README, "Modes", has the measured error of each.
constexpr Record kRecords[] = {
    {.id = BF16X_MODE_DEFAULT, .name = "default", .method = Method::process_default},
    {.id = BF16X_MODE_NATIVE, .name = "native", .method = Method::native},
    // FP32 residual split: products A1B1, A1B0, A2B0, A0B0, A0B1, A0B2 in one FP32 accumulator.
    slices32(BF16X_MODE_FP32X6, "fp32x6", 3, 3),
    // FP64 fixed-point split into 6 slices, the products i + j < d.
    slices64(BF16X_MODE_FP64X6, "fp64x6", 3, Guard::raw),
    slices64(BF16X_MODE_FP64X10, "fp64x10", 4, Guard::raw),
    slices64(BF16X_MODE_FP64X15, "fp64x15", 5, Guard::raw),
    slices64(BF16X_MODE_FP64X21, "fp64x21", 6, Guard::on),
    {.id = BF16X_MODE_AUTO, .name = "auto", .method = Method::automatic, .min_size = true},
    {.id = BF16X_MODE_FP64CR, .name = "fp64cr", .precision = Precision::fp64, .method = Method::correctly_rounded},
    {.id = BF16X_MODE_FP32CR, .name = "fp32cr", .precision = Precision::fp32, .method = Method::correctly_rounded},
    // FP32 split into 2 slices, the products A1B0, A0B0, A0B1 (i + j < 2): half of fp32x6's products, the error
    // about 2^-15 (|A||B|)_ij instead of SGEMM's; auto never picks it for an SGEMM target (policy/error_model.cpp).
    slices32(BF16X_MODE_FP32X3, "fp32x3", 2, 2),
    crt64(8, "fp64c8", Guard::raw),
    crt64(9, "fp64c9", Guard::raw),
    crt64(10, "fp64c10", Guard::raw),
    crt64(11, "fp64c11", Guard::raw),
    crt64(12, "fp64c12", Guard::raw),
    crt64(13, "fp64c13", Guard::raw),
    crt64(14, "fp64c14", Guard::raw),
    crt64(15, "fp64c15", Guard::on),
    crt64(16, "fp64c16", Guard::on),
    crt64(17, "fp64c17", Guard::on),
    crt64(18, "fp64c18", Guard::on),
    crt64(19, "fp64c19", Guard::on),
    crt64(20, "fp64c20", Guard::on),
    crt32(5, "fp32c5", Guard::raw),
    crt32(6, "fp32c6", Guard::raw),
    crt32(7, "fp32c7", Guard::raw),
    crt32(8, "fp32c8", Guard::on),
    crt32(9, "fp32c9", Guard::on),
    crt32(10, "fp32c10", Guard::on),
};
constexpr std::size_t kSize = sizeof kRecords / sizeof kRecords[0];

constexpr bool in_id_order() {
  for (std::size_t i = 1; i < kSize; ++i)
    if (kRecords[i - 1].id >= kRecords[i].id) return false;
  return true;
}
static_assert(in_id_order(), "mode records must be in bf16x_mode order");

// Each id's row, or -1: record() is on every call's path (several lookups per plan), so one load, not a search.
constexpr int kIds = 256;
static_assert(kRecords[kSize - 1].id < kIds, "mode ids must stay below kIds");
struct RowOfId {
  signed char row[kIds];
};
constexpr RowOfId row_of_id() {
  RowOfId t{};
  for (int id = 0; id < kIds; ++id) t.row[id] = -1;
  for (std::size_t i = 0; i < kSize; ++i) t.row[kRecords[i].id] = static_cast<signed char>(i);
  return t;
}
constexpr RowOfId kRowOfId = row_of_id();

}  // namespace

std::span<const Record> records() { return kRecords; }

const Record* record(int mode) {
  if (mode < 0 || mode >= kIds) return nullptr;
  const int row = kRowOfId.row[mode];
  return row < 0 ? nullptr : &kRecords[row];
}

const Record* by_name(const char* name) {
  if (!name) return nullptr;
  for (const Record& r : kRecords)
    if (std::strcmp(r.name, name) == 0) return &r;
  return nullptr;
}

bool is(int mode, Method m) {
  const Record* r = record(mode);
  return r && r->method == m;
}

bool fits(int mode, bool is_double) {
  const Record* r = record(mode);
  return r && (r->precision == Precision::both || (r->precision == Precision::fp64) == is_double);
}

bool min_size_applies(int mode) {
  const Record* r = record(mode);
  return !r || r->min_size;
}

}  // namespace bf16x::mode
