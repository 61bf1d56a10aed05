"""numpy's `@` under LD_PRELOAD=libbf16x_blas.so, switched between native, fp64x6 and fp64x21 inside this one
process by bf16x.mode, each result against the exact product (conftest.py)."""
import numpy as np
import pytest

import bf16x
from conftest import U24, U53, exact_data, exact_product, fixed_point_bound, fp32x6_bound, native_bound

M, K, N = 96, 80, 64


def test_mode_switches_numpy_matmul_through_the_preloaded_shim(shim, rng, capfd):
    a, ai = exact_data(rng, (M, K), 53)
    b, bi = exact_data(rng, (K, N), 53)
    exact = exact_product(ai, bi, 53)
    before = shim.bf16x_get_dgemm_mode()

    shim.bf16x_set_verbose(1)
    try:
        results = {}
        for name in ("native", "fp64x6", "fp64x21"):
            with bf16x.mode(name):
                assert shim.bf16x_get_dgemm_mode() == bf16x._modes.value(name)
                results[name] = a @ b
            assert shim.bf16x_get_dgemm_mode() == before
    finally:
        shim.bf16x_set_verbose(-1)
    err = {name: np.abs(c - exact) for name, c in results.items()}

    # The shim's verbose lines (docs/verbose.md): numpy calls row-major cblas_dgemm, logged as it made the call
    # (M x N x K, layout=row); one line per product, in the mode the block set.
    lines = [l for l in capfd.readouterr().err.splitlines() if l.startswith("BF16X_VERBOSE,dgemm")]
    assert [l.split(",")[4:7] for l in lines] == [[str(M), str(N), str(K)]] * 3
    assert all(",layout=row," in l for l in lines)
    assert ["mode=native" in lines[0], "mode=fp64x6" in lines[1], "mode=fp64x21" in lines[2]] == [True] * 3

    # native: the host DGEMM's own bound, gamma_k (|A||B|)_ij, plus the rounding of the reference (conftest.py).
    assert np.all(err["native"] <= native_bound(a, b, exact, U53))
    # fp64x6 and fp64x21: the fixed-point bound of docs/numerics.md, k 2^(Ea+Eb) (T_d + gamma_n + 2u), plus the
    # reference's rounding.
    for name in ("fp64x6", "fp64x21"):
        assert np.all(err[name] <= fixed_point_bound(name, a, b) + U53 * np.abs(exact)), name
    # The switch took effect: fp64x6 drops the products of slice order >= 3, about 2^-27 of the scales per term
    # (docs/accuracy.md: eF 1.5e-8 uniform), far above fp64x21 and native, which are at DGEMM's rounding level.
    assert err["fp64x6"].max() > 1e-12
    assert err["fp64x6"].max() > 1e4 * max(err["fp64x21"].max(), err["native"].max())
    assert not np.array_equal(results["fp64x6"], results["fp64x21"])


def test_mode_sets_sgemm_and_dgemm_by_precision(shim, rng):
    d0, s0 = shim.bf16x_get_dgemm_mode(), shim.bf16x_get_sgemm_mode()
    with bf16x.mode("fp32x6"):
        assert (shim.bf16x_get_sgemm_mode(), shim.bf16x_get_dgemm_mode()) == (2, d0)
    with bf16x.mode(sgemm="fp32x6", dgemm="fp64x15"):
        assert (shim.bf16x_get_sgemm_mode(), shim.bf16x_get_dgemm_mode()) == (2, 5)
        assert bf16x.get_mode("dgemm") == "fp64x15"  # libbf16x.so follows too
    assert (shim.bf16x_get_dgemm_mode(), shim.bf16x_get_sgemm_mode()) == (d0, s0)

    a, ai = exact_data(rng, (M, K), 24)
    b, bi = exact_data(rng, (K, N), 24)
    exact = exact_product(ai, bi, 24)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)  # exact: 24-bit significands
    with bf16x.mode("native"):
        native = a32 @ b32
    with bf16x.mode("fp32x6"):
        emulated = a32 @ b32
    # Each within its bound (conftest.py), and different bits: the emulation ran.
    assert np.all(np.abs(native - exact) <= native_bound(a, b, exact, U24))
    assert np.all(np.abs(emulated - exact) <= fp32x6_bound(a, b, exact))
    assert not np.array_equal(native, emulated)


def test_mode_restores_on_exception(shim):
    before = shim.bf16x_get_dgemm_mode()
    with pytest.raises(KeyError):
        with bf16x.mode("fp64x10"):
            assert shim.bf16x_get_dgemm_mode() == 4
            raise KeyError("inside")
    assert shim.bf16x_get_dgemm_mode() == before


def test_mode_rejects_unknown_and_misplaced_names():
    with pytest.raises(ValueError, match="unknown bf16x mode"):
        with bf16x.mode("fp64x7"):
            pass
    with pytest.raises(ValueError, match="not a sgemm mode"):
        with bf16x.mode(sgemm="fp64x6"):
            pass
    with pytest.raises(ValueError):
        with bf16x.mode():
            pass
