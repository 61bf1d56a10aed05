#!/usr/bin/env python3
"""The README's source tree against the build: every arrow `lower <- upper` of its layer diagram is a dependency
src/CMakeLists.txt allows (lower's directories are in upper's include root), every layer of the build is in the
diagram, and every directory under src/ has its line in the listing. Usage: readme_layers.py SOURCE_DIR"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
cmake = (root / "src" / "CMakeLists.txt").read_text()
sets = {m.group(1): m.group(2).split() for m in re.finditer(r"set\((BF16X_\w+)\s*([^)]*)\)", cmake)}
layers = sets["BF16X_LAYERS"]
dirs = {layer: sets[f"BF16X_LAYER_{layer}"] for layer in layers}
below = {layer: set(sets.get(f"BF16X_BELOW_{layer}", [])) for layer in layers}

readme = (root / "README.md").read_text()
tree = readme[readme.index("## Source tree"):]
diagram = tree[tree.index("```") + 3:]
diagram = diagram[:diagram.index("```")]
listing = tree[tree.index("include/bf16x/"):]

fail = []
seen = set()


def names(group):
    group = re.sub(r"\([^)]*\)", "", group)  # "base (src/cpu, ...)" -> "base"
    return [g.strip() for g in group.split(",") if g.strip()]


for line in diagram.strip().splitlines():
    chain = [names(g) for g in line.split("<-")]
    for lower, upper in zip(chain, chain[1:]):
        for up in upper:
            seen.add(up)
            if up not in layers:  # the shim (blas) is a library of its own above api
                continue
            for lo in lower:
                seen.add(lo)
                if lo not in layers:
                    fail.append(f"'{lo}' in the diagram is no layer of src/CMakeLists.txt")
                elif not set(dirs[lo]) <= below[up]:
                    fail.append(f"'{lo} <- {up}': {up} does not see {lo} ({' '.join(dirs[lo])}) in src/CMakeLists.txt")
for layer in layers:
    if layer not in seen:
        fail.append(f"layer '{layer}' of src/CMakeLists.txt is not in the README's diagram")
for d in sorted(p.name for p in (root / "src").iterdir() if p.is_dir()):
    if not re.search(rf"^src/{d}/ ", listing, re.M):
        fail.append(f"src/{d}/ has no line in the README's source tree")
for f in fail:
    print("FAIL", f)
print(f"{len(layers)} layers, {len(seen)} names in the diagram: {'ok' if not fail else 'mismatch'}")
sys.exit(1 if fail else 0)
