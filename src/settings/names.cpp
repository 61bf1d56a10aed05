// Names of modes, engines and statuses for the C API, the CLI and verbose output.
#include "settings/names.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "bf16x/bf16x.h"
#include "engine/records.hpp"
#include "mode/records.hpp"

namespace bf16x::settings {

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
  for (const mode::Record& m : mode::records())
    if (m.method == mode::Method::slices) v.emplace_back(m.name);
  return v;
}

bool mode_fits(int mode, bool is_double) { return mode::fits(mode, is_double); }

std::string engine_names() {
  std::string s;
  for (const std::string& n : engine_name_list()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace bf16x::settings

extern "C" {

const char* bf16x_mode_name(int mode) {
  const bf16x::mode::Record* r = bf16x::mode::record(mode);
  return r ? r->name : nullptr;
}
int bf16x_mode_from_name(const char* name) {
  const bf16x::mode::Record* r = bf16x::mode::by_name(name);
  return r ? r->id : -1;
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
    case BF16X_ERR_UPLO:
      return "invalid uplo (level 3)";
    case BF16X_ERR_SIDE:
      return "invalid side (level 3)";
    case BF16X_ERR_DIAG:
      return "invalid diag (level 3)";
    default:
      return "unknown status";
  }
}

}  // extern "C"
