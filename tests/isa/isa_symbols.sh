#!/usr/bin/env bash
# isa_symbols.sh <libbf16x.so> <objects, ';'-separated>: fails on an ifunc or resolver symbol in the library, on
# a weak (COMDAT) symbol defined both by a *_isa.cpp object and by a baseline object, and on an FMADDSUB or FMSUBADD
# instruction (a contraction the compiler formed against -ffp-contract=off).
set -euo pipefail
lib=$1
IFS=';' read -r -a objects <<<"$2"
status=0
ifuncs=$(nm -D --defined-only "$lib" | awk '$2 == "i" || $3 ~ /\.resolver$/')
if [ -n "$ifuncs" ]; then
  echo "ifunc symbols in $lib:"
  echo "$ifuncs"
  status=1
fi
isa=() base=()
for o in "${objects[@]}"; do
  case "$o" in *_isa.cpp.o) isa+=("$o") ;; *) base+=("$o") ;; esac
done
[ ${#isa[@]} -gt 0 ] || { echo "no *_isa.cpp objects among the library's objects"; exit 1; }
defined() { nm --defined-only "$@" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u; }
weak_isa=$(nm --defined-only "${isa[@]}" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[WVu]$/ {print $3}' | sort -u)
shared=$(comm -12 <(echo "$weak_isa") <(defined "${base[@]}"))
if [ -n "$shared" ]; then
  echo "weak symbols defined by an ISA object and a baseline object:"
  echo "$shared" | c++filt
  status=1
fi
# -ffp-contract=off (src/CMakeLists.txt) keeps every multiply and add of the element loops apart; GCC 12's SLP
# vectorizer still formed FMADDSUB / FMSUBADD from a complex division's pattern (docs/isa.md), and no kernel writes
# them: none may appear.
fused=$(objdump -d --no-show-raw-insn "$lib" | grep -c -E '\bv?fm(addsub|subadd)' || true)
if [ "$fused" != "0" ]; then
  echo "$fused FMADDSUB/FMSUBADD instructions in $lib:"
  objdump -d --no-show-raw-insn -C "$lib" | grep -E '>:$|\bv?fm(addsub|subadd)' | grep -B1 -E 'fm(addsub|subadd)' | head -20
  status=1
fi
[ "$status" -eq 0 ] || exit 1
echo "${#isa[@]} ISA objects, ${#base[@]} baseline objects: $(echo "$weak_isa" | grep -c . || true) weak symbols in" \
  "ISA objects, none defined by a baseline object; no ifunc and no FMADDSUB/FMSUBADD in $(basename "$lib")"
