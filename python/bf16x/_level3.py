"""The level-3 routines beyond GEMM on numpy arrays: syrk, herk, syr2k, her2k, symm, hemm, trmm, trsm, gemmt.

One function per routine; the dtype of the arrays picks the precision (float32: s, float64: d, complex64: c,
complex128: z) and every array of a call has that dtype (no conversion: a mixed or other dtype is a ValueError).
herk, her2k and hemm take the complex dtypes only. Arrays of any order: the call takes the layout of the array it
writes (C / B: C order as row-major, Fortran order as column-major, with ld = its stride), and an operand stored
in the other layout is read as its transpose where the routine can say so (its transpose or triangle argument
flips: a general operand of syrk, syr2k, gemmt; the symmetric A of symm; the triangular A of trmm and trsm), else
copied into the call's layout, as is an operand whose memory BLAS cannot describe or that overlaps the output.
Only the written triangle of C is computed (syrk, herk, syr2k, her2k, gemmt): the other one keeps what out held
(zeros for a new C). Errors: ValueError for shapes, dtypes, modes and flags; bf16x.Error for a status of the
library.
"""
import ctypes

import numpy as np

from . import _lib, _modes
from ._gemm import _check_out

_ROW_MAJOR, _COL_MAJOR = 101, 102
_NO_TRANS, _TRANS, _CONJ_TRANS = 111, 112, 113
_UPPER, _LOWER = 121, 122
_NON_UNIT, _UNIT = 131, 132
_LEFT, _RIGHT = 141, 142

# dtype -> (routine letter, ctypes scalar, ctypes real scalar, precision of its modes)
_DTYPES = {
    np.dtype(np.float32): ("s", ctypes.c_float, ctypes.c_float, "s"),
    np.dtype(np.float64): ("d", ctypes.c_double, ctypes.c_double, "d"),
    np.dtype(np.complex64): ("c", _lib.ComplexFloat, ctypes.c_float, "s"),
    np.dtype(np.complex128): ("z", _lib.ComplexDouble, ctypes.c_double, "d"),
}


class _Call:
    """What one call shares: the routine letter, its scalars and the C array it writes."""

    def __init__(self, name, arrays, complex_only=False):
        self.name = name
        arrays = [(n, x) for n, x in arrays if x is not None]
        for n, x in arrays:
            if not isinstance(x, np.ndarray) and n != "out":
                x = np.asarray(x)  # a list of numbers: its numpy dtype must then be one of the four
            if not isinstance(x, np.ndarray):
                raise ValueError(f"{name}: {n} must be a numpy array, not {type(x).__name__}")
            if x.ndim != 2:
                raise ValueError(f"{name}: {n} must be a 2-D array, got {x.ndim}-D with shape {x.shape}")
        first, dtype = arrays[0][0], arrays[0][1].dtype
        if dtype not in _DTYPES:
            raise ValueError(f"{name}: {first} has dtype {dtype}; the level-3 routines take float32, float64, "
                             "complex64 or complex128 (s, d, c, z)")
        for n, x in arrays[1:]:
            if x.dtype != dtype:
                raise ValueError(f"{name}: {n} has dtype {x.dtype}, {first} {dtype}: one dtype for every array")
        self.dtype = dtype
        self.letter, self.ctype, self.rtype, self.precision = _DTYPES[dtype]
        if complex_only and self.letter in "sd":
            raise ValueError(f"{name}: complex arrays only (complex64 or complex128), got {dtype}")

    def scalar(self, what, v):
        if self.letter in "sd":
            return self.real(what, v)
        try:
            v = complex(v)
        except TypeError:
            raise ValueError(f"{self.name}: {what} must be a number, not {type(v).__name__}") from None
        return self.ctype(v.real, v.imag)

    def real(self, what, v):
        if isinstance(v, (complex, np.complexfloating)) or (isinstance(v, np.ndarray) and np.iscomplexobj(v)):
            raise ValueError(f"{self.name}: {what} must be real here")
        try:
            return float(v)
        except TypeError:
            raise ValueError(f"{self.name}: {what} must be a number, not {type(v).__name__}") from None

    def options(self, mode, engine, guard):
        lib = _lib.library()
        return lib, _lib.options(lib, _modes.for_routine(mode, self.precision), _modes.engine_value(engine),
                                 _modes.guard_value(guard))

    def run(self, lib, routine, *args):
        fn = _lib.entry(lib, f"bf16x_{self.letter}{routine}_ex")
        _lib.check(fn(*args), f"bf16x_{self.letter}{routine}")


def _ld(x, row_major):
    """The ld at which BLAS reads 2-D x in this layout without a copy, or None if it cannot."""
    if not x.flags.aligned:
        return None
    r, c = x.shape
    s0, s1 = x.strides
    if not row_major:  # x column-major is x.T row-major
        r, c, s0, s1 = c, r, s1, s0
    e = x.itemsize
    if (s1 == e or c <= 1) and (r <= 1 or (s0 > 0 and s0 % e == 0 and s0 // e >= c)):
        return max(1, c, s0 // e if r > 1 else c)
    return None


def _stored(x, row_major, avoid=None):
    """(array, ld) holding x in this layout: x itself where it is so stored and apart from `avoid`, else a copy."""
    if avoid is None or not np.may_share_memory(x, avoid):
        ld = _ld(x, row_major)
        if ld is not None:
            return x, ld
    y = np.array(x, order="C" if row_major else "F", copy=True)
    return y, max(1, y.shape[1] if row_major else y.shape[0])


def _read(x, row_major, can_flip, avoid):
    """(array, ld, flipped) for an operand the call reads in layout `row_major`: flipped when it is stored in the
    other layout (the call then reads x^T, and the caller flips the transpose or triangle argument), which only
    happens where can_flip; a copy in the call's layout where neither layout describes it."""
    if not np.may_share_memory(x, avoid):
        ld = _ld(x, row_major)
        if ld is not None:
            return x, ld, False
        if can_flip:
            ld = _ld(x, not row_major)
            if ld is not None:
                return x, ld, True
    arr, ld = _stored(x, row_major)
    return arr, ld, False


def _prefers_rows(x):
    """Whether x is (or would best be) row-major: C order and not Fortran order, or neither."""
    return _ld(x, True) is not None or _ld(x, False) is None


def _output(call, out, shape, beta, like, beta_name="beta"):
    """The array C to write (out, or a new one in the order of `like`) and the array the call writes into with its
    layout: out itself, or a copy of it in Fortran order where BLAS cannot describe out (copied back by _finish)."""
    if out is None:
        if beta != 0:
            raise ValueError(f"{call.name}: {beta_name} != 0 needs out= (the C that {beta_name} scales)")
        out = np.zeros(shape, dtype=call.dtype, order="C" if _prefers_rows(like) else "F")
    else:
        _check_out(out, shape, call.dtype)
    for rows in (True, False) if _prefers_rows(out) else (False, True):
        ld = _ld(out, rows)
        if ld is not None:
            return out, out, ld, rows
    aside = np.array(out, order="F")
    return out, aside, max(1, shape[0]), False


def _finish(out, target):
    if target is not out:
        out[...] = target
    return out


def _uplo(lower, flipped=False):
    return _LOWER if bool(lower) != flipped else _UPPER


def _flag(call, what, v):
    """A transpose argument: False / "n", True / "t", or "c" (conjugate transpose; for real dtypes the same as
    "t")."""
    if isinstance(v, (bool, np.bool_)):
        return _TRANS if v else _NO_TRANS
    if isinstance(v, str) and v.lower() in ("n", "t", "c"):
        return {"n": _NO_TRANS, "t": _TRANS, "c": _CONJ_TRANS}[v.lower()]
    raise ValueError(f"{call.name}: {what} must be False, True, 'n', 't' or 'c', not {v!r}")


def _side(call, side):
    if side in ("left", "right"):
        return _LEFT if side == "left" else _RIGHT
    raise ValueError(f"{call.name}: side must be 'left' or 'right', not {side!r}")


def _flip(t):
    return {_NO_TRANS: _TRANS, _TRANS: _NO_TRANS}[t]


def _square(call, name, a, n=None):
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"{call.name}: {name} must be square, has shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise ValueError(f"{call.name}: {name} is {a.shape[0]}x{a.shape[0]}, needs {n}x{n}")


def _rank_k(name, a, b, mode, alpha, beta, out, lower, trans, engine, guard, herm):
    """syrk (b None), syr2k, herk (b None), her2k: C = alpha op(A) op(B)^T + ..., op(x) = x or x^T (x^H)."""
    call = _Call(name, [("a", a), ("b", b), ("out", out)], complex_only=herm)
    if b is not None and b.shape != a.shape:
        raise ValueError(f"{name}: a and b must have one shape, have {a.shape} and {b.shape}")
    t = _flag(call, "trans", trans)
    if herm:
        # op(A) A^H: "n" or "c" ("t", True: the conjugate transpose, the only one herk and her2k have)
        t = _NO_TRANS if t == _NO_TRANS else _CONJ_TRANS
    elif t == _CONJ_TRANS:
        if call.letter in "cz":
            raise ValueError(f"{name}: trans 'c' is not a {call.letter}{name} transpose (herk/her2k are)")
        t = _TRANS
    n, k = a.shape[::-1] if t != _NO_TRANS else a.shape
    c_alpha = call.real("alpha", alpha) if name == "herk" else call.scalar("alpha", alpha)
    c_beta = call.real("beta", beta) if herm else call.scalar("beta", beta)
    beta_value = c_beta if herm or call.letter in "sd" else complex(c_beta.re, c_beta.im)
    out, target, ldc, rows = _output(call, out, (n, n), beta_value, a)
    if n == 0:
        return out
    # A and B are read in one orientation (one trans argument): B follows A, copied where it cannot.
    a_arr, lda, flipped = _read(a, rows, not herm, target)
    if b is not None:
        b_arr, ldb = _stored(b, rows != flipped, target)
    if flipped:
        t = _flip(t)
    lib, opt = call.options(mode, engine, guard)
    layout = _ROW_MAJOR if rows else _COL_MAJOR
    head = (layout, _uplo(lower), t, n, k, c_alpha, a_arr.ctypes.data, lda)
    tail = (c_beta, target.ctypes.data, ldc, ctypes.byref(opt))
    call.run(lib, name, *head, *((b_arr.ctypes.data, ldb) if b is not None else ()), *tail)
    return _finish(out, target)


def syrk(a, mode=None, alpha=1.0, beta=0.0, out=None, lower=False, trans=False, engine=None, guard=None):
    """C = alpha op(a) op(a)^T + beta C on one triangle of the n x n C (the upper one; lower=True: the lower),
    op(a) = a (n x k) or, with trans=True, a.T (a k x n); returns C (out, if given; a new array needs beta = 0).

    mode, engine, guard: as bf16x.dgemm's (the dgemm modes for float64 and complex128, the sgemm modes for
    float32 and complex64). The triangle not written keeps out's values (zeros in a new C)."""
    return _rank_k("syrk", a, None, mode, alpha, beta, out, lower, trans, engine, guard, False)


def herk(a, mode=None, alpha=1.0, beta=0.0, out=None, lower=False, trans=False, engine=None, guard=None):
    """C = alpha op(a) op(a)^H + beta C, complex a, alpha and beta real, op(a) = a or, with trans=True (or 'c'),
    a^H; as syrk otherwise. The imaginary parts of C's diagonal are set to zero."""
    return _rank_k("herk", a, None, mode, alpha, beta, out, lower, trans, engine, guard, True)


def syr2k(a, b, mode=None, alpha=1.0, beta=0.0, out=None, lower=False, trans=False, engine=None, guard=None):
    """C = alpha op(a) op(b)^T + alpha op(b) op(a)^T + beta C, a and b of one shape; as syrk otherwise."""
    return _rank_k("syr2k", a, b, mode, alpha, beta, out, lower, trans, engine, guard, False)


def her2k(a, b, mode=None, alpha=1.0, beta=0.0, out=None, lower=False, trans=False, engine=None, guard=None):
    """C = alpha op(a) op(b)^H + conj(alpha) op(b) op(a)^H + beta C, complex arrays, beta real; as herk
    otherwise."""
    return _rank_k("her2k", a, b, mode, alpha, beta, out, lower, trans, engine, guard, True)


def _multiply(name, a, b, mode, alpha, beta, out, side, lower, engine, guard, herm):
    """symm, hemm: C = alpha A B + beta C (side 'left', A m x m) or alpha B A + beta C ('right', A n x n)."""
    call = _Call(name, [("a", a), ("b", b), ("out", out)], complex_only=herm)
    s = _side(call, side)
    m, n = b.shape
    _square(call, "a", a, m if s == _LEFT else n)
    c_alpha, c_beta = call.scalar("alpha", alpha), call.scalar("beta", beta)
    beta_value = c_beta if call.letter in "sd" else complex(c_beta.re, c_beta.im)
    out, target, ldc, rows = _output(call, out, (m, n), beta_value, b)
    if m == 0 or n == 0:
        return out
    # A symmetric read in the other layout is A^T = A with the other triangle stored; a Hermitian one would be
    # conj(A): copied.
    a_arr, lda, flipped = _read(a, rows, not herm, target)
    b_arr, ldb = _stored(b, rows, target)
    lib, opt = call.options(mode, engine, guard)
    call.run(lib, name, _ROW_MAJOR if rows else _COL_MAJOR, s, _uplo(lower, flipped), m, n, c_alpha,
             a_arr.ctypes.data, lda, b_arr.ctypes.data, ldb, c_beta, target.ctypes.data, ldc, ctypes.byref(opt))
    return _finish(out, target)


def symm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, side="left", lower=False, engine=None, guard=None):
    """C = alpha a b + beta C (side='left', a m x m) or alpha b a + beta C (side='right', a n x n), b and C m x n,
    a symmetric with its upper triangle read (lower=True: its lower one); returns C (out, if given; a new array
    needs beta = 0). mode, engine, guard: as syrk."""
    return _multiply("symm", a, b, mode, alpha, beta, out, side, lower, engine, guard, False)


def hemm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, side="left", lower=False, engine=None, guard=None):
    """As symm with a Hermitian (complex arrays; the imaginary parts of a's diagonal are not read)."""
    return _multiply("hemm", a, b, mode, alpha, beta, out, side, lower, engine, guard, True)


def _triangular(name, a, b, mode, alpha, out, side, lower, trans_a, unit_diagonal, engine, guard):
    call = _Call(name, [("a", a), ("b", b), ("out", out)])
    s = _side(call, side)
    t = _flag(call, "trans_a", trans_a)
    if t == _CONJ_TRANS and call.letter in "sd":
        t = _TRANS
    m, n = b.shape
    _square(call, "a", a, m if s == _LEFT else n)
    c_alpha = call.scalar("alpha", alpha)
    if out is None:
        out = np.array(b, order="C" if _prefers_rows(b) else "F", copy=True)
    else:
        _check_out(out, (m, n), call.dtype)
        if not np.may_share_memory(out, b) or not (out.ctypes.data == b.ctypes.data and out.strides == b.strides):
            out[...] = b  # B's values into out (a copy first where they overlap otherwise: numpy handles it)
    rows = _prefers_rows(out)
    ld = _ld(out, rows)
    target = out if ld is not None else np.array(out, order="F")
    if ld is None:
        rows, ld = False, max(1, m)
    if m == 0 or n == 0:
        return out
    # A triangular read in the other layout is A^T: the other triangle, and the transpose flips ("c": copied).
    a_arr, lda, flipped = _read(a, rows, t != _CONJ_TRANS, target)
    if flipped:
        t = _flip(t)
    lib, opt = call.options(mode, engine, guard)
    call.run(lib, name, _ROW_MAJOR if rows else _COL_MAJOR, s, _uplo(lower, flipped), t,
             _UNIT if unit_diagonal else _NON_UNIT, m, n, c_alpha, a_arr.ctypes.data, lda, target.ctypes.data, ld,
             ctypes.byref(opt))
    return _finish(out, target)


def trmm(a, b, mode=None, alpha=1.0, out=None, side="left", lower=False, trans_a=False, unit_diagonal=False,
         engine=None, guard=None):
    """B := alpha op(a) b (side='left', a m x m) or alpha b op(a) (side='right', a n x n), a triangular: its upper
    triangle read (lower=True: its lower one), its diagonal taken as ones with unit_diagonal=True; op(a) = a,
    a.T (trans_a=True or 't') or a^H ('c'). Returns the result: a new array (b is not written), or out (out=b:
    in place). mode, engine, guard: as syrk."""
    return _triangular("trmm", a, b, mode, alpha, out, side, lower, trans_a, unit_diagonal, engine, guard)


def trsm(a, b, mode=None, alpha=1.0, out=None, side="left", lower=False, trans_a=False, unit_diagonal=False,
         engine=None, guard=None):
    """X with op(a) X = alpha b (side='left') or X op(a) = alpha b ('right'), a triangular as in trmm; returns X: a
    new array, or out (out=b: in place). A singular a is not detected: its zero pivots give inf or nan."""
    return _triangular("trsm", a, b, mode, alpha, out, side, lower, trans_a, unit_diagonal, engine, guard)


def gemmt(a, b, mode=None, alpha=1.0, beta=0.0, out=None, lower=False, trans_a=False, trans_b=False, engine=None,
          guard=None):
    """C = alpha op(a) op(b) + beta C on one triangle of the n x n C only (upper; lower=True: lower), op(a) n x k
    and op(b) k x n; op(x) = x, x.T (True or 't') or x^H ('c'). As syrk otherwise."""
    call = _Call("gemmt", [("a", a), ("b", b), ("out", out)])
    ta, tb = _flag(call, "trans_a", trans_a), _flag(call, "trans_b", trans_b)
    if call.letter in "sd":
        ta, tb = (_TRANS if t == _CONJ_TRANS else t for t in (ta, tb))
    n, k = a.shape[::-1] if ta != _NO_TRANS else a.shape
    kb, nb = b.shape[::-1] if tb != _NO_TRANS else b.shape
    if (k, n) != (kb, nb):
        raise ValueError(f"gemmt: op(a) is {n}x{k} and op(b) {kb}x{nb}: op(b) must be {k}x{n}")
    c_alpha, c_beta = call.scalar("alpha", alpha), call.scalar("beta", beta)
    beta_value = c_beta if call.letter in "sd" else complex(c_beta.re, c_beta.im)
    out, target, ldc, rows = _output(call, out, (n, n), beta_value, a)
    if n == 0:
        return out
    a_arr, lda, fa = _read(a, rows, ta != _CONJ_TRANS, target)
    b_arr, ldb, fb = _read(b, rows, tb != _CONJ_TRANS, target)
    ta, tb = _flip(ta) if fa else ta, _flip(tb) if fb else tb
    lib, opt = call.options(mode, engine, guard)
    call.run(lib, "gemmt", _ROW_MAJOR if rows else _COL_MAJOR, _uplo(lower), ta, tb, n, k, c_alpha,
             a_arr.ctypes.data, lda, b_arr.ctypes.data, ldb, c_beta, target.ctypes.data, ldc, ctypes.byref(opt))
    return _finish(out, target)
