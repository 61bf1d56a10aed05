#!/usr/bin/env bash
# Every function bf16x/bf16x_runtime.h declares is exported by each BLAS shim (the header says the shim exports
# them all, so that a program can switch a preloaded shim): the header's BF16X_API declarations against
# `nm -D --defined-only` of the library. Usage: runtime_exports.sh RUNTIME_HEADER SHIM...
set -euo pipefail
header=$1
shift
declared=$(grep -oE 'BF16X_API[^;(]*\bbf16x_[a-z0-9_]+[[:space:]]*\(' "$header" | grep -oE 'bf16x_[a-z0-9_]+' | sort -u)
[ -n "$declared" ] || { echo "FAIL: no BF16X_API declarations found in $header"; exit 1; }
echo "$(basename "$header") declares: $(echo $declared)"
fail=0
for shim in "$@"; do
  exported=$(nm -D --defined-only "$shim" | awk '{print $NF}' | sed 's/@.*//' | sort -u)
  missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
  if [ -n "$missing" ]; then
    echo "FAIL: $(basename "$shim") does not export: $(echo $missing)"
    fail=1
  else
    echo "$(basename "$shim"): exports all $(echo "$declared" | wc -l) of them"
  fi
done
exit $fail
