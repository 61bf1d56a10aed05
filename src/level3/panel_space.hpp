// Scratch memory of the level-3 layer's packed panels: every element is written before it is read, so it needs no
// zero fill (which on a 2048 x 4096 panel costs as much as packing it), and it is kept by the calling thread between
// calls (fresh pages fault in at a tenth of a GEMM's time on a virtual machine).
#pragma once
#include <cstddef>
#include <new>

#include "util/workspace.hpp"

namespace bf16x::level3 {

// The packed panels of TRMM, TRSM, SYMM and HEMM (and TRMM's outputs): the calling thread's, as the GEMM's workspace
// is, and released after a call above its bound as that is. One routine uses it at a time (none of them calls
// another). get throws std::bad_alloc where the room cannot be had.
class PanelSpace {
 public:
  PanelSpace() : kept_(space()) {}
  ~PanelSpace() { kept_.release_if_large(); }
  PanelSpace(const PanelSpace&) = delete;
  PanelSpace& operator=(const PanelSpace&) = delete;
  // Room for count elements of E (count * sizeof(E) checked for overflow); a later get may move it.
  template <typename E>
  E* get(std::size_t count) {
    std::size_t bytes;
    if (__builtin_mul_overflow(count, sizeof(E), &bytes)) throw std::bad_alloc();
    void* p = kept_.reserve(bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<E*>(p);
  }

 private:
  static util::Workspace& space() {
    thread_local util::Workspace kept;
    return kept;
  }
  util::Workspace& kept_;
};

}  // namespace bf16x::level3
