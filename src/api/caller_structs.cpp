#include "api/caller_structs.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bf16x::api {
namespace {

// The library's own structs start at the first version's fields; later ones only append.
static_assert(offsetof(bf16x_options, size) == 0 && offsetof(bf16x_stats, size) == 0, "size leads");
static_assert(BF16X_OPTIONS_SIZE_1 <= sizeof(bf16x_options) && BF16X_STATS_SIZE_1 <= sizeof(bf16x_stats));

// Only the size field is read before the size is known to be one the caller really has.
std::size_t size_field(const void* s) {
  std::size_t size;
  std::memcpy(&size, s, sizeof size);
  return size;
}

bf16x_options make_defaults() {
  bf16x_options o;
  std::memset(static_cast<void*>(&o), 0, sizeof o);  // padding too: init copies whole bytes into the caller's struct
  o.size = sizeof o;
  o.mode = BF16X_MODE_DEFAULT;
  o.engine = BF16X_ENGINE_AUTO;
  o.split = BF16X_SPLIT_SCALED;
  o.complex_method = BF16X_COMPLEX_DEFAULT;
  return o;
}
// Built once: every call copies them (a struct assembled on the stack and read back at once stalls the loads).
const bf16x_options& defaults() {
  static const bf16x_options d = make_defaults();
  return d;
}

}  // namespace

int read_options(const bf16x_options* user, bf16x_options& opt) {
  opt = defaults();
  if (!user) return BF16X_OK;
  const std::size_t size = size_field(user);
  if (size < BF16X_OPTIONS_SIZE_1) return BF16X_ERR_OPTIONS;
  if (size >= sizeof opt)
    opt = *user;  // a caller of this header or a later one: one fixed copy (no memcpy of a size read at run time)
  else
    std::memcpy(static_cast<void*>(&opt), user, size);
  opt.size = sizeof opt;
  if (opt.stats && size_field(opt.stats) < BF16X_STATS_SIZE_1) {
    opt = defaults();
    return BF16X_ERR_OPTIONS;
  }
  return BF16X_OK;
}

void write_stats(bf16x_stats* user, const bf16x_stats& s) {
  const std::size_t from = offsetof(bf16x_stats, mode);
  const std::size_t to = std::min(size_field(user), sizeof s);
  if (to > from) std::memcpy(reinterpret_cast<char*>(user) + from, reinterpret_cast<const char*>(&s) + from, to - from);
}

void add_stats(bf16x_stats& sum, const bf16x_stats& one) {
  constexpr std::uint64_t bf16x_stats::*counts[] = {
      &bf16x_stats::tile_loads,  &bf16x_stats::tile_stores,     &bf16x_stats::dot_products,
      &bf16x_stats::micro_tiles, &bf16x_stats::workspace_bytes, &bf16x_stats::entries_repaired,
      &bf16x_stats::bytes_scan,  &bf16x_stats::bytes_pack,      &bf16x_stats::bytes_write};
  constexpr double bf16x_stats::*seconds[] = {&bf16x_stats::seconds_split, &bf16x_stats::seconds_compute,
                                              &bf16x_stats::seconds_guard, &bf16x_stats::seconds_scan,
                                              &bf16x_stats::seconds_pack,  &bf16x_stats::seconds_products,
                                              &bf16x_stats::seconds_write, &bf16x_stats::seconds_sums};
  for (auto f : counts) sum.*f += one.*f;
  for (auto f : seconds) sum.*f += one.*f;
  sum.guard = std::max(sum.guard, one.guard);
}

}  // namespace bf16x::api

extern "C" {

int bf16x_options_init_sized(bf16x_options* opt, size_t size) {
  if (!opt) return BF16X_ERR_NULL;
  if (size < BF16X_OPTIONS_SIZE_1) return BF16X_ERR_OPTIONS;
  bf16x_options d = bf16x::api::defaults();
  d.size = size;
  std::memcpy(opt, &d, std::min(size, sizeof d));
  if (size > sizeof d) std::memset(reinterpret_cast<char*>(opt) + sizeof d, 0, size - sizeof d);  // later fields: 0
  return BF16X_OK;
}

int bf16x_stats_init_sized(bf16x_stats* stats, size_t size) {
  if (!stats) return BF16X_ERR_NULL;
  if (size < BF16X_STATS_SIZE_1) return BF16X_ERR_OPTIONS;
  std::memset(static_cast<void*>(stats), 0, size);
  std::memcpy(static_cast<void*>(stats), &size, sizeof size);
  return BF16X_OK;
}

}  // extern "C"
