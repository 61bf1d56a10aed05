"""bf16x.dgemm / sgemm / matmul on arrays of either order and on strided views, against the exact product, with
the bounds of conftest.py (docs/numerics.md); and the errors they raise."""
import numpy as np
import pytest

import bf16x
from conftest import U24, U53, exact_data, exact_product, fixed_point_bound, fp32x6_bound, native_bound

M, K, N = 96, 80, 64


def layouts(x):
    """The same matrix as BLAS can take it directly (C order, Fortran order, a column-major block of a larger
    array, a row-major block with padding, a transposed view) and as it cannot (every other row: no unit stride
    along either dimension, so bf16x copies it)."""
    r, c = x.shape
    big = np.zeros((r + 5, c + 3), order="F")
    big[2:2 + r, 1:1 + c] = x
    pad = np.zeros((r, c + 7))
    pad[:, 3:3 + c] = x
    every_other = np.zeros((2 * r, c))
    every_other[::2] = x
    return {
        "C": np.ascontiguousarray(x),
        "F": np.asfortranarray(x),
        "F-block": big[2:2 + r, 1:1 + c],
        "C-padded": pad[:, 3:3 + c],
        "T-view": np.ascontiguousarray(x.T).T,
        "strided": every_other[::2],
    }


@pytest.mark.parametrize("mode", ["fp64x6", "fp64x21", "native"])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_dgemm_layouts_and_transposes(rng, mode, trans_a, trans_b):
    a, ai = exact_data(rng, (K, M) if trans_a else (M, K), 53)
    b, bi = exact_data(rng, (N, K) if trans_b else (K, N), 53)
    exact = exact_product(ai, bi, 53, trans_a, trans_b)
    opa, opb = (a.T if trans_a else a), (b.T if trans_b else b)
    bound = (native_bound(opa, opb, exact, U53) if mode == "native" else
             fixed_point_bound(mode, opa, opb) + U53 * np.abs(exact))
    first = None
    for la, av in layouts(a).items():
        for lb, bv in layouts(b).items():
            c = bf16x.dgemm(av, bv, mode=mode, trans_a=trans_a, trans_b=trans_b)
            assert c.shape == (M, N) and c.dtype == np.float64
            assert np.all(np.abs(c - exact) <= bound), (la, lb)
            if mode != "native":
                # The emulation's result does not depend on how the operands are stored (the engines are
                # deterministic given the column-major problem, and its transposes only change the packing).
                first = c if first is None else first
                assert np.array_equal(c, first), (la, lb)


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_dgemm_alpha_beta_into_out(rng, order):
    a, ai = exact_data(rng, (M, K), 53)
    b, bi = exact_data(rng, (K, N), 53)
    c0 = rng.uniform(-1, 1, (M, N))
    exact = exact_product(ai, bi, 53)
    if order == "strided":
        holder = np.zeros((M, 2 * N))
        out = holder[:, ::2]  # no unit stride: computed aside and copied in
    else:
        out = np.empty((M, N), order=order)
    out[...] = c0
    alpha, beta = -0.75, 0.5  # powers-of-two multiples: alpha * R and beta * c0 are exact
    r = bf16x.dgemm(a, b, mode="fp64x21", alpha=alpha, beta=beta, out=out)
    assert r is out
    want = alpha * exact + beta * c0
    # fixed-point bound times |alpha|, plus the roundings of alpha * acc and of the sum (2u |result|).
    bound = abs(alpha) * fixed_point_bound("fp64x21", a, b) + 2 * U53 * (np.abs(want) + abs(beta * c0))
    assert np.all(np.abs(out - want) <= bound)
    if order == "strided":
        assert np.all(holder[:, 1::2] == 0)  # the gaps were not written


@pytest.mark.parametrize("order", ["C", "F"])
def test_sgemm_orders(rng, order):
    a, ai = exact_data(rng, (M, K), 24)
    b, bi = exact_data(rng, (K, N), 24)
    exact = exact_product(ai, bi, 24)
    a32 = np.asarray(a, np.float32, order=order)
    b32 = np.asarray(b, np.float32, order=order)
    c = bf16x.sgemm(a32, b32, mode="fp32x6")
    assert c.dtype == np.float32
    assert np.all(np.abs(c - exact) <= fp32x6_bound(a, b, exact))
    ct = bf16x.sgemm(np.asfortranarray(a32.T), b32[:, ::1], mode="fp32x6", trans_a=True)
    assert np.all(np.abs(ct - exact) <= fp32x6_bound(a, b, exact))
    cn = bf16x.sgemm(a32, b32, mode="native")
    assert np.all(np.abs(cn - exact) <= native_bound(a, b, exact, U24))


def test_matmul_dtypes_vectors_and_stacks(rng):
    a, ai = exact_data(rng, (M, K), 53)
    b, bi = exact_data(rng, (K, N), 53)
    exact = exact_product(ai, bi, 53)
    bound = fixed_point_bound("fp64x21", a, b) + U53 * np.abs(exact)
    c = bf16x.matmul(a, b, mode="fp64x21")
    assert c.dtype == np.float64 and np.all(np.abs(c - exact) <= bound)
    # float32 @ float32 runs sgemm
    assert bf16x.matmul(a.astype(np.float32), b.astype(np.float32), mode="fp32x6").dtype == np.float32
    # matrix @ vector and vector @ matrix, as numpy.matmul shapes them
    v = b[:, 3]
    assert bf16x.matmul(a, v, mode="fp64x21").shape == (M,)
    assert np.all(np.abs(bf16x.matmul(a, v, mode="fp64x21") - exact[:, 3]) <= bound[:, 3])
    assert bf16x.matmul(a[5], b, mode="fp64x21").shape == (N,)
    # a stack of two, broadcast against one B
    stack = np.stack([a, -a])
    cs = bf16x.matmul(stack, b, mode="fp64x21")
    assert cs.shape == (2, M, N)
    assert np.all(np.abs(cs[0] - exact) <= bound) and np.all(np.abs(cs[1] + exact) <= bound)
    # integers are converted to float64; small integer products are exact in every FP64 mode
    ints = np.arange(12).reshape(3, 4)
    assert np.array_equal(bf16x.matmul(ints, ints.T, mode="fp64x6"), (ints @ ints.T).astype(np.float64))


def test_out_overlapping_an_input_is_safe(rng):
    a = rng.uniform(-1, 1, (M, M))
    want = bf16x.dgemm(a, a, mode="fp64x21")
    x = a.copy()
    bf16x.dgemm(x, x, mode="fp64x21", out=x)  # inputs copied before C is written
    assert np.array_equal(x, want)


def test_empty_products(rng):
    assert bf16x.dgemm(np.zeros((0, 4)), np.zeros((4, 3))).shape == (0, 3)
    c = np.ones((2, 3))
    bf16x.dgemm(np.zeros((2, 0)), np.zeros((0, 3)), beta=2.0, out=c)  # k = 0: C = beta C
    assert np.all(c == 2.0)


def test_errors():
    a, b = np.ones((4, 3)), np.ones((5, 2))
    with pytest.raises(ValueError, match="inner dimensions"):
        bf16x.dgemm(a, b)
    with pytest.raises(ValueError, match="2-D"):
        bf16x.dgemm(np.ones(3), np.ones((3, 3)))
    with pytest.raises(ValueError, match="not a dgemm mode"):
        bf16x.dgemm(a, a.T, mode="fp32x6")
    with pytest.raises(ValueError, match="not a sgemm mode"):
        bf16x.sgemm(a, a.T, mode="fp64x21")
    with pytest.raises(ValueError, match="unknown bf16x mode"):
        bf16x.dgemm(a, a.T, mode="fp64x99")
    with pytest.raises(ValueError, match="unknown bf16x engine"):
        bf16x.dgemm(a, a.T, engine="gpu")
    with pytest.raises(ValueError, match="out has shape"):
        bf16x.dgemm(a, a.T, out=np.empty((3, 3)))
    with pytest.raises(ValueError, match="dtype"):
        bf16x.dgemm(a, a.T, out=np.empty((4, 4), np.float32))
    with pytest.raises(ValueError, match="beta"):
        bf16x.dgemm(a, a.T, beta=1.0)
    with pytest.raises(ValueError, match="complex"):
        bf16x.dgemm(a + 1j, a.T)
    with pytest.raises(ValueError, match="matmul"):
        bf16x.matmul(np.ones((2, 3)), np.ones((2, 3)))


def test_library_status_raises_error():
    # avx512vnni is an INT8 engine of the CRT modes; for a BF16 mode the library refuses it on every CPU
    # (BF16X_ERR_ENGINE_KIND), which the package raises as bf16x.Error with the library's status string.
    with pytest.raises(bf16x.Error) as info:
        bf16x.dgemm(np.ones((64, 64)), np.ones((64, 64)), mode="fp64x6", engine="avx512vnni")
    assert info.value.status == 16  # BF16X_ERR_ENGINE_KIND
    assert str(info.value) == "bf16x_dgemm: " + bf16x._lib.library().bf16x_status_string(16).decode()


ORDERS = [(oa, ob, oc) for oa in "CF" for ob in "CF" for oc in "CF"]


@pytest.mark.parametrize("routine,mode", [("s", "fp32x6"), ("d", "fp64x21"), ("d", "fp64c15"), ("z", "fp64x21"),
                                          ("c", "fp32x6")])
def test_same_bits_in_every_order_of_a_b_and_out(rng, routine, mode):
    # The library computes both layouts of C in the same order; the package must pass a C-order out as one
    # (BF16X_ROW_MAJOR), not as C^T = B^T A^T, which rounds differently.
    dtype = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}[routine]
    f = getattr(bf16x, routine + "gemm")
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    b = rng.uniform(-1, 1, (K, N)).astype(dtype)
    if routine in "cz":
        a = a + 1j * rng.uniform(-1, 1, (M, K)).astype(dtype)
        b = b - 1j * rng.uniform(-1, 1, (K, N)).astype(dtype)
    first = None
    for oa, ob, oc in ORDERS:
        out = np.empty((M, N), dtype, order=oc)
        f(np.asarray(a, order=oa), np.asarray(b, order=ob), mode=mode, out=out)
        first = out.copy() if first is None else first
        assert np.array_equal(out, first), (oa, ob, oc)
    # a transposed operand too
    assert np.array_equal(f(np.asfortranarray(a.T), b, mode=mode, trans_a=True), first)


@pytest.mark.parametrize("routine", ["z", "c"])
def test_complex_gemm_against_numpy(rng, routine):
    dtype, eps, mode = (np.complex128, U53, "fp64x21") if routine == "z" else (np.complex64, U24, "fp32x6")
    f = getattr(bf16x, routine + "gemm")
    a = (rng.uniform(-1, 1, (M, K)) + 1j * rng.uniform(-1, 1, (M, K))).astype(dtype)
    b = (rng.uniform(-1, 1, (K, N)) + 1j * rng.uniform(-1, 1, (K, N))).astype(dtype)
    ref = a.astype(np.complex128) @ b.astype(np.complex128)
    # |A||B| per entry, times a margin of products and k: a loose bound either mode meets by far
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    c = f(a, b, mode=mode)
    assert c.dtype == dtype and np.all(np.abs(c - ref) <= 4 * K * eps * scale)
    c0 = (rng.uniform(-1, 1, (M, N)) + 1j * rng.uniform(-1, 1, (M, N))).astype(dtype)
    out = c0.copy()
    alpha, beta = 0.5 - 0.25j, -1 + 0.5j
    assert f(a.T, b, mode=mode, alpha=alpha, beta=beta, out=out, trans_a=True) is out
    want = alpha * ref + beta * c0.astype(np.complex128)
    assert np.all(np.abs(out - want) <= 4 * K * eps * (scale + np.abs(c0)))
    with pytest.raises(ValueError, match="not a"):
        f(a, b, mode="fp32x6" if routine == "z" else "fp64x21")


def test_matmul_stacks_are_one_batched_call_with_the_single_calls_bits(rng):
    a = rng.uniform(-1, 1, (3, 5, 7, 6))
    b = rng.uniform(-1, 1, (6, 4))
    for mode in ("fp64x21", "fp64c15", "native"):
        c = bf16x.matmul(a, b, mode=mode)
        assert c.shape == (3, 5, 7, 4)
        for i in range(3):
            for j in range(5):
                assert np.array_equal(c[i, j], bf16x.dgemm(a[i, j], b, mode=mode)), (mode, i, j)
    # broadcast on both sides, operands that are not C-contiguous, complex and float32
    a2 = np.asfortranarray(rng.uniform(-1, 1, (4, 1, 7, 6)))
    b2 = rng.uniform(-1, 1, (1, 3, 4, 6)).transpose(0, 1, 3, 2)
    c2 = bf16x.matmul(a2, b2, mode="fp64x21")
    assert c2.shape == (4, 3, 7, 4)
    assert np.array_equal(c2[2, 1], bf16x.dgemm(a2[2, 0], b2[0, 1], mode="fp64x21"))
    z = bf16x.matmul(a + 1j * a, b.astype(np.complex128), mode="fp64x21")
    assert z.dtype == np.complex128 and np.array_equal(z[1, 2], bf16x.zgemm(a[1, 2] + 1j * a[1, 2], b, mode="fp64x21"))
    s = bf16x.matmul(a.astype(np.float32), b.astype(np.float32), mode="fp32x6")
    assert s.dtype == np.float32 and np.array_equal(s[0, 4], bf16x.sgemm(a[0, 4].astype(np.float32),
                                                                          b.astype(np.float32), mode="fp32x6"))
    assert bf16x.matmul(a.astype(np.complex64), b.astype(np.float32), mode="fp32x6").dtype == np.complex64


def test_matmul_out(rng):
    a = rng.uniform(-1, 1, (6, 9, 5))
    b = rng.uniform(-1, 1, (6, 5, 8))
    want = bf16x.matmul(a, b, mode="fp64x21")
    for out in (np.empty((6, 9, 8)), np.empty((6, 9, 8), order="F"), np.zeros((6, 9, 16))[:, :, ::2],
                np.empty((9, 6, 8)).transpose(1, 0, 2)):
        r = bf16x.matmul(a, b, mode="fp64x21", out=out)
        assert r is out and np.array_equal(out, want)
    holder = np.zeros((6, 9, 16))
    bf16x.matmul(a, b, mode="fp64x21", out=holder[:, :, ::2])
    assert np.all(holder[:, :, 1::2] == 0)  # the gaps of a strided out are not written
    v = rng.uniform(-1, 1, 5)
    out_v = np.empty((6, 9))
    assert bf16x.matmul(a, v, mode="fp64x21", out=out_v) is out_v
    assert np.array_equal(out_v[2], bf16x.dgemm(a[2], v[:, None], mode="fp64x21")[:, 0])
    x = a[0].copy()
    sq = rng.uniform(-1, 1, (5, 5))
    y = x @ np.eye(5)
    bf16x.matmul(y, sq, mode="fp64x21", out=y)  # out is an input: read before written
    assert np.array_equal(y, bf16x.dgemm(x, sq, mode="fp64x21"))
    with pytest.raises(ValueError, match="out has shape"):
        bf16x.matmul(a, b, out=np.empty((6, 9, 9)))
    with pytest.raises(ValueError, match="dtype"):
        bf16x.matmul(a, b, out=np.empty((6, 9, 8), np.float32))
    assert bf16x.matmul(np.empty((0, 3, 4)), np.empty((4, 2))).shape == (0, 3, 2)


def test_guard_keyword():
    """guard= per call: the default keeps fp64x21 componentwise on the smallest case of docs/accuracy.md (one row
    mixing 1 and 1.2e-9), guard="off" is the raw mode, far outside 4 k u; bad values are a ValueError."""
    a = np.array([[1.0, 1.2345678901234e-9], [0.5, 0.25]])
    b = np.array([[1.0123456789012e-12, 0.5], [1.0, 0.25]])
    exact00 = 1.0123456789012e-12 + 1.2345678901234e-9 * 1.0  # both products exact; their sum rounds once
    guarded = bf16x.dgemm(a, b, mode="fp64x21")
    raw = bf16x.dgemm(a, b, mode="fp64x21", guard="off")
    assert bf16x.dgemm(a, b, mode="fp64x21", guard=True)[0, 0] == guarded[0, 0]
    assert abs(guarded[0, 0] - exact00) <= 4 * 2 * 2.0**-53 * abs(exact00)
    assert abs(raw[0, 0] - exact00) > 1e-9 * abs(exact00)
    assert np.array_equal(bf16x.matmul(a, b, mode="fp64x21"), guarded)
    for bad in ("yes", 1, "Off"):
        with pytest.raises(ValueError):
            bf16x.dgemm(a, b, mode="fp64x21", guard=bad)
