#!/usr/bin/env bash
# fp64cr Cholesky and LU through the reference LAPACK: dpotrf_ (n = 400) and dgetrf_ (n = 360) of the liblapack.so.3
# bf16x-run preloads, whose blocked steps call dsyrk_, dtrsm_ and dgemm_ of the shim, give the same bits at 1, 2, 3
# and 4 bf16x threads (BF16X_NUM_THREADS) on every engine BF16X_ENGINE names (fp64cr runs no BF16 or INT8 engine, but
# the engine picks its tile-sum kernels: avx512 on the AVX-512 engines, avx2 on avx2, generic on reference;
# docs/numerics.md, "Correctly rounded modes"); every call ran in fp64cr with the threads and kernels asked for; and
# the factors' residuals are at native's level (lapack_fp64cr.py).
# Usage: lapack_fp64cr.sh BF16X_RUN WORKDIR
set -euo pipefail
run=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
"$py" -c 'import numpy' || { echo "lapack_fp64cr.sh: $py has no numpy (scripts/deps installs python3-numpy)"; exit 1; }
mkdir -p "$work" && cd "$work"
export OPENBLAS_NUM_THREADS=1
"$py" "$here/lapack_fp64cr.py" inputs in.npz
"$run" --mode native "$py" "$here/lapack_fp64cr.py" compute in.npz native.npz > native.out
echo "native (reference LAPACK on the host BLAS): $(cat native.out)"

fail=0 first= want=
for engine in auto avx512bf16 avx2 reference amx-model; do
  for threads in 1 2 3 4; do
    name=cr_${engine}_$threads
    rm -f "$name.log"  # the verbose file is appended to: a rerun in the same work dir starts it anew
    env BF16X_ENGINE=$engine BF16X_NUM_THREADS=$threads BF16X_VERBOSE=all BF16X_VERBOSE_OUTPUT_FILE="$PWD/$name.log" \
      "$run" --mode fp64cr "$py" "$here/lapack_fp64cr.py" compute in.npz "$name.npz" > "$name.out" 2> "$name.err" ||
      { echo "FAIL $name: the run failed"; cat "$name.err"; fail=1; continue; }
    got=$(cat "$name.out")
    [ -n "$first" ] || { first=$name want=$got; }
    # The kernels the fp64cr calls ran (fp64cr's dgemm lines name them), and the calls that ran another mode or
    # thread count: none.
    kernels=$(grep -oE 'kernels=[a-z0-9]+' "$name.log" | sort -u | tr '\n' ' ')
    other=$(grep -E '^BF16X_VERBOSE,d(gemm|syrk|trsm),' "$name.log" | grep -vcE "mode=fp64cr,.*threads=$threads," || true)
    routines=$(grep -E '^BF16X_SUMMARY,routine=d(gemm|syrk|trsm),mode=fp64cr,' "$name.log" |
      sed -E 's/.*routine=([a-z]+),.*calls=([0-9]+).*/\1:\2/' | sort | tr '\n' ' ')
    status=ok
    [ "$got" = "$want" ] || status=FAIL
    [ "$other" -eq 0 ] || status=FAIL
    [ "$(echo "$routines" | wc -w)" -eq 3 ] || status=FAIL  # dgemm, dsyrk and dtrsm all ran in fp64cr
    case $engine in
      avx2) grep -qw avx2 /proc/cpuinfo && { [ "$kernels" = "kernels=avx2 " ] || status=FAIL; } ;;
      reference) [ "$kernels" = "kernels=generic " ] || status=FAIL ;;
    esac
    echo "$status $engine, $threads threads: $got; ${kernels}calls in fp64cr: $routines(other: $other)"
    [ $status = ok ] || fail=1
  done
done
echo "every run gave the bits of $first: $([ $fail = 0 ] && echo yes || echo no)"
"$py" "$here/lapack_fp64cr.py" verify native.npz "$first.npz" || fail=1
exit $fail
