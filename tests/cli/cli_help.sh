#!/usr/bin/env bash
# `bf16x --help` lists every subcommand, and each subcommand's --help shows the default of every option that takes
# a value: CLI11's "=VALUE" after the type (main.cpp captures the defaults), or "(default: ...)" in the description
# where there is no value to show (an output file that is not written unless given). Flags are off unless given.
# Usage: cli_help.sh BF16X_CLI
set -uo pipefail
cli=$1
fail=0
top=$("$cli" --help) || { echo "FAIL: bf16x --help exits $?"; exit 1; }
commands=$(awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' <<< "$top")
[ -n "$commands" ] || { echo "FAIL: bf16x --help lists no subcommands"; exit 1; }
for cmd in $commands; do
  help=$("$cli" "$cmd" --help) || { echo "FAIL: bf16x $cmd --help exits $?"; fail=1; continue; }
  # One record per option: its line and, when the description is on the next line, that too.
  missing=$(awk '
    function check() { if (opt != "" && opt !~ /^--help/ && typed && !has_default) print opt }
    /^  -/ { check(); line = $0; sub(/^  (-h,)?/, "", line); opt = line;
             spec = line; sub(/  +[^ ].*$/, "", spec);  # name, type and default, before the description column
             typed = line ~ /^--[a-z0-9-]+ [A-Z]/; has_default = spec ~ /=/ || line ~ /\(default:/;
             next }
    /^    / { if ($0 ~ /\(default:/) has_default = 1 }
    END { check() }' <<< "$help")
  if [ -n "$missing" ]; then
    echo "FAIL bf16x $cmd --help: no default shown for:"
    echo "$missing" | sed 's/^/       /'
    fail=1
  else
    echo "ok   bf16x $cmd --help: every option with a value shows its default"
  fi
done
exit $fail
