// Scratch arrays of the level-3 layer whose every element is written before it is read (packed panels, copies of
// the output): allocated without the zero fill of std::vector, which on a 2048 x 4096 panel costs as much as
// copying it, and more where its fresh pages fault in; a small one (a tiny TRMM's panel and output: LAPACK makes
// millions) in the buffer itself, without an allocation.
#pragma once
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace bf16x::level3 {

template <typename E>
class Buffer {
  static_assert(std::is_trivially_copyable_v<E>);
  static constexpr std::size_t kSmall = 512 / sizeof(E);

 public:
  explicit Buffer(std::size_t count)
      : count_(count), big_(count > kSmall ? std::make_unique_for_overwrite<E[]>(count) : nullptr) {}
  Buffer(Buffer&& o) noexcept : count_(o.count_), big_(std::move(o.big_)) {
    if (!big_ && count_) std::memcpy(small_, o.small_, count_ * sizeof(E));
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer& operator=(Buffer&&) = delete;
  E* get() const { return big_ ? big_.get() : small_; }
  E& operator[](std::size_t i) const { return get()[i]; }

 private:
  std::size_t count_;
  std::unique_ptr<E[]> big_;
  mutable E small_[kSmall];  // (not initialized: written before read; a const Buffer's elements are its to write)
};

template <typename E>
Buffer<E> make_buffer(std::size_t count) {
  return Buffer<E>(count);
}

}  // namespace bf16x::level3
