// Argument checks of the C API, in the order and with the rules of the reference CBLAS (layout, transa, transb,
// m, n, k, lda, ldb, ldc), plus NULL pointers and 64-bit size overflow.
#pragma once
#include <cstdint>

namespace bf16x::api {

struct GemmShape {
  int layout, transa, transb;
  std::int64_t m, n, k, lda, ldb, ldc;
};

// NO_TRANS, TRANS or CONJ_TRANS.
bool valid_trans(int t);

// Returns BF16X_OK or the first failing bf16x_status.
int check_gemm_args(const GemmShape& s, const void* a, const void* b, const void* c, bool alpha_zero);

// A stored matrix of the level-3 routines: rows x cols in its column-major description (a row-major layout stores
// the transpose), its leading dimension and the status for a leading dimension too small. BF16X_OK, that status, or
// BF16X_ERR_SIZE past 64-bit indexing.
struct Stored {
  std::int64_t rows, cols, ld;
  int error;
};
int check_stored(int layout, const Stored& s);

// A routine's argument checks in the order of its arguments: the status of the first that fails (the reference
// BLAS reports the leftmost bad argument); the checks after it are not made.
class FirstFailure {
 public:
  FirstFailure& operator()(bool bad, int status) {
    if (st_ == 0 && bad) st_ = status;
    return *this;
  }
  FirstFailure& stored(int layout, const Stored& s) {
    if (st_ == 0) st_ = check_stored(layout, s);
    return *this;
  }
  int status() const { return st_; }

 private:
  int st_ = 0;  // BF16X_OK
};

}  // namespace bf16x::api
