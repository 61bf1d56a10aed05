"""numpy's X.T @ X and scipy.linalg's LAPACK through bf16x-run (run by scipy_lapack.sh).

  scipy_lapack.py compute N OUT.npz   X.T @ X (numpy: cblas_dsyrk), scipy.linalg.cholesky, lu_factor, eigh and
                                      solve_triangular on fixed well-conditioned matrices of order N; under bf16x-run
                                      their LAPACK (dpotrf, dgetrf, dsyevd, dtrtrs) is the reference one, whose
                                      blocked steps call dsyrk, dtrsm, dgemm, dsyr2k, dtrmm of the shim
  scipy_lapack.py verify NATIVE.npz MODE.npz...
      Each MODE's results against native's (no BLAS call of the check goes through the shim: run it without one).

Tolerance (GEMM level). u = 2^-53. The shim's fp64x21 bounds every entry of a product with inner dimension k by
4 k u (|A||B|)_ij (the componentwise guard; docs/numerics.md, "Componentwise guard"), and the host GEMM's own error is
at most gamma_k (|A||B|)_ij ~ k u (|A||B|)_ij (Higham, Lemma 3.5). So:
  - X.T @ X (k = rows of X): two results, each within its bound of the exact product, differ by at most
    (4 k u + k u) (|X^T||X|)_ij: tol 5 k u componentwise (fp64cr: within u |G|_ij of exact, below that).
  - cholesky, lu_factor, solve_triangular: the classic componentwise backward error bounds, |A - L L^T| <=
    gamma_{n+1} |L||L^T| (Higham, Thm 10.3), |P A - L U| <= gamma_n |L||U| (Thm 9.3), |B - T X| <= gamma_n |T||X|
    (Thm 8.5), come from each inner product's error bound; in the blocked algorithms every inner product is
    summed by GEMM/SYRK/TRSM updates, each within the GEMM-level bound above, so the same checks hold with 5 n u
    in place of gamma_n: max_ij |residual|_ij / (|factors| product)_ij <= 5 n u, in every mode and natively.
    Residuals in long double (numpy's non-BLAS loop), the |.| products in double (relative rounding only).
  - eigh (dsyevd: dsytrd's dsyr2k, dormtr's dlarfb, the divide and conquer's dgemm): its errors are the
    algorithm's (Householder and divide and conquer; native's ||V^T V - I||_F is about 37 n u at n = 300), and the
    products add at most the GEMM-level bound to them: the backward error ||A V - V diag(w)||_F / ||A||_F and
    ||V^T V - I||_F each within native's + 5 n u; and by Weyl's theorem the eigenvalues of two backward stable
    results differ by at most the sum of their backward errors: |w - w_native|_i <= (e + e_native) ||A||_F.
"""
import sys

import numpy as np
import scipy.linalg as sl

U = 2.0**-53


def inputs(n):
    rng = np.random.default_rng(4141)
    x = rng.uniform(-1.0, 1.0, (n + 40, n))
    b = rng.uniform(-1.0, 1.0, (n, n))
    s = rng.uniform(-1.0, 1.0, (n, n))
    spd = (s + s.T) / 2 + 1.2 * 2 * np.sqrt(n / 3) * np.eye(n)  # spectrum in about [0.2, 2.2] * 2 sqrt(n/3)
    t = np.tril(rng.uniform(-1.0, 1.0, (n, n)), -1) / np.sqrt(n) + np.diag(rng.uniform(1.0, 2.0, n))
    rhs = rng.uniform(-1.0, 1.0, (n, 80))
    return x, b, spd, t, rhs


def compute(n, out):
    x, b, spd, t, rhs = inputs(n)
    g = x.T @ x  # numpy: one cblas_dsyrk (the same buffer transposed) and the other triangle copied
    chol = sl.cholesky(spd, lower=True)
    lu, piv = sl.lu_factor(b)
    w, v = sl.eigh(spd)
    sol = sl.solve_triangular(t, rhs, lower=True)
    np.savez(out, g=g, chol=chol, lu=lu, piv=piv, w=w, v=v, sol=sol)


def long(a):
    return a.astype(np.longdouble)


def ratio(resid, scale):
    return float(np.max(np.abs(resid).astype(np.float64) / np.maximum(scale, np.finfo(np.float64).tiny)))


def verify(native_f, mode_fs):
    nat = np.load(native_f)
    n = nat["chol"].shape[0]
    x, b, spd, t, rhs = inputs(n)
    k = x.shape[0]
    fails = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            fails.append(what)

    xx = np.abs(x).T @ np.abs(x)
    spd_norm = np.linalg.norm(spd)

    def eigh_errors(r):
        w, v = long(r["w"]), long(r["v"])
        e = float(np.linalg.norm((long(spd) @ v - v * w).astype(np.float64)) / spd_norm / (n * U))
        o = float(np.linalg.norm((v.T @ v - np.eye(n)).astype(np.float64)) / (n * U))
        return e, o

    e_nat, o_nat = eigh_errors(nat)
    for f in [native_f] + mode_fs:
        r = np.load(f)
        name = f.rsplit("/", 1)[-1].removesuffix(".npz")
        if f != native_f:
            e = ratio(r["g"] - nat["g"], xx) / (k * U)
            check(e <= 5, f"{name}: X.T @ X: max |G - G_native| / (|X^T||X|) = {e:.3f} k u (tol 5 k u)")
        l = r["chol"]
        e = ratio(long(spd) - long(l) @ long(l).T, np.abs(l) @ np.abs(l).T) / (n * U)
        check(e <= 5, f"{name}: cholesky: max |A - L L^T| / (|L||L^T|) = {e:.4f} n u (tol 5 n u)")
        lo, up = np.tril(r["lu"], -1) + np.eye(n), np.triu(r["lu"])
        pb = long(b)
        for i, p in enumerate(r["piv"]):  # scipy's 0-based interchanges, in order
            pb[[i, p]] = pb[[p, i]]
        e = ratio(pb - long(lo) @ long(up), np.abs(lo) @ np.abs(up)) / (n * U)
        check(e <= 5, f"{name}: lu_factor: max |P A - L U| / (|L||U|) = {e:.4f} n u (tol 5 n u)")
        s = r["sol"]
        e = ratio(long(rhs) - long(t) @ long(s), np.abs(t) @ np.abs(s)) / (n * U)
        check(e <= 5, f"{name}: solve_triangular: max |B - T X| / (|T||X|) = {e:.4f} n u (tol 5 n u)")
        e, o = eigh_errors(r) if f != native_f else (e_nat, o_nat)
        dw = float(np.max(np.abs(r["w"] - nat["w"]))) / (spd_norm * n * U)
        check(e <= e_nat + 5 and o <= o_nat + 5 and dw <= e + e_nat,
              f"{name}: eigh: ||A V - V W||_F/||A||_F = {e:.4f} n u, ||V^T V - I||_F = {o:.4f} n u (tol native's "
              f"+ 5 n u), max |w - w_native| = {dw:.4f} n u ||A||_F (tol {e + e_nat:.4f})")
    return 1 if fails else 0


if __name__ == "__main__":
    if sys.argv[1] == "compute":
        compute(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(verify(sys.argv[2], sys.argv[3:]))
