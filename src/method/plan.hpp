// The plan object: everything a method needs to run one call, decided once before the method starts (the api's
// plan_call, then auto's one data-dependent step). The methods (method/table.hpp) read it and decide nothing again.
#pragma once
#include <optional>

#include "bf16x/bf16x.h"
#include "method/guard.hpp"
#include "mode/records.hpp"

namespace bf16x::method {

struct Plan {
  int status = BF16X_OK;  // a refusal: an engine of the other kind, or one this CPU cannot run, for the mode
  int requested = 0;      // the mode asked for, DEFAULT resolved (AUTO stays AUTO)
  int mode = 0;           // the mode that runs; AUTO only until auto's data step has chosen (planner/call_plan.hpp)
  mode::Method method = mode::Method::native;  // the mode record's method: the method table's row
  // The engine that runs it: the BF16 engine of a slice mode (and of auto, and the vector level of the correctly
  // rounded tile sums, engine::Record::sums), the INT8 engine of a CRT mode; -1 where none can run here.
  int engine = -1;
  bool is_double = true;
  // The method's parameters, from the call's options and the settings.
  bool scaled = true;           // slices: the scaled split (else the paper's)
  bool fuse_diagonals = false;  // slices: bf16x_options.fuse_diagonals
  int block_k = 0;              // slices and the guard: bf16x_options.block_k (0: the default)
  bool fast_scaling = false;    // crt: BF16X_CRT_SCALING=fast
  bool count = false;           // the stats' counters are wanted
  bool verbose = false;         // the verbose fields are wanted (a line, or the summary)
  int threads = 0;              // the threads of the method's parallel regions (0: OpenMP's default)
  // native: auto's choice, whose host GEMM keeps the range of the modes it stands for (host_in_range).
  bool host_guarded = false;
  // The componentwise guard where it applies; its `host` is the call's (whether the host GEMM takes its sizes).
  std::optional<GuardRequest> guard;
  char reason[96] = "";  // the verbose fields of the decision, where `verbose` (",auto=cost_model", auto's fill)
  // Whether the phases' seconds are wanted: only the stats report them (a verbose line and the summary take the
  // call's seconds, api::call_timed), so no phase clock is read otherwise (two reads a tile in fp64cr).
  bool timed() const { return count; }
};

}  // namespace bf16x::method
