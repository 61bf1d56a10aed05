#!/usr/bin/env python3
"""Fails on an include cycle in the library: a header that includes itself through others, or two units (a .hpp
with its .cpp) that include each other's headers. Usage: unit_cycles.py SRC_DIR"""
import os
import re
import sys

src = sys.argv[1]
includes = {}
for root, _, files in os.walk(src):
    for name in files:
        if name.endswith((".hpp", ".cpp")):
            path = os.path.relpath(os.path.join(root, name), src)
            with open(os.path.join(src, path)) as f:
                found = re.findall(r'#include "([^"]+)"', f.read())
            includes[path] = [h for h in found if os.path.exists(os.path.join(src, h))]


def unit(path):
    return path.rsplit(".", 1)[0]


# Unit graph: unit -> units whose headers it includes.
graph = {}
for path, headers in includes.items():
    graph.setdefault(unit(path), set()).update(unit(h) for h in headers if unit(h) != unit(path))

cycles = []
state = {}


def visit(u, stack):
    state[u] = 1
    for v in sorted(graph.get(u, ())):
        if state.get(v) == 1:
            cycles.append(stack[stack.index(v):] + [v])
        elif v not in state:
            visit(v, stack + [v])
    state[u] = 2


for u in sorted(graph):
    if u not in state:
        visit(u, [u])
for c in cycles:
    print("include cycle: " + " -> ".join(c))
print(f"{len(graph)} units, {len(cycles)} include cycles")
sys.exit(1 if cycles else 0)
