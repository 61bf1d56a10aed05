#!/usr/bin/env bash
# Compiles and runs each README example between `<!-- readme-example: c -->` (or c++) and
# `<!-- readme-example: end -->`: its #include lines at file scope, the rest as the body of main, after the
# declarations the snippets assume (m, n, k; for C: A, B, C with lda, ldb, ldc; A = 1, B = 2, so C = 2k exactly).
# Usage: readme_examples.sh README CC CXX LIBBF16X WORKDIR INCLUDE_DIR...
set -euo pipefail
readme=$(realpath "$1") cc=$2 cxx=$3 lib=$(realpath "$4") work=$5
shift 5
incs=()
for d in "$@"; do incs+=(-I "$(realpath "$d")"); done
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# Snippet i of language lang: the fenced code between its markers, to snippet-<i>.<lang>.
awk '/<!-- readme-example: end -->/ { inside = 0; next }
     match($0, /<!-- readme-example: ([^ ]+)/) { split(substr($0, RSTART + 21), w, " "); lang = w[1]; ++i;
                                                  file = "snippet-" i "." lang; inside = 1; fence = 0; next }
     inside && /^```/ { fence = !fence; next }
     inside && fence { print > file }' "$readme"
count=0
for f in snippet-*; do
  lang=${f##*.}
  head=$(grep '^#include' "$f" || true)
  body=$(grep -v '^#include' "$f" || true)
  case "$lang" in
    c)
      src=$f.c compiler=$cc
      printf '%s\n' '#include <stdint.h>' '#include <stdio.h>' "$head" 'int main(void) {' \
        '  const int64_t m = 4, n = 3, k = 5, lda = m, ldb = k, ldc = m;' \
        '  double A[4 * 5], B[5 * 3], C[4 * 3];' \
        '  for (int i = 0; i < m * k; ++i) A[i] = 1;' '  for (int i = 0; i < k * n; ++i) B[i] = 2;' \
        "$body" '  return st == BF16X_OK && C[0] == 2.0 * k && C[m * n - 1] == 2.0 * k ? 0 : 1;' '}' > "$src" ;;
    c++)
      src=$f.cpp compiler=$cxx
      printf '%s\n' '#include <cstdint>' '#include <iostream>' '#include <vector>' "$head" 'int main() {' \
        '  const std::int64_t m = 4, n = 3, k = 5;' \
        "$body" '  return c[0] == 2.0 * k && c[m * n - 1] == 2.0 * k ? 0 : 1;' '}' > "$src" ;;
    *) echo "FAIL: $f: unknown language $lang"; exit 1 ;;
  esac
  "$compiler" -Wall -Wextra -Werror -o "$f.exe" "$src" "${incs[@]}" "$lib" -Wl,-rpath,"$(dirname "$lib")" ||
    { echo "FAIL: the README's $lang example does not compile:"; cat -n "$src"; exit 1; }
  "./$f.exe" 2> "$f.err" || { echo "FAIL: the README's $lang example exits $?:"; cat "$f.err"; exit 1; }
  [ ! -s "$f.err" ] || { echo "FAIL: the README's $lang example wrote to stderr:"; cat "$f.err"; exit 1; }
  echo "README $lang example: compiles and runs ($(wc -l < "$f") lines)"
  count=$((count + 1))
done
[ "$count" -ge 2 ] || { echo "FAIL: found $count README examples, want the C and the C++ one"; exit 1; }
