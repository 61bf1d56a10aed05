#!/usr/bin/env bash
# The library's layers (src/CMakeLists.txt) each compile against an include root that holds only their own and the
# lower layers' directories. For each layer: a header of its own layer or one below compiles, a header of a layer
# above does not. Usage: upward_include.sh CXX LAYERS_DIR PUBLIC_INCLUDE BUILD_INCLUDE
set -uo pipefail
cxx=$1 layers=$2 inc=$3 binc=$4
fail=0
try() {  # try LAYER HEADER WANT(ok|fails)
  local out
  out=$(printf '#include "%s"\n' "$2" | "$cxx" -std=c++20 -fsyntax-only -fopenmp -I"$layers/$1" -I"$inc" -I"$binc" -x c++ - 2>&1)
  local rc=$?
  if { [ "$3" = ok ] && [ $rc -eq 0 ]; } || { [ "$3" = fails ] && [ $rc -ne 0 ] && grep -q "No such file" <<< "$out"; }; then
    echo "ok   layer $1: #include \"$2\" $3"
  else
    echo "FAIL layer $1: #include \"$2\" should be $3 (rc $rc)"; echo "$out" | head -3; fail=1
  fi
}
try mode mode/records.hpp ok
try mode util/pow2.hpp fails
try crt mode/records.hpp ok
try split split/scheme.hpp ok
try split pack/layout.hpp fails
try pack split/slice_fp64.hpp ok
try pack engine/engine.hpp fails
try engine pack/panels.hpp ok
try engine driver/block_loop.hpp fails
try engine settings/env.hpp fails
try driver engine/engine.hpp ok
try driver policy/error_model.hpp fails
try driver settings/env.hpp fails
try crt engine/engine.hpp ok
try crt driver/gemm_driver.hpp fails
try policy driver/gemm_driver.hpp ok
try policy planner/mode_policy.hpp fails
try method policy/guard.hpp ok
try method cr/cr_driver.hpp ok
try method planner/call_plan.hpp fails
try policy method/plan.hpp fails
try api method/table.hpp ok
try settings mode/records.hpp ok
try settings report/verbose.hpp fails
try report settings/env.hpp ok
try report planner/call_plan.hpp fails
try planner method/plan.hpp ok
try planner api/checks.hpp fails
try api policy/cost_model.hpp ok
try api blas/dispatch.hpp fails
try complex util/pow2.hpp ok
try complex api/real_gemm.hpp fails
try complex engine/engine.hpp fails
try api complex/complex_gemm.hpp ok
exit $fail
