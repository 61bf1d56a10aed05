// A slice product A_i B_j of a scheme, and a group of them that shares one accumulator. The split layer names them
// (a scheme is an ordered list of products); the engines evaluate them.
#pragma once
#include <cstdint>

namespace bf16x::split {

struct Product {
  std::uint8_t a;  // slice index of A
  std::uint8_t b;  // slice index of B
};

struct ProductGroup {
  const Product* products;
  int count;
};

}  // namespace bf16x::split
