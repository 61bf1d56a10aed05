"""The correctly rounded modes from Python: bf16x.dgemm / sgemm / zgemm with mode "fp64cr" / "fp32cr", and numpy's
`@` through the preloaded shim under bf16x.mode("fp64cr"), each entry against the exact value from Python's own
rationals (fractions.Fraction: float() of a Fraction is correctly rounded), bit for bit."""
from fractions import Fraction

import numpy as np

import bf16x


def graded(rng, shape, dtype):
    """Signs mixed, magnitudes over 2^-40 .. 2^40 (FP32: 2^-20 .. 2^20): cancellation, and products that a
    fixed-point scale cannot hold."""
    span = 40 if dtype == np.float64 else 20
    return (rng.uniform(-1, 1, shape) * np.exp2(rng.integers(-span, span, shape))).astype(dtype)


def exact_rounded(a, b, alpha=1.0, beta=0.0, c=None, to=float):
    m, k = a.shape
    n = b.shape[1]
    fa = [[Fraction(float(x)) for x in row] for row in a]
    fb = [[Fraction(float(b[l, j])) for l in range(k)] for j in range(n)]
    out = np.zeros((m, n), dtype=np.float64 if to is float else np.float32)
    for i in range(m):
        for j in range(n):
            v = Fraction(float(alpha)) * sum(x * y for x, y in zip(fa[i], fb[j]))
            if beta != 0:
                v += Fraction(float(beta)) * Fraction(float(c[i, j]))
            out[i, j] = to(v)
    return out


def to_float32(v):
    """RN to FP32 of a rational: numerator and denominator scaled so that the quotient's integer part holds 26+
    bits, the rest a sticky bit, then numpy's one rounding of an exact double to float32."""
    if v == 0:
        return np.float32(0)
    s = -1 if v < 0 else 1
    v = abs(v)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    shift = 40 - e
    q, r = divmod(v.numerator << max(shift, 0), v.denominator << max(-shift, 0))
    q = (q << 1) | (1 if r else 0)  # 42 bits and a sticky bit: exact in a double, rounded once to float32
    return np.float32(s * float(Fraction(q, 1) / Fraction(2) ** (shift + 1)))


def test_dgemm_fp64cr_every_entry_correctly_rounded(rng):
    a, b, c = graded(rng, (9, 60), np.float64), graded(rng, (60, 7), np.float64), graded(rng, (9, 7), np.float64)
    got = bf16x.dgemm(a, b, mode="fp64cr", alpha=-0.3, beta=0.7, out=c.copy())
    want = exact_rounded(a, b, -0.3, 0.7, c)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
    # every layout the wrapper takes gives the same bits
    assert np.array_equal(bf16x.dgemm(np.asfortranarray(a), b, mode="fp64cr", alpha=-0.3, beta=0.7, out=c.copy()),
                          got)


def test_sgemm_fp32cr_every_entry_correctly_rounded(rng):
    a, b = graded(rng, (8, 50), np.float32), graded(rng, (50, 6), np.float32)
    got = bf16x.sgemm(a, b, mode="fp32cr")
    want = exact_rounded(a, b, to=to_float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_zgemm_fp64cr_each_part_correctly_rounded(rng):
    a = graded(rng, (6, 30), np.float64) + 1j * graded(rng, (6, 30), np.float64)
    b = graded(rng, (30, 5), np.float64) + 1j * graded(rng, (30, 5), np.float64)
    got = bf16x.zgemm(a, b, mode="fp64cr")
    for i in range(6):
        for j in range(5):
            re = sum(Fraction(a[i, l].real) * Fraction(b[l, j].real) - Fraction(a[i, l].imag) * Fraction(b[l, j].imag)
                     for l in range(30))
            im = sum(Fraction(a[i, l].real) * Fraction(b[l, j].imag) + Fraction(a[i, l].imag) * Fraction(b[l, j].real)
                     for l in range(30))
            assert got[i, j].real == float(re) and got[i, j].imag == float(im), (i, j)


def test_numpy_matmul_through_the_shim_in_fp64cr(shim, rng):
    a, b = graded(rng, (12, 40), np.float64), graded(rng, (40, 10), np.float64)
    with bf16x.mode("fp64cr"):
        assert shim.bf16x_get_dgemm_mode() == bf16x._modes.value("fp64cr")
        got = a @ b
    want = exact_rounded(a, b)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


def test_verbose_line_names_the_fma_units():
    # fp64cr runs on the FMA units, no BF16 engine: the verbose line says engine=fma (kernels= gives the ISA).
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["BF16X_VERBOSE"] = "1"
    code = "import numpy as np, bf16x; a = np.ones((8, 8)); bf16x.dgemm(a, a, mode='fp64cr'); " \
           "bf16x.sgemm(a, a, mode='fp32cr')"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    calls = [line for line in r.stderr.splitlines() if line.startswith("BF16X_VERBOSE,") and ",header," not in line]
    assert len(calls) == 2, r.stderr
    for line, mode in zip(calls, ("fp64cr", "fp32cr")):
        assert f",mode={mode},engine=fma,kernels=" in line, line
