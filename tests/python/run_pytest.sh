#!/usr/bin/env bash
# The bf16x Python package's pytest session, in one process with the BLAS shim preloaded, so that numpy's `@`
# goes through libbf16x_blas.so and bf16x.mode switches it. Debian's python (numpy, pytest, threadpoolctl from
# scripts/deps), not whatever python3 comes first on PATH.
# Usage: run_pytest.sh LIBBF16X_BLAS LIBBF16X WORKDIR [pytest args]
set -euo pipefail
shim=$(realpath "$1") lib=$(realpath "$2") work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
"$py" -c 'import numpy, pytest, threadpoolctl' ||
  { echo "run_pytest.sh: $py lacks numpy, pytest or threadpoolctl (scripts/deps installs them)"; exit 1; }
mkdir -p "$work"
# OpenBLAS single-threaded: native results do not depend on its work split.
export OPENBLAS_NUM_THREADS=1
export BF16X_LIBRARY=$lib
export PYTHONPATH="$here/../../python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
unset BF16X_DGEMM_MODE BF16X_SGEMM_MODE BF16X_VERBOSE BF16X_MIN_SIZE BF16X_ENGINE
cd "$work"
LD_PRELOAD="$shim" exec "$py" -m pytest -p no:cacheprovider -v --rootdir="$here" "$here" "$@"
