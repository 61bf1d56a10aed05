// Input classes of the accuracy study (docs/accuracy.md): uniform [-1,1] (paper Table 4); log-uniform magnitudes
// with random signs, entries spread elementwise over 2^-emax .. 2^emax (default 2^-60 .. 2^60, where the
// fixed-point split loses the small entries' low bits); and cancellation-heavy products, |AB| about 5e-6 of
// |A||B| at k = 256; and GEMMul8's phi class, entries (U - 0.5) exp(phi N(0,1)) with U uniform in [0, 1) and
// N(0,1) standard normal (phi = 0.5, 1, 2, 3: ever wider exponent spread within rows and columns).
#pragma once
#include <cstdint>
#include <string>

#include "check/exact_gemm.hpp"

namespace bf16x::check {

enum class Dist { uniform, loguniform, cancel, phi };

bool parse_dist(const std::string& s, Dist& d);
const char* dist_name(Dist d);

// Deterministic for (dist, seed, which): `which` distinguishes A (0) from B (1). For loguniform, magnitudes are
// 2^u with u uniform in [-emax, emax]; for phi, `phi` is the spread.
template <typename T>
Mat<T> make_input(Dist d, std::int64_t rows, std::int64_t cols, std::uint64_t seed, int which, int emax = 60,
                  double phi = 0.5);

}  // namespace bf16x::check
