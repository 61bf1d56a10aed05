"""A multiprocessing "fork" child of a process that has run bf16x on several threads computes the parent's bits
without hanging (util/after_fork.hpp): every path, at 1, 2 and 4 threads, in a fresh interpreter with a time limit."""
import os
import subprocess
import sys

import pytest

CHILD = r"""
import multiprocessing as mp
import numpy as np
import bf16x

rng = np.random.default_rng(7)
a, b = rng.uniform(-1, 1, (150, 300)), rng.uniform(-1, 1, (300, 120))
a[:4] *= np.exp2(-np.arange(300) / 8)  # graded rows: the guard repairs their entries
z = a + 0.5j * a[:, ::-1].copy()
CALLS = [("dgemm", m) for m in ("fp64x21", "fp64c15", "fp64cr", "auto")] + [("sgemm", m) for m in ("fp32x6", "fp32c8")]


def run_all():
    out = [getattr(bf16x, f)(a.astype(np.float32) if f == "sgemm" else a,
                             b.astype(np.float32) if f == "sgemm" else b, mode=m) for f, m in CALLS]
    out.append(bf16x.zgemm(z, z.T.copy(), mode="fp64x21"))
    return out


def child(_):
    return run_all()


if __name__ == "__main__":
    want = run_all()
    with mp.get_context("fork").Pool(2) as pool:
        got = pool.map_async(child, range(2)).get(timeout=90)
    same = all(np.array_equal(w, g) for r in got for w, g in zip(want, r))
    print("threads", bf16x.get_num_threads(), "same bits" if same else "DIFFERENT")
    raise SystemExit(0 if same else 1)
"""


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_multiprocessing_fork_child_gets_the_parents_bits(tmp_path, threads):
    script = tmp_path / "fork_child.py"
    script.write_text(CHILD)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("LD_PRELOAD", None)  # the package's own library; the shim is tested under R (tests/clients/r_fork.sh)
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=150)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"threads {threads} same bits" in r.stdout
