#!/usr/bin/env bash
# `bf16x --help` lists every subcommand, and each subcommand's --help shows the default of every option that takes
# a value: CLI11's "=VALUE" after the type (main.cpp captures the defaults), or "(default: ...)" in the description
# where there is no value to show (an output file that is not written unless given). Flags are off unless given.
# bf16x --help ends with where the documentation is (files that exist) and every BF16X_* variable of the README's
# "Environment" table; an option that two subcommands share has the same name, type and values in both.
# Usage: cli_help.sh BF16X_CLI SOURCE_DIR
set -uo pipefail
cli=$1 src=$2
fail=0
top=$("$cli" --help) || { echo "FAIL: bf16x --help exits $?"; exit 1; }
commands=$(awk '/^Subcommands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}' <<< "$top")
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

# The documentation and the environment in the top-level help.
for doc in $(grep -oE '(README\.md|docs/[a-z_-]+\.md)' <<< "$top" | sort -u); do
  [ -f "$src/$doc" ] || { echo "FAIL bf16x --help names $doc, which does not exist"; fail=1; }
done
grep -q 'docs/performance\.md' <<< "$top" || { echo "FAIL bf16x --help names no docs/ file"; fail=1; }
vars=$(awk '/^## Environment/ {on = 1; next} on && /^## / {exit} on' "$src/README.md" | grep -oE '^\| `BF16X_[A-Z_]+`' |
  tr -d '|` ')
[ -n "$vars" ] || { echo "FAIL: no variables found in README.md \"Environment\""; fail=1; }
for v in $vars; do
  grep -qw "$v" <<< "$top" || { echo "FAIL bf16x --help does not list $v"; fail=1; }
done
echo "ok   bf16x --help names the docs and the $(wc -w <<< "$vars") BF16X_* variables of README \"Environment\""

# One spelling across subcommands: an option's type and accepted values (the help's "TYPE:{...}" or "TYPE:RANGE"
# before the default) are the same wherever it appears. digest's --threads stays 1..64 (a fixed sweep of calls);
# bench's --routine also takes the level-3 routines (accuracy's: the GEMMs only).
specs=$(for cmd in $commands; do
  "$cli" "$cmd" --help | awk -v cmd="$cmd" '/^  --/ { l = $0; sub(/^  /, "", l); sub(/  +[^ ].*$/, "", l);
    name = l; sub(/[ {].*$/, "", name); spec = l; sub(/^[^ {]*/, "", spec); sub(/=.*$/, "", spec);
    print name, cmd, spec }'
done | grep -v -e '^--threads digest ' -e '^--routine bench ')
differ=$(awk '{ s = $0; sub(/^[^ ]+ [^ ]+ ?/, "", s); if ($1 in seen && seen[$1] != s) print $1 ": " first[$1] " vs " $2;
                else if (!($1 in seen)) { seen[$1] = s; first[$1] = $2 } }' <<< "$specs")
if [ -n "$differ" ]; then
  echo "FAIL options that differ between subcommands:"; echo "$differ" | sed 's/^/       /'; fail=1
else
  echo "ok   options shared by subcommands have the same type and values: $(awk '{print $1}' <<< "$specs" |
    sort | uniq -d | tr '\n' ' ')"
fi
exit $fail
