! DGEMM and SGEMM through the ILP64 BLAS interface (compiled with -fdefault-integer-8: every INTEGER, sizes and
! INFO included, is 64-bit), run by ilp64.sh against Debian's libblas64 with libbf16x_blas64.so preloaded.
! The reference is computed here in REAL(16): products of doubles are exact there (106 <= 113 bits) and 64 sums
! add at most 64 u113 relative to |A||B|, negligible against every bound below.
!   ilp64_gemm MODE   with MODE fp64x6 / fp64x21 / native (DGEMM; SGEMM runs fp32x6 in every case).
! Bounds (docs/numerics.md, tests/python/conftest.py):
!   fp64x<d>: |C - R| <= k 2^(Ea_i + Eb_j) (T_d + gamma_n + 2 u53) + u53 |R|, n = products x k-blocks,
!             with |x| < 2^Ea_i over row i of A (2^Eb_j: column j of B), T_3 = 3.0e-8, T_6 = 3.9e-16;
!   native:   gamma_k (|A||B|)_ij + u53 |R|;
!   fp32x6:   (|A||B|)_ij (1.02 gamma_770 + 3.1 u24) + u24 |R| (tests/test_modes.cpp check_fp32).
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

  ! Argument errors: XERBLA gets the reference INFO (64-bit) and C is left alone.
  cw = 7
  call expect_error('M = -2^32 + 96 (low 32 bits: 96)', -4294967200_8, m, 3_8)
  call expect_error('LDA = M - 1', m, m - 1, 8_8)
  call dgemm('N', 'N', m, n, k, 1.0d0, a, m, b, k, 0.0d0, cw, m - 1)
  call check_info('LDC = M - 1', 13_8)

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

  subroutine check_info(what, want)
    character(len=*), intent(in) :: what
    integer, intent(in) :: want
    if (last_name == 'DGEMM ' .and. last_info == want .and. all(cw == 7)) then
      write (*, '(a, a, a, i0, a)') 'ok    ', what, ': XERBLA(''DGEMM '', ', last_info, '), C untouched'
    else
      write (*, '(a, a, a, a, a, i0, a, i0)') 'FAIL  ', what, ': XERBLA(''', last_name, ''', ', last_info, &
                                              '), want ', want
      fails = fails + 1
    end if
    last_name = '      '
    last_info = 0
  end subroutine check_info

end program ilp64_gemm
