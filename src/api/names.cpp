// Names of modes, engines and statuses for the C API, the CLI and verbose output.
#include "api/names.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "bf16x/bf16x.h"
#include "cr/cr_mode.hpp"
#include "crt/crt_mode.hpp"
#include "engine/records.hpp"
#include "split/scheme.hpp"

namespace {

struct Named {
  int id;
  const char* name;
};

constexpr Named kModes[] = {{BF16X_MODE_DEFAULT, "default"}, {BF16X_MODE_NATIVE, "native"},
                            {BF16X_MODE_FP32X6, "fp32x6"},   {BF16X_MODE_FP64X6, "fp64x6"},
                            {BF16X_MODE_FP64X10, "fp64x10"}, {BF16X_MODE_FP64X15, "fp64x15"},
                            {BF16X_MODE_FP64X21, "fp64x21"}, {BF16X_MODE_AUTO, "auto"},
                            {BF16X_MODE_FP64CR, "fp64cr"},   {BF16X_MODE_FP32CR, "fp32cr"}};

// "fp64c8" .. "fp64c20", "fp32c5" .. "fp32c10".
struct CrtNames {
  char fp64[BF16X_FP64C_MAX + 1][8] = {};
  char fp32[BF16X_FP32C_MAX + 1][8] = {};
  CrtNames() {
    for (int n = BF16X_FP64C_MIN; n <= BF16X_FP64C_MAX; ++n) std::snprintf(fp64[n], sizeof fp64[n], "fp64c%d", n);
    for (int n = BF16X_FP32C_MIN; n <= BF16X_FP32C_MAX; ++n) std::snprintf(fp32[n], sizeof fp32[n], "fp32c%d", n);
  }
};
const CrtNames& crt_names() {
  static const CrtNames names;
  return names;
}
int crt_mode_from_name(const char* name) {
  const bool d = std::strncmp(name, "fp64c", 5) == 0, s = std::strncmp(name, "fp32c", 5) == 0;
  if (!d && !s) return -1;
  const char* digits = name + 5;
  if (digits[0] < '1' || digits[0] > '9' || std::strlen(digits) > 2) return -1;
  char* end = nullptr;
  const long n = std::strtol(digits, &end, 10);
  if (*end != '\0') return -1;
  const int mode = int(n) + (d ? BF16X_MODE_FP64C_BASE : BF16X_MODE_FP32C_BASE);
  return bf16x::crt::is_crt_mode(mode) ? mode : -1;
}

template <std::size_t N>
const char* name_of(const Named (&t)[N], int id) {
  for (const Named& x : t)
    if (x.id == id) return x.name;
  return nullptr;
}
template <std::size_t N>
int id_of(const Named (&t)[N], const char* name) {
  if (!name) return -1;
  for (const Named& x : t)
    if (std::strcmp(x.name, name) == 0) return x.id;
  return -1;
}

}  // namespace

namespace bf16x::api {

namespace {

// The engine records in id order (the table itself is in auto's order), those with `side`.
template <typename Side>
std::vector<std::string> engine_names_by_id(Side side) {
  std::vector<const engine::Record*> rows;
  for (const engine::Record& r : engine::records())
    if (side(r)) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(), [](const engine::Record* x, const engine::Record* y) { return x->id < y->id; });
  std::vector<std::string> v;
  for (const engine::Record* r : rows) v.emplace_back(r->name);
  return v;
}

}  // namespace

std::vector<std::string> engine_name_list() {
  return engine_names_by_id([](const engine::Record&) { return true; });
}

std::vector<std::string> bf16_engine_choices() {
  std::vector<std::string> v{"auto"};
  for (std::string& n : engine_names_by_id([](const engine::Record& r) { return r.bf16.kernel != nullptr; }))
    v.push_back(std::move(n));
  return v;
}

std::vector<std::string> int8_engine_choices() {
  return engine_names_by_id([](const engine::Record& r) { return r.int8.kernel != nullptr; });
}

std::vector<std::string> bf16_mode_names() {
  std::vector<std::string> v;
  for (const Named& m : kModes)
    if (bf16x::split::scheme_for_mode(m.id)) v.emplace_back(m.name);
  return v;
}

bool mode_fits(int mode, bool is_double) {
  if (mode == BF16X_MODE_DEFAULT || mode == BF16X_MODE_NATIVE || mode == BF16X_MODE_AUTO) return true;
  if (crt::is_crt_mode(mode)) return crt::is_fp64c(mode) == is_double;
  if (is_cr_mode(mode)) return (mode == BF16X_MODE_FP64CR) == is_double;
  return is_double ? (mode >= BF16X_MODE_FP64X6 && mode <= BF16X_MODE_FP64X21) : mode == BF16X_MODE_FP32X6;
}

std::string engine_names() {
  std::string s;
  for (const std::string& n : engine_name_list()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace bf16x::api

extern "C" {

const char* bf16x_mode_name(int mode) {
  if (bf16x::crt::is_fp64c(mode)) return crt_names().fp64[bf16x::crt::crt_moduli(mode)];
  if (bf16x::crt::is_fp32c(mode)) return crt_names().fp32[bf16x::crt::crt_moduli(mode)];
  return name_of(kModes, mode);
}
int bf16x_mode_from_name(const char* name) {
  const int id = id_of(kModes, name);
  return id >= 0 || !name ? id : crt_mode_from_name(name);
}
const char* bf16x_engine_name(int engine) {
  if (engine == BF16X_ENGINE_AUTO) return "auto";
  const bf16x::engine::Record* r = bf16x::engine::record(engine);
  return r ? r->name : nullptr;
}
int bf16x_engine_from_name(const char* name) {
  if (!name) return -1;
  if (std::strcmp(name, "auto") == 0) return BF16X_ENGINE_AUTO;
  for (const bf16x::engine::Record& r : bf16x::engine::records())
    if (std::strcmp(r.name, name) == 0) return r.id;
  return -1;
}
int bf16x_engine_available(int engine) {
  // An engine with a BF16 side is available when that runs here; an INT8-only one when its INT8 side does.
  if (bf16x::engine::engine_info(engine)) return bf16x::engine::engine_usable(engine) ? 1 : 0;
  return bf16x::engine::int8_usable(engine) ? 1 : 0;
}

const char* bf16x_status_string(int status) {
  switch (status) {
    case BF16X_OK:
      return "ok";
    case BF16X_ERR_LAYOUT:
      return "invalid layout (argument 1)";
    case BF16X_ERR_TRANS_A:
      return "invalid transa (argument 2)";
    case BF16X_ERR_TRANS_B:
      return "invalid transb (argument 3)";
    case BF16X_ERR_M:
      return "m < 0 (argument 4)";
    case BF16X_ERR_N:
      return "n < 0 (argument 5)";
    case BF16X_ERR_K:
      return "k < 0 (argument 6)";
    case BF16X_ERR_LDA:
      return "lda too small (argument 9)";
    case BF16X_ERR_LDB:
      return "ldb too small (argument 11)";
    case BF16X_ERR_LDC:
      return "ldc too small (argument 14)";
    case BF16X_ERR_NULL:
      return "NULL matrix pointer";
    case BF16X_ERR_MODE:
      return "mode not valid for this routine";
    case BF16X_ERR_ENGINE:
      return "requested engine not available on this CPU";
    case BF16X_ERR_SIZE:
      return "matrix size overflows 64-bit indexing";
    case BF16X_ERR_NOMEM:
      return "workspace allocation failed";
    case BF16X_ERR_OPTIONS:
      return "invalid option value";
    case BF16X_ERR_ENGINE_KIND:
      return "engine does not run this mode (BF16 engine for a CRT mode, or INT8 engine for a slice mode)";
    case BF16X_ERR_NO_HOST:
      return "no host BLAS found (set BF16X_HOST_BLAS to a CBLAS library)";
    default:
      return "unknown status";
  }
}

}  // extern "C"
