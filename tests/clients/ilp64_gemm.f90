! DGEMM, SGEMM, ZGEMM and CGEMM through the ILP64 BLAS interface (compiled with -fdefault-integer-8: every
! INTEGER, sizes and INFO included, is 64-bit), run by ilp64.sh against Debian's libblas64 with libbf16x_blas64.so
! preloaded. The reference is computed here in REAL(16): products of doubles are exact there (106 <= 113 bits) and
! 128 sums add at most 128 u113 relative to |A||B|, negligible against every bound below.
!   ilp64_gemm MODE   with MODE fp64x6 / fp64x21 / native (DGEMM and ZGEMM; SGEMM and CGEMM run fp32x6 in every
!                     case: the complex routines take the mode of the real one of their precision).
! Bounds (docs/numerics.md, tests/python/conftest.py):
!   fp64x<d>: |C - R| <= k 2^(Ea_i + Eb_j) (T_d + gamma_n + 2 u53) + u53 |R|, n = products x k-blocks,
!             with |x| < 2^Ea_i over row i of A (2^Eb_j: column j of B), T_3 = 3.0e-8, T_6 = 3.9e-16;
!   native:   gamma_k (|A||B|)_ij + u53 |R|;
!   fp32x6:   (|A||B|)_ij (1.02 gamma_770 + 3.1 u24) + u24 |R| (tests/test_modes.cpp check_fp32).
! Complex (4M, docs/accuracy.md "Complex GEMM"): each part of each entry is one real dot product of length 2k over
! both parts, so the bounds above hold per part with k -> 2k, Ea_i and Eb_j over both parts and |A||B| the part's
! own sum of |products| (the native ZGEMM's too); n counts 3 more FP64 additions (the two of tests/test_modes.cpp
! and the chunk's, tests/test_complex.cpp), and CGEMM rounds P to FP32 before the write (one more u24 |A||B|).
! The calls also pass sizes that only a 64-bit reading gets right: LDA = 2^32 + 1 with K = 1 and LDC = 2^32 + 96
! with N = 1 are valid (only the first column is touched), while their low 32 bits (1, 96 < M) are not; and the
! error checks must see M = -2^32 + 96 as negative (its low 32 bits are 96) and hand XERBLA the reference's INFO
! as a 64-bit integer.
module xerbla_record
  implicit none
  character(len=6) :: last_name = '      '
  integer :: last_info = 0
end module xerbla_record

! The program's own XERBLA (exported with -rdynamic): the shim calls it, as the reference DGEMM would.
subroutine xerbla(srname, info)
  use xerbla_record
  implicit none
  character(len=*), intent(in) :: srname
  integer, intent(in) :: info
  last_name = srname(1:min(6, len(srname)))
  last_info = info
end subroutine xerbla

program ilp64_gemm
  use xerbla_record
  implicit none
  integer, parameter :: m = 96, n = 80, k = 64, qp = 16
  integer, parameter :: big_lda = 4294967297_8, big_ldc = 4294967392_8  ! 2^32 + 1, 2^32 + 96
  double precision :: a(m, k), b(k, n), bt(n, k), c(m, n), c1(m), a1(m, 1), b1(1, n), cw(m, n)
  real :: as(m, k), bs(k, n), cs(m, n)
  real(qp) :: r(m, n), absab(m, n), rs(m, n), absabs(m, n)
  character(len=16) :: mode
  double precision :: t_d, nprod, u53, u24, bound, worst
  integer :: i, j, l, fails, ea(m), eb(n)
  double precision :: zre(m, k), zim(m, k), wre(k, n), wim(k, n)
  complex(kind=8) :: za(m, k), zb(k, n), zbh(n, k), zc(m, n)
  complex :: ca(m, k), cb(k, n), cc(m, n)
  complex(qp) :: zr(m, n), cr(m, n)
  real(qp) :: zabs(2, m, n), cabs(2, m, n)
  integer :: eza(m), ezb(n)

  call get_command_argument(1, mode)
  u53 = 2.0d0**(-53)
  u24 = 2.0d0**(-24)
  select case (trim(mode))
  case ('fp64x6')
    t_d = 3.0d-8
    nprod = 6
  case ('fp64x21')
    t_d = 3.9d-16
    nprod = 21
  case ('native')
    t_d = -1
    nprod = 0
  case default
    print *, 'usage: ilp64_gemm fp64x6|fp64x21|native'
    stop 2
  end select
  fails = 0

  ! Uniform in (-1, 1) with every significand bit random; the float data are the doubles rounded to REAL.
  call random_seed(put=[(20261203 + i, i=1, 64)])
  call random_number(a)
  call random_number(b)
  a = 2 * a - 1
  b = 2 * b - 1
  bt = transpose(b)
  as = real(a)
  bs = real(b)
  do j = 1, n
    do i = 1, m
      r(i, j) = 0
      absab(i, j) = 0
      rs(i, j) = 0
      absabs(i, j) = 0
      do l = 1, k
        r(i, j) = r(i, j) + real(a(i, l), qp) * real(b(l, j), qp)
        absab(i, j) = absab(i, j) + abs(real(a(i, l), qp) * real(b(l, j), qp))
        rs(i, j) = rs(i, j) + real(as(i, l), qp) * real(bs(l, j), qp)
        absabs(i, j) = absabs(i, j) + abs(real(as(i, l), qp) * real(bs(l, j), qp))
      end do
    end do
  end do
  ! Scale exponents: |x| < 2^E, E = EXPONENT(max |x|) (a fraction in [0.5, 1) times 2^E).
  do i = 1, m
    ea(i) = exponent(maxval(abs(a(i, :))))
  end do
  do j = 1, n
    eb(j) = exponent(maxval(abs(b(:, j))))
  end do

  ! DGEMM C = A B^T' with B passed transposed ('T'), all sizes INTEGER*8.
  c = 0
  call dgemm('N', 'T', m, n, k, 1.0d0, a, m, bt, n, 0.0d0, c, m)
  worst = 0
  do j = 1, n
    do i = 1, m
      worst = max(worst, abs(c(i, j) - real(r(i, j), 8)) / dbound(i, j, k))
    end do
  end do
  call report('DGEMM N,T 96x80x64 ' // trim(mode), worst)

  ! SGEMM fp32x6 (BF16X_SGEMM_MODE from ilp64.sh).
  cs = 0
  call sgemm('N', 'N', m, n, k, 1.0, as, m, bs, k, 0.0, cs, m)
  worst = 0
  do j = 1, n
    do i = 1, m
      bound = real(absabs(i, j), 8) * (1.02d0 * 770 * u24 / (1 - 770 * u24) + 3.1d0 * u24) + &
              u24 * abs(real(rs(i, j), 8))
      worst = max(worst, abs(real(cs(i, j), 8) - real(rs(i, j), 8)) / bound)
    end do
  end do
  call report('SGEMM N,N 96x80x64 (fp32x6 bound)', worst)

  ! LDA = 2^32 + 1 with K = 1: only A(:, 1) is read. C = a1 b1 (outer product), bounds with k = 1.
  a1(:, 1) = a(:, 1)
  b1(1, :) = b(1, :)
  c = 0
  call dgemm('N', 'N', m, n, 1_8, 1.0d0, a1, big_lda, b1, 1_8, 0.0d0, c, m)
  worst = 0
  do j = 1, n
    do i = 1, m
      worst = max(worst, abs(c(i, j) - a1(i, 1) * b1(1, j)) / max(outer_bound(i, j), tiny(1.0d0)))
    end do
  end do
  call report('DGEMM LDA = 2^32 + 1, K = 1', worst)
  if (last_info /= 0) then
    print *, 'FAIL  LDA = 2^32 + 1 was rejected (INFO ', last_info, '): read as 32 bits?'
    fails = fails + 1
  end if

  ! LDC = 2^32 + 96 with N = 1: only C(:, 1) is written.
  c1 = 0
  call dgemm('N', 'N', m, 1_8, k, 1.0d0, a, m, b, k, 0.0d0, c1, big_ldc)
  worst = 0
  do i = 1, m
    worst = max(worst, abs(c1(i) - real(r(i, 1), 8)) / dbound(i, 1, k))
  end do
  call report('DGEMM LDC = 2^32 + 96, N = 1', worst)

  ! The complex data, drawn after the real ones: ZB is passed as its conjugate transpose ('C'); CA, CB are ZA, ZB
  ! rounded to single precision (each part).
  call random_number(zre)
  call random_number(zim)
  call random_number(wre)
  call random_number(wim)
  za = cmplx(2 * zre - 1, 2 * zim - 1, kind=8)
  zb = cmplx(2 * wre - 1, 2 * wim - 1, kind=8)
  zbh = conjg(transpose(zb))
  ca = cmplx(za, kind=4)
  cb = cmplx(zb, kind=4)
  do j = 1, n
    do i = 1, m
      call complex_ref(za(i, :), zb(:, j), zr(i, j), zabs(:, i, j))
      call complex_ref(cmplx(ca(i, :), kind=8), cmplx(cb(:, j), kind=8), cr(i, j), cabs(:, i, j))
    end do
  end do
  do i = 1, m
    eza(i) = exponent(max(maxval(abs(real(za(i, :)))), maxval(abs(aimag(za(i, :))))))
  end do
  do j = 1, n
    ezb(j) = exponent(max(maxval(abs(real(zb(:, j)))), maxval(abs(aimag(zb(:, j))))))
  end do

  ! ZGEMM C = A B with B passed conjugate-transposed ('C'), on DGEMM's mode.
  zc = 0
  call zgemm('N', 'C', m, n, k, (1.0d0, 0.0d0), za, m, zbh, n, (0.0d0, 0.0d0), zc, m)
  worst = 0
  do j = 1, n
    do i = 1, m
      worst = max(worst, abs(real(zc(i, j)) - real(real(zr(i, j)), 8)) / zbound(i, j, 1), &
                  abs(aimag(zc(i, j)) - real(aimag(zr(i, j)), 8)) / zbound(i, j, 2))
    end do
  end do
  call report('ZGEMM N,C 96x80x64 ' // trim(mode), worst)

  ! CGEMM fp32x6 (SGEMM's mode).
  cc = 0
  call cgemm('N', 'N', m, n, k, (1.0, 0.0), ca, m, cb, k, (0.0, 0.0), cc, m)
  worst = 0
  do j = 1, n
    do i = 1, m
      do l = 1, 2
        bound = real(cabs(l, i, j), 8) * (1.02d0 * 770 * u24 / (1 - 770 * u24) + 4.1d0 * u24) + &
                u24 * abs(real(part(cr(i, j), l), 8))
        worst = max(worst, abs(real(part(cmplx(cc(i, j), kind=qp), l), 8) - real(part(cr(i, j), l), 8)) / bound)
      end do
    end do
  end do
  call report('CGEMM N,N 96x80x64 (fp32x6 bound)', worst)

  ! Argument errors: XERBLA gets the reference INFO (64-bit) and C is left alone.
  cw = 7
  call expect_error('M = -2^32 + 96 (low 32 bits: 96)', -4294967200_8, m, 3_8)
  call expect_error('LDA = M - 1', m, m - 1, 8_8)
  call dgemm('N', 'N', m, n, k, 1.0d0, a, m, b, k, 0.0d0, cw, m - 1)
  call check_info('LDC = M - 1', 13_8)
  zc = (7.0d0, 7.0d0)
  call zgemm('N', 'N', m, n, k, (1.0d0, 0.0d0), za, m, zb, k - 1, (0.0d0, 0.0d0), zc, m)
  call check_info('ZGEMM LDB = K - 1', 10_8, 'ZGEMM ', all(zc == (7.0d0, 7.0d0)))

  if (fails > 0) then
    print *, 'ilp64_gemm: ', fails, ' check(s) FAILED'
    stop 1
  end if
  print *, 'ilp64_gemm: all checks passed'

contains

  ! The bound of this mode for entry (i, j) of a product with inner dimension kk.
  double precision function dbound(i, j, kk)
    integer, intent(in) :: i, j, kk
    double precision :: g
    if (t_d < 0) then
      g = kk * u53 / (1 - kk * u53)
      dbound = g * real(absab(i, j), 8) + u53 * abs(real(r(i, j), 8))
    else
      g = nprod * u53 / (1 - nprod * u53)
      dbound = kk * 2.0d0**(ea(i) + eb(j)) * (t_d + g + 2 * u53) + u53 * abs(real(r(i, j), 8))
    end if
  end function dbound

  ! The bound of this mode for part l (1: real, 2: imaginary) of entry (i, j) of ZA ZB (inner dimension 2k).
  double precision function zbound(i, j, l)
    integer, intent(in) :: i, j, l
    double precision :: g
    if (t_d < 0) then
      g = 2 * k * u53 / (1 - 2 * k * u53)
      zbound = g * real(zabs(l, i, j), 8) + u53 * abs(real(part(zr(i, j), l), 8))
    else
      g = (nprod + 3) * u53 / (1 - (nprod + 3) * u53)
      zbound = 2 * k * 2.0d0**(eza(i) + ezb(j)) * (t_d + g + 2 * u53) + u53 * abs(real(part(zr(i, j), l), 8))
    end if
  end function zbound

  real(qp) function part(z, l)
    complex(qp), intent(in) :: z
    integer, intent(in) :: l
    if (l == 1) then
      part = real(z, qp)
    else
      part = aimag(z)
    end if
  end function part

  ! r = sum x(l) y(l) exactly enough (REAL(16) products of doubles are exact), s = each part's sum of |products|.
  subroutine complex_ref(x, y, r, s)
    complex(kind=8), intent(in) :: x(:), y(:)
    complex(qp), intent(out) :: r
    real(qp), intent(out) :: s(2)
    real(qp) :: xr, xi, yr, yi
    integer :: l
    r = 0
    s = 0
    do l = 1, size(x)
      xr = real(x(l), qp)
      xi = real(aimag(x(l)), qp)
      yr = real(y(l), qp)
      yi = real(aimag(y(l)), qp)
      r = r + cmplx(xr * yr - xi * yi, xr * yi + xi * yr, kind=qp)
      s(1) = s(1) + abs(xr * yr) + abs(xi * yi)
      s(2) = s(2) + abs(xr * yi) + abs(xi * yr)
    end do
  end subroutine complex_ref

  double precision function outer_bound(i, j)
    integer, intent(in) :: i, j
    integer :: e1, e2
    e1 = exponent(abs(a1(i, 1)))
    e2 = exponent(abs(b1(1, j)))
    if (t_d < 0) then
      outer_bound = 2 * u53 * abs(a1(i, 1) * b1(1, j))
    else
      outer_bound = 2.0d0**(e1 + e2) * (t_d + nprod * u53 / (1 - nprod * u53) + 2 * u53) + &
                    u53 * abs(a1(i, 1) * b1(1, j))
    end if
  end function outer_bound

  subroutine report(what, ratio)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: ratio
    if (ratio <= 1) then
      write (*, '(a, a, a, es9.2, a)') 'ok    ', what, ': max |C - R| / bound = ', ratio, ' <= 1'
    else
      write (*, '(a, a, a, es9.2, a)') 'FAIL  ', what, ': max |C - R| / bound = ', ratio, ' > 1'
      fails = fails + 1
    end if
  end subroutine report

  subroutine expect_error(what, mm, lda, want)
    character(len=*), intent(in) :: what
    integer, intent(in) :: mm, lda, want
    call dgemm('N', 'N', mm, n, k, 1.0d0, a, lda, b, k, 0.0d0, cw, m)
    call check_info(what, want)
  end subroutine expect_error

  ! name: the routine XERBLA should name ('DGEMM ' unless given); untouched: C was left alone (cw unless given).
  subroutine check_info(what, want, name, untouched)
    character(len=*), intent(in) :: what
    integer, intent(in) :: want
    character(len=6), intent(in), optional :: name
    logical, intent(in), optional :: untouched
    character(len=6) :: want_name
    logical :: kept
    want_name = 'DGEMM '
    if (present(name)) want_name = name
    kept = all(cw == 7)
    if (present(untouched)) kept = untouched
    if (last_name == want_name .and. last_info == want .and. kept) then
      write (*, '(a, a, a, a, a, i0, a)') 'ok    ', what, ': XERBLA(''', want_name, ''', ', last_info, '), C untouched'
    else
      write (*, '(a, a, a, a, a, i0, a, i0)') 'FAIL  ', what, ': XERBLA(''', last_name, ''', ', last_info, &
                                              '), want ', want
      fails = fails + 1
    end if
    last_name = '      '
    last_info = 0
  end subroutine check_info

end program ilp64_gemm
