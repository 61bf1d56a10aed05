// The correctly rounded modes of the C API: fp64cr (dgemm) and fp32cr (sgemm), as the mode records list them.
#pragma once
#include "bf16x/bf16x.h"
#include "mode/records.hpp"

namespace bf16x {

inline bool is_cr_mode(int mode) { return mode::is(mode, mode::Method::correctly_rounded); }

}  // namespace bf16x
