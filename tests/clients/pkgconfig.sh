#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds a C program against it with
# `pkg-config --cflags --libs bf16x`, and a CMake project with find_package(bf16x) linking bf16x::bf16x and
# bf16x::blas; both run. Usage: pkgconfig.sh BUILD_DIR WORKDIR
set -euo pipefail
build=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cmake --install "$build" --prefix "$work/prefix" > install.log
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
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
