#!/usr/bin/env bash
# The dynamic symbols libbf16x.so defines are exactly the functions its public C headers declare (BF16X_API in
# bf16x/bf16x.h, bf16x/bf16x_runtime.h and bf16x/level3.h): no internal C++ symbol, OpenMP critical section or
# template static for another library to bind to, and no declared function missing.
# Usage: exports.sh LIBBF16X INCLUDE_DIR
set -euo pipefail
lib=$1 inc=$2
defined=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
declared=$(cat "$inc/bf16x/bf16x.h" "$inc/bf16x/bf16x_runtime.h" "$inc/bf16x/level3.h" | grep -v "^#define" |
  tr '\n' ' ' |
  grep -oE "BF16X_API [^;(]*\\(" | grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\($' | tr -d ' (' | sort -u)
echo "libbf16x.so: $(wc -l <<< "$defined") defined dynamic symbols, $(wc -l <<< "$declared") declared functions"
fail=0
extra=$(comm -23 <(echo "$defined") <(echo "$declared"))
missing=$(comm -13 <(echo "$defined") <(echo "$declared"))
[ -z "$extra" ] || { echo "FAIL exported but not declared:"; echo "$extra" | c++filt | head -40; fail=1; }
[ -z "$missing" ] || { echo "FAIL declared but not exported:"; echo "$missing"; fail=1; }
[ "$fail" = 0 ] && echo "ok: the exports are the declared C API"
exit $fail
