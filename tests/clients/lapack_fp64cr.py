"""Reference LAPACK's dpotrf_ and dgetrf_ through the shim (run by lapack_fp64cr.sh under bf16x-run).

  lapack_fp64cr.py inputs IN.npz     the fixed matrices (run without the shim: one file for every run below)
  lapack_fp64cr.py compute IN.npz OUT.npz
                                     factor them with the dpotrf_/dgetrf_ the process resolves (under
                                     bf16x-run: the preloaded reference LAPACK, whose blocked steps call dsyrk_,
                                     dtrsm_, dgemm_ by symbol, i.e. the shim), save the factors, print their hash
  lapack_fp64cr.py verify NATIVE.npz OTHER.npz
      The residuals ||A - L L^T||_F / ||A||_F (Cholesky) and ||P A - L U||_F / ||A||_F (LU) of both, each formed in
      long double (numpy's non-BLAS loop, so no BLAS call of the check itself goes through the shim), OTHER's within
      twice NATIVE's (and both below n u): the backward error of both factorizations is a sum of one rounding per
      update (Higham, Thms 9.3 and 10.3: |dA| <= gamma_{n+1} |L||L^T|), and fp64cr's updates are correctly rounded,
      so they hold fewer roundings than the host's, never more.
"""
import ctypes
import hashlib
import sys

import numpy as np

N_CHOL = 400  # six blocks of reference LAPACK's nb = 64 and a partial one: dsyrk/dgemm/dtrsm on every step
N_LU = 360


def inputs(out):
    rng = np.random.default_rng(20240641)
    b = rng.uniform(-1.0, 1.0, (N_CHOL, N_CHOL))
    spd = b @ b.T / N_CHOL + 0.01 * np.eye(N_CHOL)  # condition number about 10^4
    spd = (spd + spd.T) / 2
    gen = rng.uniform(-1.0, 1.0, (N_LU, N_LU))
    np.savez(out, spd=spd, gen=gen)


def compute(inp, out):
    d = np.load(inp)
    spd, gen = np.asfortranarray(d["spd"]), np.asfortranarray(d["gen"])
    lib = ctypes.CDLL(None)  # the process's global scope: LD_PRELOAD's libraries come first
    try:
        potrf, getrf = lib.dpotrf_, lib.dgetrf_
    except AttributeError:
        sys.exit("lapack_fp64cr.py: no dpotrf_/dgetrf_ in the global scope (run it under bf16x-run)")
    i32 = ctypes.c_int
    dp = ctypes.POINTER(ctypes.c_double)
    n, info = i32(N_CHOL), i32(-99)
    chol = spd.copy(order="F")
    potrf(ctypes.c_char_p(b"L"), ctypes.byref(n), chol.ctypes.data_as(dp), ctypes.byref(n), ctypes.byref(info),
          ctypes.c_size_t(1))
    if info.value != 0:
        sys.exit(f"dpotrf_ info = {info.value}")
    lu = gen.copy(order="F")
    ipiv = np.zeros(N_LU, dtype=np.int32)
    n = i32(N_LU)
    getrf(ctypes.byref(n), ctypes.byref(n), lu.ctypes.data_as(dp), ctypes.byref(n),
          ipiv.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), ctypes.byref(info))
    if info.value != 0:
        sys.exit(f"dgetrf_ info = {info.value}")
    chol = np.tril(chol)
    np.savez(out, spd=spd, gen=gen, chol=chol, lu=lu, ipiv=ipiv)
    h = lambda *xs: hashlib.sha256(b"".join(np.ascontiguousarray(x).tobytes() for x in xs)).hexdigest()[:16]
    print(f"hashes: input {h(spd, gen)} dpotrf {h(chol)} dgetrf {h(lu, ipiv)}")


def residuals(f):
    d = np.load(f)
    spd, gen = d["spd"].astype(np.longdouble), d["gen"].astype(np.longdouble)
    l = d["chol"].astype(np.longdouble)
    r_chol = np.linalg.norm((spd - l @ l.T).astype(np.float64)) / np.linalg.norm(spd.astype(np.float64))
    lu = d["lu"].astype(np.longdouble)
    lo, up = np.tril(lu, -1) + np.eye(N_LU, dtype=np.longdouble), np.triu(lu)
    pa = gen.copy()
    for i, p in enumerate(d["ipiv"]):  # the row interchanges in order, 1-based
        pa[[i, p - 1]] = pa[[p - 1, i]]
    r_lu = np.linalg.norm((pa - lo @ up).astype(np.float64)) / np.linalg.norm(gen.astype(np.float64))
    return r_chol, r_lu


def verify(native_f, other_f):
    nat, oth = residuals(native_f), residuals(other_f)
    u = 2.0**-53
    fail = 0
    for what, n, rn, ro in (("dpotrf ||A - L L^T||/||A||", N_CHOL, nat[0], oth[0]),
                            ("dgetrf ||P A - L U||/||A||", N_LU, nat[1], oth[1])):
        ok = ro <= 2 * rn and ro < n * u
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {ro:.3e} (native {rn:.3e}; limit min(2 native, n u = {n * u:.2e}))")
        fail |= not ok
    return int(fail)


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    elif sys.argv[1] == "compute":
        compute(sys.argv[2], sys.argv[3])
    else:
        sys.exit(verify(sys.argv[2], sys.argv[3]))
