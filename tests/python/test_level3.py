"""bf16x.syrk / herk / syr2k / her2k / symm / hemm / trmm / trsm / gemmt on arrays of every dtype and order, against
scipy.linalg.blas (the host BLAS: ?syrk, ?trsm, ...; numpy's products where scipy is missing, and for gemmt, which
scipy lacks) computed with every bf16x instance in native mode, within a componentwise bound; the triangle a routine
does not write left as it was; and the errors they raise."""
import numpy as np
import pytest

import bf16x
from conftest import U24, U53

try:
    from scipy.linalg import blas as sblas
except ImportError:  # numpy references instead
    sblas = None

N, K = 37, 21  # C is N x N (rank k: inner dimension K); B and C of symm/trmm/trsm M x N
M = 29
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
COMPLEX = [np.complex64, np.complex128]
MODES = {"s": ["fp32x6", "fp32c8", "native"], "d": ["fp64x21", "fp64c15", "fp64cr", "auto", "native"]}
GARBAGE = 1e30  # in the triangle (diagonal) a routine must not read


def precision(dtype):
    return "s" if np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64)) else "d"


def letter(dtype):
    return {np.dtype(np.float32): "s", np.dtype(np.float64): "d", np.dtype(np.complex64): "c",
            np.dtype(np.complex128): "z"}[np.dtype(dtype)]


def modes_of(dtypes):
    return [(d, m) for d in dtypes for m in MODES[precision(d)]]


def random(rng, shape, dtype):
    x = rng.uniform(-1, 1, shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


def stored(x, how):
    """A copy of x in C order, Fortran order, or as a view BLAS cannot take (every other column of a wider
    array)."""
    if how in ("C", "F"):
        return np.array(x, order=how, copy=True)
    wide = np.zeros((x.shape[0], 2 * x.shape[1]), dtype=x.dtype)
    wide[:, ::2] = x
    return wide[:, ::2]


# (order of the operands, order of C): both layouts, the call's layout from C with operands in the other, and an
# operand that has to be copied.
ORDERS = [("C", "C"), ("F", "F"), ("C", "F"), ("F", "C"), ("strided", "C")]


def mag(x):
    """|re| + |im| (>= |x|): the magnitudes of the componentwise bound."""
    x = np.asarray(x)
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def tolerance(dtype, k):
    """Per unit of (|alpha| |op(A)| |op(B)| + |beta| |C|)_ij: the guarded or native mode's 4 k u (the fp32 modes:
    fp32x6's bound, docs/numerics.md), the reference's own k u and the roundings, doubled for complex products."""
    t = 800 * U24 if precision(dtype) == "s" else (8 * k + 16) * U53
    return 2 * t if np.issubdtype(dtype, np.complexfloating) else t


def in_triangle(n, lower):
    return np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))


def check_triangle(got, ref, scale, before, lower, tol, what):
    tri = in_triangle(got.shape[0], lower)
    err = np.abs(got.astype(np.complex128) - ref)
    bad = tri & ~(err <= tol * scale + 1e-300)
    assert not bad.any(), f"{what}: {bad.sum()} entries off the bound, worst error {err[tri].max():.3e}"
    assert np.array_equal(got[~tri], before[~tri]), f"{what}: the triangle not stored was written"


def native():
    """Every bf16x instance (the preloaded shim, which scipy's and numpy's BLAS calls reach) runs the host BLAS."""
    return bf16x.mode("native")


def _op(x, trans, conj=False):
    if not trans:
        return x
    return x.conj().T if conj else x.T


# -- references: scipy.linalg.blas where it is installed, numpy otherwise -----------------------------------------

def ref_rank_k(name, a, b, alpha, beta, c0, lower, trans):
    """syrk (b None), syr2k, herk, her2k: the full result on the written triangle (the rest: zeros or c0)."""
    herm = name.startswith("her")
    with native():
        if sblas is not None:
            f = getattr(sblas, letter(a.dtype) + name)
            t = (2 if herm else 1) if trans else 0
            args = (alpha, a) if b is None else (alpha, a, b)
            return f(*args, beta=beta, c=c0.copy(), trans=t, lower=int(lower)).astype(np.complex128)
        A, C = a.astype(np.complex128), c0.astype(np.complex128)
        oa = _op(A, trans, herm)
        tr = (lambda x: x.conj().T) if herm else (lambda x: x.T)
        if b is None:
            r = alpha * oa @ tr(oa) + beta * C
        else:
            ob = _op(b.astype(np.complex128), trans, herm)
            r = alpha * oa @ tr(ob) + (np.conj(alpha) if herm else alpha) * ob @ tr(oa) + beta * C
        if herm:
            r[np.diag_indices_from(r)] = r.diagonal().real
        return r


def full_symmetric(a, lower, herm):
    """The symmetric (Hermitian) matrix of a's stored triangle."""
    s = np.tril(a, -1) if lower else np.triu(a, 1)
    d = np.diag(a.diagonal().real if herm else a.diagonal())
    return s + (s.conj().T if herm else s.T) + d.astype(a.dtype)


def triangular(a, lower, unit):
    t = np.tril(a, -1) if lower else np.triu(a, 1)
    return t + (np.eye(a.shape[0], dtype=a.dtype) if unit else np.diag(a.diagonal()))


def with_garbage(a, lower, diagonal=False):
    """a with GARBAGE in the triangle that is not stored (and on the diagonal)."""
    a = a.copy()
    n = a.shape[0]
    mask = np.triu(np.ones((n, n), bool), 0 if diagonal else 1) if lower else np.tril(np.ones((n, n), bool),
                                                                                       0 if diagonal else -1)
    a[mask] = GARBAGE
    return a


# -- syrk, herk, syr2k, her2k ------------------------------------------------------------------------------------

RANK_K = [("syrk", DTYPES), ("syr2k", DTYPES), ("herk", COMPLEX), ("her2k", COMPLEX)]


@pytest.mark.parametrize("name,dtype,mode", [(r, d, m) for r, ds in RANK_K for d, m in modes_of(ds)])
def test_rank_k(rng, name, dtype, mode):
    herm, two = name.startswith("her"), name.endswith("2k")
    cplx = np.issubdtype(dtype, np.complexfloating)
    alpha = -0.75 if name == "herk" else (0.5 - 1.25j if cplx else -0.75)
    beta = 0.5 if herm or not cplx else 0.5 + 0.25j
    fn = getattr(bf16x, name)
    tol = tolerance(dtype, 2 * K if two else K)
    for trans in (False, True):
        shape = (K, N) if trans else (N, K)
        a, b = random(rng, shape, dtype), random(rng, shape, dtype) if two else None
        c0 = random(rng, (N, N), dtype)
        ref = ref_rank_k(name, a, b, alpha, beta, c0, False, trans)  # upper; lower below from the transpose
        refl = ref_rank_k(name, a, b, alpha, beta, c0, True, trans)
        oa, ob = _op(mag(a), trans), _op(mag(b), trans) if two else None
        scale = abs(alpha) * (oa @ (ob.T if two else oa.T) + (ob @ oa.T if two else 0)) + abs(beta) * mag(c0)
        for lower in (False, True):
            for ops, cs in ORDERS:
                out = stored(c0, cs)
                args = (stored(a, ops),) + ((stored(b, ops),) if two else ())
                r = fn(*args, mode=mode, alpha=alpha, beta=beta, out=out, lower=lower, trans=trans)
                assert r is out and r.dtype == dtype
                check_triangle(r, refl if lower else ref, scale, c0, lower, tol,
                               f"{name} {mode} trans={trans} lower={lower} {ops}/{cs}")
                if herm:
                    assert np.all(r.diagonal().imag == 0)
    # A new C: the triangle not written is zero.
    a = random(rng, (N, K), dtype)
    c = fn(a, *((a,) if two else ()), mode=mode, alpha=alpha)
    assert c.shape == (N, N) and c.dtype == dtype and np.all(np.tril(c, -1) == 0)


# -- symm, hemm ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,dtype,mode", [(r, d, m) for r, ds in [("symm", DTYPES), ("hemm", COMPLEX)]
                                             for d, m in modes_of(ds)])
def test_symm_hemm(rng, name, dtype, mode):
    herm = name == "hemm"
    cplx = np.issubdtype(dtype, np.complexfloating)
    alpha, beta = (1.5 - 0.5j, -0.25 + 1j) if cplx else (1.5, -0.25)
    fn = getattr(bf16x, name)
    for side in ("left", "right"):
        na = M if side == "left" else N
        tol = tolerance(dtype, na)
        for lower in (False, True):
            a = with_garbage(random(rng, (na, na), dtype), lower)
            if herm:  # the imaginary parts of the diagonal are not read
                a[np.diag_indices(na)] += 1j * GARBAGE
            b, c0 = random(rng, (M, N), dtype), random(rng, (M, N), dtype)
            full = full_symmetric(a, lower, herm)
            with native():
                if sblas is not None:
                    ref = getattr(sblas, letter(dtype) + name)(alpha, a, b, beta=beta, c=c0.copy(),
                                                              side=int(side == "right"), lower=int(lower))
                else:
                    ref = alpha * (full @ b if side == "left" else b @ full) + beta * c0
            fm = mag(full)
            scale = abs(alpha) * (fm @ mag(b) if side == "left" else mag(b) @ fm) + abs(beta) * mag(c0)
            for ops, cs in ORDERS:
                out = stored(c0, cs)
                r = fn(stored(a, ops), stored(b, ops), mode=mode, alpha=alpha, beta=beta, out=out, side=side,
                       lower=lower)
                assert r is out
                err = np.abs(r.astype(np.complex128) - ref)
                assert np.all(err <= tol * scale), f"{name} {mode} {side} lower={lower} {ops}/{cs}: {err.max():.3e}"


# -- trmm, trsm ---------------------------------------------------------------------------------------------------

def trans_flags(dtype):
    return [False, True, "c"] if np.issubdtype(dtype, np.complexfloating) else [False, True]


def op_t(t, trans):
    return t if trans is False else t.conj().T if trans == "c" else t.T


@pytest.mark.parametrize("name", ["trmm", "trsm"])
@pytest.mark.parametrize("dtype,mode", modes_of(DTYPES))
def test_trmm_trsm(rng, name, dtype, mode):
    cplx = np.issubdtype(dtype, np.complexfloating)
    alpha = 0.75 - 0.5j if cplx else -1.25
    fn = getattr(bf16x, name)
    for side in ("left", "right"):
        na = M if side == "left" else N
        for lower in (False, True):
            for trans in trans_flags(dtype):
                for unit in (False, True):
                    # A well-conditioned triangle: small off-diagonal entries, a diagonal of 2..3 in magnitude.
                    a = random(rng, (na, na), dtype) / na
                    a[np.diag_indices(na)] = (2 + rng.uniform(0, 1, na)) * rng.choice([-1, 1], na)
                    a = with_garbage(a, lower, diagonal=False)
                    if unit:
                        a[np.diag_indices(na)] = GARBAGE
                    b = random(rng, (M, N), dtype)
                    t = op_t(triangular(a, lower, unit).astype(np.complex128), trans)
                    flags = dict(side=int(side == "right"), lower=int(lower), diag=int(unit),
                                 trans_a=0 if trans is False else 2 if trans == "c" else 1)
                    with native():
                        if sblas is not None:
                            ref = getattr(sblas, letter(dtype) + name)(alpha, a, b.copy(), **flags)
                        elif name == "trmm":
                            ref = alpha * (t @ b if side == "left" else b @ t)
                        else:
                            ref = alpha * (np.linalg.solve(t, b) if side == "left" else np.linalg.solve(t.T, b.T).T)
                    ref = ref.astype(np.complex128)
                    what = f"{name} {mode} {side} lower={lower} trans={trans} unit={unit}"
                    for ops, cs in ORDERS:
                        bv = stored(b, cs)
                        before = bv.copy()
                        r = fn(stored(a, ops), bv, mode=mode, alpha=alpha, side=side, lower=lower, trans_a=trans,
                               unit_diagonal=unit)
                        assert r is not bv and np.array_equal(bv, before), "b was written without out="
                        check_tri(name, dtype, r, ref, t, b, alpha, side, na, f"{what} {ops}/{cs}")
                    # In place: out=b.
                    bv = stored(b, "F")
                    assert fn(a, bv, mode=mode, alpha=alpha, side=side, lower=lower, trans_a=trans,
                              unit_diagonal=unit, out=bv) is bv
                    check_tri(name, dtype, bv, ref, t, b, alpha, side, na, f"{what} in place")


def check_tri(name, dtype, r, ref, t, b, alpha, side, na, what):
    tol = tolerance(dtype, na)
    r = r.astype(np.complex128)
    if name == "trmm":
        scale = abs(alpha) * (mag(t) @ mag(b) if side == "left" else mag(b) @ mag(t))
        err = np.abs(r - ref)
        assert np.all(err <= tol * scale), f"{what}: {err.max():.3e}"
        return
    # trsm: the backward error of the result, |alpha B - op(A) X| <= c n u |op(A)| |X|, and the forward error
    # against the host's solution (A is well-conditioned here).
    resid = alpha * b - (t @ r if side == "left" else r @ t)
    scale = mag(t) @ mag(r) if side == "left" else mag(r) @ mag(t)
    assert np.all(np.abs(resid) <= 4 * tol * scale + 1e-300), f"{what}: residual {np.abs(resid).max():.3e}"
    fwd = 1e-3 if precision(dtype) == "s" else 1e-11
    assert np.allclose(r, ref, rtol=fwd, atol=fwd * np.abs(ref).max()), f"{what}: {np.abs(r - ref).max():.3e}"


# -- gemmt --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,mode", modes_of(DTYPES))
def test_gemmt(rng, dtype, mode):
    cplx = np.issubdtype(dtype, np.complexfloating)
    alpha, beta = (-1 + 0.5j, 0.5 - 0.5j) if cplx else (-1.0, 0.5)
    tol = tolerance(dtype, K)
    for ta, tb in [(False, False), (True, False), (False, True)] + ([("c", "c"), (False, "c")] if cplx else []):
        a = random(rng, (K, N) if ta else (N, K), dtype)
        b = random(rng, (N, K) if tb else (K, N), dtype)
        c0 = random(rng, (N, N), dtype)
        oa, ob = op_t(a.astype(np.complex128), ta), op_t(b.astype(np.complex128), tb)
        with native():
            full = alpha * oa @ ob + beta * c0  # scipy has no gemmt: the host GEMM's product
        scale = abs(alpha) * mag(oa) @ mag(ob) + abs(beta) * mag(c0)
        for lower in (False, True):
            for ops, cs in ORDERS:
                out = stored(c0, cs)
                r = bf16x.gemmt(stored(a, ops), stored(b, cs), mode=mode, alpha=alpha,
                                beta=beta, out=out, lower=lower, trans_a=ta, trans_b=tb)
                assert r is out
                check_triangle(r, full, scale, c0, lower, tol, f"gemmt {mode} {ta}/{tb} lower={lower} {ops}/{cs}")


# -- the other ways in: operands that overlap the output, mixed layouts, options --------------------------------

def test_operand_overlapping_out_and_mixed_layouts(rng):
    a = random(rng, (N, N), np.float64)
    ref = a @ a.T
    c = a.copy()
    r = bf16x.syrk(c, mode="fp64x21", out=c)  # A is C itself: read before C is written (a copy)
    assert r is c and np.allclose(np.triu(c), np.triu(ref), rtol=1e-14, atol=1e-13)
    # syr2k with A in C order and B in Fortran order: one of them is copied (one transpose argument for both)
    a, b = random(rng, (N, K), np.float64), random(rng, (N, K), np.float64)
    with native():
        ref = a @ b.T + b @ a.T
    r = bf16x.syr2k(np.ascontiguousarray(a), np.asfortranarray(b), mode="fp64x21", lower=True)
    assert np.allclose(np.tril(r), np.tril(ref), rtol=1e-13, atol=1e-13)
    # hemm with A in the other layout than C: copied (a Hermitian A read transposed would be its conjugate)
    h = random(rng, (M, M), np.complex128)
    h = h + h.conj().T
    bb = random(rng, (M, N), np.complex128)
    with native():
        ref = h @ bb
    r = bf16x.hemm(np.asfortranarray(h), np.ascontiguousarray(bb), mode="fp64x21")
    assert r.flags.c_contiguous and np.allclose(r, ref, rtol=1e-13, atol=1e-13)
    # trsm, conjugate transpose of a row-major A into a column-major B
    t = np.triu(random(rng, (M, M), np.complex128)) / M + 3 * np.eye(M)
    x = bf16x.trsm(np.ascontiguousarray(t), np.asfortranarray(bb), mode="fp64x21", trans_a="c")
    assert x.flags.f_contiguous and np.allclose(t.conj().T @ x, bb, rtol=1e-13, atol=1e-13)


def test_options_engine_guard_and_zero_sizes(rng):
    a = random(rng, (N, K), np.float64)
    raw = bf16x.syrk(a, mode="fp64x21", guard="off", engine="reference")
    guarded = bf16x.syrk(a, mode="fp64x21", guard=True)
    assert np.allclose(raw, guarded, rtol=1e-14, atol=1e-14)
    assert bf16x.syrk(np.zeros((0, 3)), mode="fp64x21").shape == (0, 0)
    c = random(rng, (N, N), np.float64)
    r = bf16x.syrk(np.zeros((N, 0)), mode="fp64x21", beta=2.0, out=c.copy())  # k = 0: C = beta C
    assert np.array_equal(np.triu(r), np.triu(2 * c))
    assert bf16x.trsm(np.eye(3), np.zeros((3, 0))).shape == (3, 0)


def test_errors(rng):
    a = random(rng, (N, K), np.float64)
    sq = random(rng, (M, M), np.float64)
    b = random(rng, (M, N), np.float64)
    with pytest.raises(ValueError, match="square"):
        bf16x.symm(a, b)
    with pytest.raises(ValueError, match="square"):
        bf16x.trsm(random(rng, (M, M + 1), np.float64), b)
    with pytest.raises(ValueError, match=f"needs {N}x{N}"):
        bf16x.trmm(sq, b, side="right")
    with pytest.raises(ValueError, match="dtype int64"):
        bf16x.syrk(np.ones((3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="one dtype"):
        bf16x.syr2k(a, a.astype(np.float32))
    with pytest.raises(ValueError, match="one dtype"):
        bf16x.syrk(a, out=np.zeros((N, N), np.float32))
    with pytest.raises(ValueError, match="complex arrays only"):
        bf16x.herk(a)
    with pytest.raises(ValueError, match="complex arrays only"):
        bf16x.hemm(sq, b)
    with pytest.raises(ValueError, match="2-D"):
        bf16x.syrk(np.ones(3))
    with pytest.raises(ValueError, match="not a sgemm mode"):
        bf16x.syrk(a.astype(np.float32), mode="fp64x21")
    with pytest.raises(ValueError, match="not a dgemm mode"):
        bf16x.trsm(sq.astype(np.complex128), b.astype(np.complex128), mode="fp32x6")
    with pytest.raises(ValueError, match="unknown bf16x engine"):
        bf16x.gemmt(a, a.T, engine="bogus")
    with pytest.raises(ValueError, match="side"):
        bf16x.symm(sq, b, side="up")
    with pytest.raises(ValueError, match="trans_a"):
        bf16x.trmm(sq, b, trans_a="x")
    with pytest.raises(ValueError, match="beta"):
        bf16x.syrk(a, beta=1.0)
    with pytest.raises(ValueError, match="real"):
        bf16x.syrk(a, alpha=1j)
    with pytest.raises(ValueError, match="real"):
        bf16x.herk(a.astype(np.complex128), alpha=1 + 1j)
    with pytest.raises(ValueError, match="out has shape"):
        bf16x.syrk(a, out=np.zeros((N, N + 1)))
    with pytest.raises(ValueError, match="op\\(b\\) must be"):
        bf16x.gemmt(a, a)
    with pytest.raises(ValueError, match="one shape"):
        bf16x.syr2k(a, a.T)
    # A status of the library: an INT8 engine for a slice mode (BF16X_ERR_ENGINE_KIND, 16), C untouched.
    c = random(rng, (N, N), np.float64)
    before = c.copy()
    with pytest.raises(bf16x.Error, match="bf16x_dsyrk") as e:
        bf16x.syrk(a, mode="fp64x21", engine="avx2-int8", out=c, beta=1.0)
    assert e.value.status == 16 and np.array_equal(c, before)
