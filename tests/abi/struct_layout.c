/* The C compiler's layout of every public struct of bf16x/bf16x.h, as JSON on stdout:
 *   {"bf16x_options": {"sizeof": 56, "alignof": 8, "fields": [{"name": "size", "offset": 0, "size": 8}, ...]}, ...}
 * tests/python/test_abi.py compares it with the Python package's ctypes structs, and its field lists with the
 * headers. Compiled as C: the layout a C caller gets is the ABI. */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>

#include "bf16x/bf16x.h"

static int first_field;

static void begin(const char* name, size_t size, size_t align, int first_struct) {
  printf("%s\n  \"%s\": {\"sizeof\": %zu, \"alignof\": %zu, \"fields\": [", first_struct ? "{" : ",", name, size,
         align);
  first_field = 1;
}

static void field(const char* name, size_t offset, size_t size) {
  printf("%s\n    {\"name\": \"%s\", \"offset\": %zu, \"size\": %zu}", first_field ? "" : ",", name, offset, size);
  first_field = 0;
}

#define BEGIN(type, first) begin(#type, sizeof(type), alignof(type), first)
#define FIELD(type, f) field(#f, offsetof(type, f), sizeof(((type*)0)->f))
#define END() printf("]}")

int main(void) {
  BEGIN(bf16x_stats, 1);
  FIELD(bf16x_stats, size);
  FIELD(bf16x_stats, mode);
  FIELD(bf16x_stats, engine);
  FIELD(bf16x_stats, tile_loads);
  FIELD(bf16x_stats, tile_stores);
  FIELD(bf16x_stats, dot_products);
  FIELD(bf16x_stats, micro_tiles);
  FIELD(bf16x_stats, seconds_split);
  FIELD(bf16x_stats, seconds_compute);
  FIELD(bf16x_stats, workspace_bytes);
  FIELD(bf16x_stats, entries_repaired);
  FIELD(bf16x_stats, seconds_guard);
  FIELD(bf16x_stats, guard);
  FIELD(bf16x_stats, seconds_scan);
  FIELD(bf16x_stats, seconds_pack);
  FIELD(bf16x_stats, seconds_products);
  FIELD(bf16x_stats, seconds_write);
  FIELD(bf16x_stats, bytes_scan);
  FIELD(bf16x_stats, bytes_pack);
  FIELD(bf16x_stats, bytes_write);
  FIELD(bf16x_stats, seconds_sums);
  END();

  BEGIN(bf16x_options, 0);
  FIELD(bf16x_options, size);
  FIELD(bf16x_options, mode);
  FIELD(bf16x_options, engine);
  FIELD(bf16x_options, split);
  FIELD(bf16x_options, fuse_diagonals);
  FIELD(bf16x_options, block_k);
  FIELD(bf16x_options, auto_target);
  FIELD(bf16x_options, stats);
  FIELD(bf16x_options, complex_method);
  FIELD(bf16x_options, guard);
  END();

  BEGIN(bf16x_complex_float, 0);
  FIELD(bf16x_complex_float, re);
  FIELD(bf16x_complex_float, im);
  END();

  BEGIN(bf16x_complex_double, 0);
  FIELD(bf16x_complex_double, re);
  FIELD(bf16x_complex_double, im);
  END();

  printf("\n}\n");
  return 0;
}
