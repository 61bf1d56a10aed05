#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds a C program against it with
# `pkg-config --cflags --libs bf16x`, one against the BLAS shim with `pkg-config --cflags --libs bf16x-blas`, and a
# CMake project with find_package(bf16x) linking bf16x::bf16x and bf16x::blas; all run. The prefix is given as
# <work>//prefix/./ : the .pc files must still say <work>/prefix, normalised. LICENSE and the CLI's man page are
# installed too. Usage: pkgconfig.sh BUILD_DIR WORKDIR
set -euo pipefail
build=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
work=$(pwd)
cmake --install "$build" --prefix "$work//prefix/./" > install.log
# LICENSE, and with the CLI its man page bf16x.1, which names every subcommand and option of its --help.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
cmp "$src/LICENSE" "$work/prefix/share/doc/bf16x/LICENSE" || { echo "FAIL: LICENSE not installed"; exit 1; }
cli="$build/tools/bf16x/bf16x"
if [ -x "$cli" ]; then
  man1="$work/prefix/share/man/man1/bf16x.1"
  [ -s "$man1" ] || { echo "FAIL: the man page $man1 is not installed"; exit 1; }
  for cmd in $("$cli" --help | awk '/^Subcommands:/ {on = 1; next} on && /^$/ {exit} on {print $1}'); do
    grep -q "^\.SS bf16x $cmd\$" "$man1" || { echo "FAIL: bf16x.1 has no section for $cmd"; exit 1; }
    for opt in $("$cli" "$cmd" --help | grep -oE '^  (-h,)?--[a-z0-9-]+' | sed 's/^ *-h,//; s/^ *//'); do
      grep -qF -- "$opt" "$man1" || { echo "FAIL: bf16x.1 does not name $cmd $opt"; exit 1; }
    done
  done
  if command -v man > /dev/null; then  # it renders, without warnings
    warnings=$(MANWIDTH=100 man --warnings -l "$man1" 2>&1 > /dev/null)
    [ -z "$warnings" ] || { echo "FAIL: man bf16x.1 warns: $warnings"; exit 1; }
  fi
  echo "LICENSE and bf16x.1 (every subcommand and option of --help) installed"
else
  echo "LICENSE installed (no CLI in this build: no man page)"
fi
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
# Every path pkg-config gives for both packages: absolute, under the prefix, with no //, /./ or /../ in it.
for pc in bf16x bf16x-blas; do
  for out in "$(pkg-config --cflags --libs "$pc")" "$(pkg-config --variable=prefix "$pc")" \
             "$(pkg-config --variable=libdir "$pc")" "$(pkg-config --variable=includedir "$pc")"; do
    if [[ "$out" == *//* || "$out" == */./* || "$out" == */../* || "$out" == */. || "$out" == */.. || "$out" == */ ||
          "$out" != *"$work/prefix"* ]]; then
      echo "FAIL: pkg-config $pc gives a path that is not normalised or not under $work/prefix: '$out'"
      cat "$(pkg-config --variable=pcfiledir "$pc")/$pc.pc"
      exit 1
    fi
  done
  [ "$(pkg-config --modversion "$pc")" = "$(grep -o '"[0-9.]*"' "$work/prefix/include/bf16x/version.h" | tr -d '"')" ]
done
echo "pkg-config bf16x, bf16x-blas: normalised paths under $work/prefix"
cat > client.c <<'C'
#include <bf16x/bf16x.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
  int st = bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2,
                       BF16X_MODE_FP64X21);
  /* Small integers are exact in every FP64 mode: 1*5+3*6 = 23, 2*5+4*6 = 34, 1*7+3*8 = 31, 2*7+4*8 = 46. */
  int ok = st == BF16X_OK && c[0] == 23 && c[1] == 34 && c[2] == 31 && c[3] == 46 &&
           strcmp(bf16x_version(), BF16X_VERSION_STRING) == 0;
  printf("pkg-config client: status %d, C = [%g %g; %g %g], version %s: %s\n", st, c[0], c[2], c[1], c[3],
         bf16x_version(), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
C
flags=$(pkg-config --cflags --libs bf16x)
echo "pkg-config --cflags --libs bf16x: $flags"
[ "$(pkg-config --modversion bf16x)" = "$(grep -o '"[0-9.]*"' "$work/prefix/include/bf16x/version.h" | tr -d '"')" ]
cc -o client client.c $flags
LD_LIBRARY_PATH=$(pkg-config --variable=libdir bf16x) ./client

# The shim as a link-time BLAS: cblas_dgemm and the runtime control from libbf16x_blas.so (emulated, so no host BLAS
# runs; small integers are exact in fp64x21).
cat > blas_client.c <<'C'
#include <bf16x/bf16x.h>
#include <stdio.h>
void cblas_dgemm(int layout, int ta, int tb, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc);
int main(void) {
  double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
  int st = bf16x_set_dgemm_mode(BF16X_MODE_FP64X21);
  cblas_dgemm(102, 111, 111, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
  int ok = st == BF16X_OK && bf16x_get_dgemm_mode() == BF16X_MODE_FP64X21 && c[0] == 23 && c[1] == 34 &&
           c[2] == 31 && c[3] == 46;
  printf("pkg-config bf16x-blas client: C = [%g %g; %g %g]: %s\n", c[0], c[2], c[1], c[3], ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
C
blas_flags=$(pkg-config --cflags --libs bf16x-blas)
echo "pkg-config --cflags --libs bf16x-blas: $blas_flags"
cc -o blas_client blas_client.c $blas_flags
LD_LIBRARY_PATH=$(pkg-config --variable=libdir bf16x-blas) ./blas_client

mkdir -p cmake_client && cd cmake_client
cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(bf16x_client C)
find_package(bf16x REQUIRED)
add_executable(client ../client.c)
target_link_libraries(client PRIVATE bf16x::bf16x)
get_target_property(blas_soname bf16x::blas IMPORTED_SONAME_RELEASE)
message(STATUS "bf16x::blas SONAME ${blas_soname}")
CM
cmake -S . -B build -DCMAKE_PREFIX_PATH="$work/prefix" > cmake.log
grep -q "bf16x::blas SONAME libbf16x_blas.so.0" cmake.log || { cat cmake.log; echo "FAIL: bf16x::blas has no versioned SONAME"; exit 1; }
cmake --build build > build.log
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib/x86_64-linux-gnu" ./build/client
echo "find_package(bf16x): bf16x::bf16x and bf16x::blas (SONAME libbf16x_blas.so.0) ok"
