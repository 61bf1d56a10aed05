// The caller's versioned structs (bf16x.h, "Versioned structs"): bf16x_options read, and bf16x_stats written, no
// further than the caller's `size` says.
#pragma once
#include "bf16x/bf16x.h"

namespace bf16x::api {

// `opt` = the defaults of bf16x_options_init, overwritten by the first min(user->size, sizeof) bytes of *user (none
// when user is NULL). BF16X_ERR_OPTIONS, and the defaults, when the options or their stats are smaller than the
// first version; opt.size is this library's sizeof.
int read_options(const bf16x_options* user, bf16x_options& opt);

// `s` (its size field aside) into the caller's stats, no further than user->size: the size field and any field
// past this library's are left as they are.
void write_stats(bf16x_stats* user, const bf16x_stats& s);

// Adds one call's counters, times and bytes to `sum` (a batch's items): the largest guard step, the mode and engine
// left as they are.
void add_stats(bf16x_stats& sum, const bf16x_stats& one);

}  // namespace bf16x::api
