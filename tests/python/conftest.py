"""Shared fixtures of the bf16x Python tests (run by run_pytest.sh with the BLAS shim preloaded).

The references are exact: the data are doubles (floats) with full 53-bit (24-bit) significands drawn as integers
times 2^-53 (2^-24), so every product and sum is an integer multiple of 2^-106 (2^-48) and numpy's object arrays
of Python ints give A B exactly; Python's int / int division rounds it once, correctly, to the nearest double.
"""
import ctypes

import numpy as np
import pytest


def exact_data(rng, shape, bits):
    """Uniform in (-1, 1), every significand bit random: (float array, its integer numerators)."""
    ints = rng.integers(-(1 << bits) + 1, 1 << bits, size=shape, dtype=np.int64)
    return ints.astype(np.float64) / float(1 << bits), ints


def exact_product(ai, bi, bits, trans_a=False, trans_b=False):
    """op(A) op(B) rounded once to double, from the integer numerators of exact_data."""
    ao = (ai.T if trans_a else ai).astype(object)
    bo = (bi.T if trans_b else bi).astype(object)
    num = ao @ bo
    den = 1 << (2 * bits)
    return np.array([[n / den for n in row] for row in num], dtype=np.float64)


def scale_bound(a, b, trans_a=False, trans_b=False):
    """k 2^(Ea_i + Eb_j) per entry, with |x| < 2^Ea_i over row i of op(A) and 2^Eb_j over column j of op(B): the
    quantity the fixed-point modes' error bound is proportional to (docs/numerics.md, Reconstruction and error)."""
    oa = a.T if trans_a else a
    ob = b.T if trans_b else b
    ea = np.frexp(np.abs(oa).max(axis=1))[1].astype(np.float64)
    eb = np.frexp(np.abs(ob).max(axis=0))[1].astype(np.float64)
    return oa.shape[1] * np.exp2(ea[:, None] + eb[None, :])


def abs_product(a, b):
    """(|A||B|)_ij, for the native GEMM's own bound gamma_k (|A||B|)_ij."""
    return np.abs(a) @ np.abs(b)


# T_d of docs/numerics.md: the dropped products of fp64x6 (d = 3) and fp64x21 (d = 6), relative to the scales.
T = {"fp64x6": 3.0e-8, "fp64x10": 7.3e-11, "fp64x15": 1.7e-13, "fp64x21": 3.9e-16}
PRODUCTS = {"fp64x6": 6, "fp64x10": 10, "fp64x15": 15, "fp64x21": 21}
U53 = 2.0**-53


def fixed_point_bound(mode, a, b, trans_a=False, trans_b=False, block_k=256):
    """docs/numerics.md: |C - AB|_ij <= k 2^(Ea_i+Eb_j) (T_d + gamma_n + 2 u53), n FP64 additions per entry
    (products x k-blocks of 256); the alpha/beta roundings are zero here (alpha = 1, beta = 0)."""
    k = (a.T if trans_a else a).shape[1]
    n = PRODUCTS[mode] * max(1, -(-k // block_k))
    gamma = n * U53 / (1 - n * U53)
    return scale_bound(a, b, trans_a, trans_b) * (T[mode] + gamma + 2 * U53)


U24 = 2.0**-24


def gamma(n, u):
    return n * u / (1 - n * u)


def fp32x6_bound(a, b, exact):
    """tests/test_modes.cpp check_fp32 (docs/numerics.md, FP32 path): dropped products <= 3 u24 |a||b| per term
    and 2 * 6 * 64 rounded FP32 pair additions per k-block of 64 plus one per block, relative to (|A||B|)_ij
    (the 1.02 covers the second-order terms), plus the final rounding to FP32."""
    k = a.shape[1]
    n = 2.0 * 6 * 64 + -(-k // 64)
    return abs_product(a, b) * (gamma(n, U24) * 1.02 + 3.1 * U24) + U24 * np.abs(exact)


def native_bound(a, b, exact, u):
    """A native GEMM: gamma_k (|A||B|)_ij (Higham, Thm 3.5) plus the rounding of the reference to the format."""
    return gamma(a.shape[1], u) * abs_product(a, b) + u * np.abs(exact)


@pytest.fixture(scope="session")
def shim():
    """The preloaded libbf16x_blas.so as the global namespace sees it (where numpy's cblas_dgemm binds)."""
    g = ctypes.CDLL(None)
    if not hasattr(g, "bf16x_set_dgemm_mode"):
        pytest.fail("libbf16x_blas.so is not preloaded (run through tests/python/run_pytest.sh)")
    for name in ("bf16x_get_dgemm_mode", "bf16x_get_sgemm_mode", "bf16x_get_num_threads"):
        getattr(g, name).restype = ctypes.c_int
    g.bf16x_set_verbose.argtypes = [ctypes.c_int]
    return g


@pytest.fixture
def rng():
    return np.random.default_rng(20261203)
