// What a driver call reports (driver::gemm_emulated for the slice modes, crt::gemm_crt for the CRT modes, one
// status for both). C is written only when it is ok; the layer above maps the rest to a bf16x_status.
#pragma once

namespace bf16x::util {

enum class DriverStatus {
  ok,
  nonfinite_input,     // NaN or Inf in op(A) or op(B): nothing written, the caller routes the call to the host GEMM
  no_memory,           // the workspace could not be reserved: nothing written
  wrong_precision,     // a scheme of the other precision than the data (a caller's bug): nothing written
  engine_unavailable,  // the engine's run-time check fails here (the engine records never choose it so): nothing
                       // written
};

}  // namespace bf16x::util
