#!/usr/bin/env bash
# R's parallel::mclapply (fork) under the shim: the forked workers' %*% gives the parent's bits and returns, at 1, 2
# and 4 threads (a child that inherited OpenMP's pool without its threads used to wait for them forever).
# Usage: r_fork.sh LIBBF16X_BLAS WORKDIR
set -euo pipefail
shim=$(realpath "$1") work=$2
mkdir -p "$work" && cd "$work"
command -v Rscript > /dev/null || { echo "r_fork.sh: Rscript missing (scripts/deps installs r-base-core)"; exit 1; }
cat > mclapply.R << 'R'
library(parallel)
set.seed(1)
a <- matrix(runif(9e4, -1, 1), 300)
want <- a %*% a
got <- mclapply(1:4, function(i) a %*% a, mc.cores = 2)
same <- all(vapply(got, function(g) identical(g, want), TRUE))
cat(if (same) "same bits" else "DIFFERENT", "\n")
quit(status = if (same) 0 else 1)
R
fail=0
for t in 1 2 4; do
  for mode in fp64x21 fp64c15 fp64cr; do
    : > "$work/verbose.$mode.$t"
    if out=$(OMP_NUM_THREADS=$t BF16X_DGEMM_MODE=$mode BF16X_VERBOSE=1 BF16X_VERBOSE_OUTPUT_FILE="$work/verbose.$mode.$t" \
      LD_PRELOAD="$shim" timeout 120 Rscript mclapply.R 2>&1) && grep -q "same bits" <<< "$out" &&
      grep -q "mode=$mode" "$work/verbose.$mode.$t"; then
      echo "ok   threads=$t $mode: $out"
    else
      echo "FAIL threads=$t $mode (status ${PIPESTATUS[0]:-?}): $out"
      fail=1
    fi
  done
done
exit $fail
