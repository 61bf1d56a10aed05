// The exact value of alpha * sum_l a_l b_l + beta c for finite doubles, and its rounding to nearest (ties to even)
// in FP64 or FP32, subnormals and overflow included: the correctly rounded modes' last resort (docs/numerics.md
// "Correctly rounded modes"). A fixed-point sum over 2^-3392 .. 2^3328 (every product of two doubles, times a
// double, plus a product of two doubles) in 32-bit digits held in signed 64-bit limbs, so additions carry nothing
// until 2^30 of them have been made. Only the window of limbs a sum has touched is ever written or read (limbs come
// into it zeroed): a short dot product, whose terms span a few limbs, costs those limbs and not all 210.
#pragma once
#include <cstdint>

namespace bf16x::cr {

class ExactSum {
 public:
  ExactSum() = default;
  void clear();
  void add_product(double a, double b, int shift = 0);  // += a b 2^shift; a, b finite
  // += -+2^shift sum_l a[l sa] b[l sb] (- where negate), finite; the loop of add_product without its per-call overhead.
  template <typename T>  // float or double
  void add_dot(const T* a, std::int64_t sa, const T* b, std::int64_t sb, std::int64_t k, int shift,
               bool negate = false);
  void add_scaled(const ExactSum& x, double w);  // += w x, exactly; w finite, x a sum of products of doubles
  double to_double() const;                      // RN(value) in FP64 (+0 for an exact 0, +-Inf past the largest)
  float to_float() const;                        // RN(value) in FP32, rounded once from the exact value
  template <typename T>
  T to() const {  // to_double or to_float
    if constexpr (sizeof(T) == sizeof(double))
      return to_double();
    else
      return to_float();
  }

 private:
  static constexpr int kLow = -3392;                         // the weight of bit 0 of limb 0
  static constexpr int kLimbs = 210;                         // 32 bits each: up to 2^(kLow + 32 kLimbs) = 2^3328
  void add_bits(std::uint64_t mag, int exp, bool negative);  // += -+mag 2^exp
  void carry();                                              // every limb to [0, 2^32) but the top one
  void cover(int lo, int hi);  // the window to include limbs [lo, hi), the new ones zeroed
  // The magnitude in 32-bit digits (carry() done), set in [lo_, min(kLimbs, hi_ + 1)) only, and its sign; false for
  // an exact zero.
  bool magnitude(std::uint32_t* digits, bool& negative) const;
  double round_to(int precision, int min_exp, int max_exp) const;

  std::int64_t limb_[kLimbs];  // meaningful in [lo_, hi_) only: nothing outside is read (no clearing of 1.7 KiB)
  int adds_ = 0;               // additions since the last carry
  int lo_ = kLimbs, hi_ = 0;   // limbs [lo_, hi_) may be nonzero (carries run within them and one limb above)
};

}  // namespace bf16x::cr
