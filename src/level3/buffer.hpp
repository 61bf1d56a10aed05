// Scratch arrays of the level-3 layer whose every element is written before it is read (packed panels, copies of
// the output): allocated without the zero fill of std::vector, which on a 2048 x 4096 panel costs as much as
// copying it, and more where its fresh pages fault in.
#pragma once
#include <cstddef>
#include <memory>

namespace bf16x::level3 {

template <typename E>
using Buffer = std::unique_ptr<E[]>;

template <typename E>
Buffer<E> make_buffer(std::size_t count) {
  return std::make_unique_for_overwrite<E[]>(count);
}

}  // namespace bf16x::level3
