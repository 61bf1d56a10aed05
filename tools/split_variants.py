#!/usr/bin/env python3
"""Compares FP64 slice extractions for the fp64x{6,10,15,21} schemes (docs/numerics.md, "Which extraction").

Each variant splits every row of A (column of B) on a fixed-point grid below the row's scale 2^E:
slice 0 on the grid 2^(E-first), then each next grid 2^step finer; digits are rounded to nearest (rn) or
truncated (trunc). Slice products are exact integers on their grid (|digit| <= 2^8), so numpy's FP64 GEMM
computes them exactly; only the choice of extraction differs. Prints eF and e_scaled against the host DGEMM,
as in the paper's Table 4 (uniform [-1, 1]).

    python3 tools/split_variants.py --n 256 --seed 1
"""
import argparse

import numpy as np

VARIANTS = [  # (first, step, rounding)
    (8, 9, "rn"),     # bf16x: round to nearest, 9 bits per slice after the first
    (8, 8, "rn"),     # round to nearest, 8 bits per slice
    (8, 8, "trunc"),  # truncation, 8 bits per slice (a literal fixed-point reading)
    (7, 8, "trunc"),
]


def split(x, first, step, rounding, slices=6):
    mx = np.max(np.abs(x), axis=1, keepdims=True)
    _, e = np.frexp(mx)  # |x| < 2^e
    g = np.ldexp(1.0, e - first)
    r, out = x.copy(), []
    for _ in range(slices):
        q = np.round(r / g) if rounding == "rn" else np.trunc(r / g)
        assert np.all(np.abs(q) <= 256), "a digit needs more than 8 significant bits"
        out.append(q * g)
        r = r - q * g
        g = g / 2.0**step
    return out


def emulate(a, b, d, variant):
    sa = split(a, *variant)
    sb = [s.T for s in split(b.T, *variant)]
    c = np.zeros((a.shape[0], b.shape[1]))
    for t in reversed(range(d)):
        for i in range(t + 1):
            c += sa[i] @ sb[t - i]
    return c


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    a = rng.uniform(-1, 1, (args.n, args.n))
    b = rng.uniform(-1, 1, (args.n, args.n))
    ref = a @ b
    absab = np.abs(a) @ np.abs(b)
    print(f"n={args.n} uniform[-1,1], eF / e_scaled vs host DGEMM")
    print(f"{'variant':<16}" + "".join(f"{'fp64x' + str(d * (d + 1) // 2):>22}" for d in (3, 4, 5, 6)))
    for v in VARIANTS:
        cells = []
        for d in (3, 4, 5, 6):
            c = emulate(a, b, d, v)
            ef = np.linalg.norm(c - ref) / np.linalg.norm(ref)
            es = np.max(np.abs(c - ref) / absab)
            cells.append(f"{ef:10.3e}/{es:9.2e}")
        print(f"{'%d+%d %s' % v:<16}" + "".join(f"{x:>22}" for x in cells))


if __name__ == "__main__":
    main()
