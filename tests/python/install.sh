#!/usr/bin/env bash
# The documented ways to install the bf16x Python package (docs/python.md, Install), each then imported in a fresh
# process with no PYTHONPATH, BF16X_LIBRARY or LD_LIBRARY_PATH:
#   cmake --install (default prefix /usr/local): the package lands in the directory Debian's python3 searches there,
#     checked for real in a private mount namespace with the install bound over /usr/local (where unshare can),
#     and with the path compared against python3's sys.path always; the prefix can be moved;
#   cmake --install --prefix "$VIRTUAL_ENV": the venv's python imports it;
#   pip install --no-build-isolation ./python in a venv (offline, Debian's setuptools): libbf16x via BF16X_LIBRARY;
#     the source tree is left as it was (built out of tree).
# Usage: install.sh PYTHON_SOURCE_DIR BUILD_DIR WORKDIR
set -euo pipefail
src=$(realpath "$1") build=$(realpath "$2") work=$3
py=/usr/bin/python3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
work=$(pwd)
unset BF16X_LIBRARY PYTHONPATH LD_PRELOAD LD_LIBRARY_PATH VIRTUAL_ENV PYTHONHOME

# Small integers are exact in every FP64 mode: [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50]. argv: what, where the
# package and the library must come from.
check='
import os, sys, numpy as np, bf16x
c = bf16x.dgemm(np.array([[1., 2.], [3., 4.]]), np.array([[5., 6.], [7., 8.]]), mode="fp64x21")
lib = os.path.realpath(bf16x._lib.library()._name)
assert np.array_equal(c, [[19, 22], [43, 50]]), c
assert bf16x.version() == bf16x.__version__
print(f"{sys.argv[1]}: bf16x {bf16x.version()} from {os.path.dirname(bf16x.__file__)}, library {lib}: C = {c.tolist()}")
assert os.path.realpath(bf16x.__file__).startswith(sys.argv[2]), (bf16x.__file__, sys.argv[2])
assert lib.startswith(sys.argv[3]), (lib, sys.argv[3])
'

# cmake --install as for /usr/local, into a scratch prefix.
cmake --install "$build" --prefix "$work/usr-local" > install.log
pkg=$(dirname "$(find "$work/usr-local" -path '*/bf16x/__init__.py')")
rel=${pkg#"$work/usr-local/"}
echo "cmake --install: package at <prefix>/$rel"
"$py" -c 'import sys; d = sys.argv[1]; assert d in sys.path, f"{d} is not on sys.path {sys.path}"' \
  "/usr/local/$(dirname "$rel")"
echo "cmake --install: /usr/local/$(dirname "$rel") is on $py's sys.path"
if unshare --mount true 2> /dev/null; then
  unshare --mount bash -c 'mount --bind "$1" /usr/local && shift && cd / && exec "$@"' _ "$work/usr-local" \
    "$py" -c "$check" "cmake --install (prefix /usr/local, no environment)" /usr/local/ /usr/local/
else
  echo "cmake --install: no mount namespace here (unshare); the sys.path check above stands for the import"
fi
# A moved prefix: the library is found relative to the package, so the copy works as well as the original.
mv "$work/usr-local" "$work/moved"
PYTHONPATH=$(dirname "$work/moved/$rel") "$py" -c "$check" "cmake --install (moved prefix)" "$work/moved/" \
  "$work/moved/"

# A venv (Debian's numpy through --system-site-packages): cmake --install --prefix "$VIRTUAL_ENV".
"$py" -m venv --without-pip --system-site-packages "$work/venv"
cmake --install "$build" --prefix "$work/venv" > install-venv.log
"$work/venv/bin/python" -c "$check" "cmake --install --prefix \$VIRTUAL_ENV" "$work/venv/lib/" "$work/venv/lib/"

# pip in a venv (its pip is Debian's, from the system site): the package only; the library from BF16X_LIBRARY.
"$py" -m venv --without-pip --system-site-packages "$work/venv-pip"
cp -r "$src" "$work/python-src"
# Every file of the source tree with its checksum: pip must build out of tree (python/setup.py), writing no build/,
# *.egg-info or __pycache__ there.
tree() {
  (cd "$1" && find . -print0 | sort -z |
    xargs -0 -I{} sh -c 'if [ -f "$1" ]; then md5sum "$1"; else echo "$1"; fi' _ {})
}
tree "$work/python-src" > tree-before.txt
"$work/venv-pip/bin/python" -m pip install --no-build-isolation --no-deps --no-index --disable-pip-version-check \
  --root-user-action=ignore "$work/python-src" > pip.log 2>&1 || { cat pip.log; exit 1; }
echo "pip install --no-build-isolation (venv): $(grep -m1 'Successfully installed' pip.log)"
tree "$work/python-src" > tree-after.txt
diff tree-before.txt tree-after.txt || { echo "FAIL: pip install wrote into the source tree (above)"; exit 1; }
echo "pip install: the source tree is unchanged"
BF16X_LIBRARY=$build/src/libbf16x.so "$work/venv-pip/bin/python" -c "$check" "pip install (venv)" \
  "$work/venv-pip/lib/" "$build/src/"
