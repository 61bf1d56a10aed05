// How the CRT loops load an operand's elements (crt/crt_loops.hpp, crt/crt_ops.hpp).
#pragma once

namespace bf16x::crt {

// How a loaded element x becomes a double (f1 f2 a power of two, applied in two exact steps): trunc(x f1 f2), the
// residues' integer operand; ceil(|x| f1 f2), the CRT bound pass's digits; or the guard's digit of the digit product,
// max(1, ceil(|x| f1 f2 kGuardDigit)) for x != 0 and 0 for x = 0 (method/guard_check.cpp).
enum class Scaled { trunc, digits, guard };
inline constexpr double kGuardDigit = 127;

}  // namespace bf16x::crt
