#!/usr/bin/env bash
# The two ways to install the bf16x Python package, each then imported by Debian's python in a fresh process:
#   cmake --install into a prefix: the package finds the installed libbf16x from its own place (no environment);
#   pip install --no-build-isolation (offline, Debian's setuptools) of a copy of python/: libbf16x via BF16X_LIBRARY.
# Usage: install.sh PYTHON_SOURCE_DIR BUILD_DIR WORKDIR
set -euo pipefail
src=$(realpath "$1") build=$(realpath "$2") work=$3
py=/usr/bin/python3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
work=$(pwd)
unset BF16X_LIBRARY PYTHONPATH LD_PRELOAD LD_LIBRARY_PATH

# Small integers are exact in every FP64 mode: [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50].
check='
import os, sys, numpy as np, bf16x
c = bf16x.dgemm(np.array([[1., 2.], [3., 4.]]), np.array([[5., 6.], [7., 8.]]), mode="fp64x21")
lib = bf16x._lib.library()._name
assert np.array_equal(c, [[19, 22], [43, 50]]), c
assert bf16x.version() == bf16x.__version__
print(f"{sys.argv[1]}: bf16x {bf16x.version()} from {os.path.dirname(bf16x.__file__)}, library {lib}: C = {c.tolist()}")
assert os.path.realpath(lib).startswith(sys.argv[2]), (lib, sys.argv[2])
'

cmake --install "$build" --prefix "$work/prefix" > install.log
pkg=$(dirname "$(find "$work/prefix" -path '*/bf16x/__init__.py')")
echo "cmake --install: package at ${pkg#"$work"/}"
# Moved prefix: the library is found relative to the package, so the copy works as well as the original.
mv "$work/prefix" "$work/moved"
PYTHONPATH=$(dirname "$work/moved${pkg#"$work/prefix"}") "$py" -c "$check" "cmake --install (moved prefix)" "$work/moved"

cp -r "$src" "$work/python-src"
"$py" -m pip install --no-build-isolation --no-deps --no-index --disable-pip-version-check --root-user-action=ignore \
  --target "$work/pip-site" "$work/python-src" > pip.log 2>&1 || { cat pip.log; exit 1; }
echo "pip install --no-build-isolation: $(grep -m1 'Successfully installed' pip.log)"
BF16X_LIBRARY=$build/src/libbf16x.so PYTHONPATH=$work/pip-site "$py" -c "$check" "pip install" "$build"
