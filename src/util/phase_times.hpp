// The phases of one call (bf16x_stats version 3, docs/performance.md "Phases"): seconds as the first thread of the
// team spent them, and the bytes each O(n^2) phase moves to or from memory (operands, packed panels, C, the CRT's
// int32 accumulator blocks), for comparison with the memory bandwidth.
#pragma once
#include <cstdint>

#include "util/clock.hpp"

namespace bf16x::util {

struct PhaseTimes {
  double scan = 0;      // exponents, NaN/Inf, the CRT's scaling bound (its digit products excepted)
  double pack = 0;      // split or residues of A and B, and their packing
  double products = 0;  // the engine's products with their exact sums (FP64 widening, modular reductions)
  double write = 0;     // reconstruction and the write of C
  double sums = 0;      // inside products: the exact sums of the engine's results, done outside the engine
  std::uint64_t bytes_scan = 0, bytes_pack = 0, bytes_write = 0;

  void add(const PhaseTimes& o) {
    scan += o.scan, pack += o.pack, products += o.products, write += o.write, sums += o.sums;
    bytes_scan += o.bytes_scan, bytes_pack += o.bytes_pack, bytes_write += o.bytes_write;
  }
};

// Time since the last lap, added to one phase: `on` only in the thread whose phases are reported.
class PhaseClock {
 public:
  explicit PhaseClock(bool on) : on_(on), last_(on ? now() : 0) {}
  void lap(double& phase) {
    if (!on_) return;
    const double t = now();
    phase += t - last_;
    last_ = t;
  }
  // The same time added to a phase and to `part`, a share of it reported besides (PhaseTimes::sums in products).
  void lap(double& phase, double& part) {
    const double before = phase;
    lap(phase);
    part += phase - before;
  }

 private:
  bool on_;
  double last_;
};

}  // namespace bf16x::util
