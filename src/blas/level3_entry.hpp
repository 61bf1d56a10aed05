// The body of every level-3 entry point beside GEMM, for every routine (SYRK, HERK, SYR2K, HER2K, SYMM, HEMM, TRMM,
// TRSM, GEMMT), call type (s, d, c, z: call_type.hpp), integer model (LP64 int, ILP64 std::int64_t) and interface
// (Fortran, CBLAS): one generic body, and per routine a description (its argument list, from which the exported
// prototype, the reference checks and INFO numbers and the forwarding follow: level3_check.hpp) and the C API
// routine that computes it. As for GEMM (gemm_entry.hpp): a re-entered call goes straight to the next definition of
// the same name; otherwise the reference checks, the reference quick return, the mode choice, then the library or
// the next definition with the caller's own arguments.
#pragma once
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "bf16x/bf16x.h"
#include "blas/call_type.hpp"
#include "blas/dispatch.hpp"
#include "blas/level3_check.hpp"
#include "blas/next_blas.hpp"
#include "blas/reentry.hpp"
#include "blas/xerbla.hpp"

namespace bf16x::blas {

// A checked level-3 call in its column-major Fortran view (the reference's: a row-major CBLAS call as reference
// CBLAS hands it to the Fortran routine), with the caller's alpha and beta (HERK's real ones as complex numbers).
template <typename T>
struct Level3Call {
  Level3Shape s;
  T alpha{}, beta{};
  const T* a = nullptr;
  const T* b = nullptr;
  T* c = nullptr;  // C, or TRMM/TRSM's B
  bool row_major = false;
};

namespace level3 {

// The C API routine of call type T among the four (nullptr where the routine has no such type: HERK of s and d).
template <typename T, typename Fs, typename Fd, typename Fc, typename Fz>
constexpr auto pick(Fs s, Fd d, Fc c, Fz z) {
  if constexpr (std::is_same_v<T, float>)
    return s;
  else if constexpr (std::is_same_v<T, double>)
    return d;
  else if constexpr (std::is_same_v<T, bf16x_complex_float>)
    return c;
  else
    return z;
}
using enum Arg;

// The descriptions of each family (level3_check.hpp): the argument lists of the reference routines.
constexpr Level3Spec describe(const char* name, Family family, RowTrans row_trans, const char* trans_real,
                              const char* trans_complex, int row_uplo_info, std::initializer_list<Arg> args) {
  Level3Spec r{name, family, row_trans, trans_real, trans_complex, row_uplo_info, {}, int(args.size())};
  int i = 0;
  for (const Arg a : args) r.args[i++] = a;
  return r;
}
constexpr Level3Spec rank_update(const char* name, bool two, bool hermitian) {
  const RowTrans t = hermitian ? RowTrans::ConjTrans : RowTrans::Transpose;
  const char *real = hermitian ? nullptr : "NTC", *complex = hermitian ? "NC" : "NT";
  const int row_uplo = hermitian && two ? 2 : 3;  // reference CBLAS's number for a bad row-major Uplo
  if (two)
    return describe(name, Family::Rank, t, real, complex, row_uplo,
                    {Uplo, Trans, N, K, Alpha, A, Lda, B, Ldb, Beta, C, Ldc});
  return describe(name, Family::Rank, t, real, complex, row_uplo, {Uplo, Trans, N, K, Alpha, A, Lda, Beta, C, Ldc});
}
constexpr Level3Spec symmetric(const char* name) {
  return describe(name, Family::Symmetric, RowTrans::Same, nullptr, nullptr, 3,
                  {Side, Uplo, M, N, Alpha, A, Lda, B, Ldb, Beta, C, Ldc});
}
constexpr Level3Spec triangular(const char* name) {
  return describe(name, Family::Triangular, RowTrans::Same, "NTC", "NTC", 3,
                  {Side, Uplo, Trans, Diag, M, N, Alpha, A, Lda, BInOut, Ldb});
}
constexpr Level3Spec gemmt_spec() {
  return describe("gemmt", Family::Gemmt, RowTrans::Same, "NTC", "NTC", 2,
                  {Uplo, Trans, TransB, N, K, Alpha, A, Lda, B, Ldb, Beta, C, Ldc});
}

// The routines: the description, which scalars are real (HERK's alpha and beta, HER2K's beta) and the C API routine
// of each call type (api<T>).
#define BF16X_L3_ROUTINE(r, description, real_a, real_b, fs, fd, fc, fz) \
  struct r {                                                             \
    static constexpr Level3Spec spec = description;                      \
    static constexpr bool real_alpha = real_a, real_beta = real_b;       \
    template <typename T>                                                \
    static constexpr auto api = pick<T>(fs, fd, fc, fz);                 \
  };
BF16X_L3_ROUTINE(syrk, rank_update("syrk", false, false), false, false, bf16x_ssyrk_ex, bf16x_dsyrk_ex, bf16x_csyrk_ex,
                 bf16x_zsyrk_ex)
BF16X_L3_ROUTINE(herk, rank_update("herk", false, true), true, true, nullptr, nullptr, bf16x_cherk_ex, bf16x_zherk_ex)
BF16X_L3_ROUTINE(syr2k, rank_update("syr2k", true, false), false, false, bf16x_ssyr2k_ex, bf16x_dsyr2k_ex,
                 bf16x_csyr2k_ex, bf16x_zsyr2k_ex)
BF16X_L3_ROUTINE(her2k, rank_update("her2k", true, true), false, true, nullptr, nullptr, bf16x_cher2k_ex,
                 bf16x_zher2k_ex)
BF16X_L3_ROUTINE(symm, symmetric("symm"), false, false, bf16x_ssymm_ex, bf16x_dsymm_ex, bf16x_csymm_ex, bf16x_zsymm_ex)
BF16X_L3_ROUTINE(hemm, symmetric("hemm"), false, false, nullptr, nullptr, bf16x_chemm_ex, bf16x_zhemm_ex)
BF16X_L3_ROUTINE(trmm, triangular("trmm"), false, false, bf16x_strmm_ex, bf16x_dtrmm_ex, bf16x_ctrmm_ex, bf16x_ztrmm_ex)
BF16X_L3_ROUTINE(trsm, triangular("trsm"), false, false, bf16x_strsm_ex, bf16x_dtrsm_ex, bf16x_ctrsm_ex, bf16x_ztrsm_ex)
BF16X_L3_ROUTINE(gemmt, gemmt_spec(), false, false, bf16x_sgemmt_ex, bf16x_dgemmt_ex, bf16x_cgemmt_ex, bf16x_zgemmt_ex)
#undef BF16X_L3_ROUTINE

// The call of routine R's C API routine with the caller's arguments (l: level3_library_call; the pointers of c).
template <typename R, typename T>
int run(const Level3LibraryCall& l, const Level3Call<T>& c, const bf16x_options* o) {
  using Real = typename CallType<T>::Real;
  const auto alpha = [&] {
    if constexpr (R::real_alpha)
      return Real(real_part(c.alpha));
    else
      return c.alpha;
  }();
  const auto beta = [&] {
    if constexpr (R::real_beta)
      return Real(real_part(c.beta));
    else
      return c.beta;
  }();
  constexpr auto f = R::template api<T>;
  const Level3Shape& s = l.s;
  if constexpr (R::spec.family == Family::Rank && !two_products(R::spec))  // SYRK, HERK
    return f(l.layout(), l.uplo(), l.trans(), s.n, s.k, alpha, c.a, s.lda, beta, c.c, s.ldc, o);
  else if constexpr (R::spec.family == Family::Rank)  // SYR2K, HER2K
    return f(l.layout(), l.uplo(), l.trans(), s.n, s.k, alpha, c.a, s.lda, c.b, s.ldb, beta, c.c, s.ldc, o);
  else if constexpr (R::spec.family == Family::Symmetric)
    return f(l.layout(), l.side(), l.uplo(), s.m, s.n, alpha, c.a, s.lda, c.b, s.ldb, beta, c.c, s.ldc, o);
  else if constexpr (R::spec.family == Family::Triangular)
    return f(l.layout(), l.side(), l.uplo(), l.trans(), l.diag(), s.m, s.n, alpha, c.a, s.lda, c.c, s.ldb, o);
  else  // GEMMT: a row-major call's column-major A is the caller's B (level3_library_call swaps lda and ldb back)
    return f(l.layout(), l.uplo(), l.trans(), l.transb(), s.n, s.k, alpha, l.swap_ab ? c.b : c.a, s.lda,
             l.swap_ab ? c.a : c.b, s.ldb, beta, c.c, s.ldc, o);
}

// "dsyrk" and the XERBLA name "DSYRK " (blank-padded to 6) of routine R for call type T.
template <typename R, typename T>
constexpr std::array<char, 8> routine_name(bool fortran) {
  std::array<char, 8> s{};
  s[0] = CallType<T>::name[0];
  int i = 1;
  for (const char* p = R::spec.name; *p; ++p) s[i++] = *p;
  if (fortran) {
    for (int j = 0; j < i; ++j) s[j] = fortran_upper(s[j]);
    for (; i < 6; ++i) s[i] = ' ';
  }
  return s;
}

template <std::size_t>
using Length = std::size_t;  // a hidden character length

enum class Api { fortran, cblas };

template <typename R, typename T, typename Forward>
void dispatch(const Level3Call<T>& c, const char* routine, Forward&& forward);

// Entry<R, T, Int, Api>: the exported entry point's parameter types (P<i>, from R's argument list) and its body.
template <typename R, typename T, typename Int, Api I>
struct Entry {
  using Real = typename CallType<T>::Real;
  using AlphaT = std::conditional_t<R::real_alpha, Real, T>;
  using BetaT = std::conditional_t<R::real_beta, Real, T>;
  static constexpr bool fortran = I == Api::fortran;
  static constexpr int nparams = R::spec.nargs + (fortran ? 0 : 1);
  static constexpr std::array<char, 8> name = routine_name<R, T>(false), name6 = routine_name<R, T>(true);

  static constexpr Arg kind(std::size_t i) { return fortran ? R::spec.args[i] : i == 0 ? Layout : R::spec.args[i - 1]; }
  template <Arg X>
  static constexpr auto param() {
    if constexpr (X == A || X == B)
      return std::type_identity<const T*>{};
    else if constexpr (X == C || X == BInOut)
      return std::type_identity<T*>{};
    else if constexpr (X == Alpha)
      return std::type_identity<std::conditional_t<fortran, const AlphaT*, CblasScalar<AlphaT>>>{};
    else if constexpr (X == Beta)
      return std::type_identity<std::conditional_t<fortran, const BetaT*, CblasScalar<BetaT>>>{};
    else if constexpr (X == M || X == N || X == K || X == Lda || X == Ldb || X == Ldc)
      return std::type_identity<std::conditional_t<fortran, const Int*, Int>>{};
    else  // the layout and the character arguments: CBLAS enumerators (int) or Fortran CHARACTER*1
      return std::type_identity<std::conditional_t<fortran, const char*, int>>{};
  }
  template <std::size_t i>
  using P = typename decltype(param<kind(i)>())::type;

  template <typename S>
  static T widen(const S& x) {
    if constexpr (std::is_same_v<S, T>)
      return x;
    else
      return T{x, S(0)};
  }
  // An argument of kind X into the call, or, for CBLAS enumerators, into the raw ones.
  template <Arg X, typename V>
  static void read(Level3Call<T>& c, CblasLevel3Enums& e, V v) {
    const auto value = [v] {
      if constexpr (fortran)
        return *v;
      else if constexpr (X == Alpha)
        return scalar_value<AlphaT>(v);
      else if constexpr (X == Beta)
        return scalar_value<BetaT>(v);
      else
        return v;
    };
    if constexpr (X <= Diag) {  // a character argument: its slot in the Fortran view, or the raw enumerator
      constexpr CharacterSlot slot = character_slot(X);
      if constexpr (fortran)
        c.s.*slot.fortran = fortran_upper(value());
      else
        e.*slot.cblas = value();
    }
    if constexpr (X == Layout) e.layout = value();
    if constexpr (X == M) c.s.m = value();
    if constexpr (X == N) c.s.n = value();
    if constexpr (X == K) c.s.k = value();
    if constexpr (X == Lda) c.s.lda = value();
    if constexpr (X == Ldb) c.s.ldb = value();
    if constexpr (X == Ldc) c.s.ldc = value();
    if constexpr (X == Alpha) c.alpha = widen(value());
    if constexpr (X == Beta) c.beta = widen(value());
    if constexpr (X == A) c.a = v;
    if constexpr (X == B) c.b = v;
    if constexpr (X == C || X == BInOut) c.c = v;
  }
  template <std::size_t... i, typename... Ps>
  static void read_all(std::index_sequence<i...>, Level3Call<T>& c, CblasLevel3Enums& e, Ps... p) {
    (read<kind(i)>(c, e, p), ...);
  }

  // The next definition of the entry point's name with the caller's own arguments (Fortran: and the hidden lengths
  // of its character arguments, CHARACTER*1, as 1).
  template <std::size_t... j, typename... Ps>
  static void call_next(void* fn, std::index_sequence<j...>, Ps... p) {
    reinterpret_cast<void (*)(Ps..., Length<j>...)>(fn)(p..., Length<j>(1)...);
  }
  static constexpr std::size_t character_arguments() {
    std::size_t n = 0;
    for (int i = 0; i < R::spec.nargs; ++i) n += R::spec.args[i] <= Diag;
    return n;
  }

  template <typename... Ps>
  static void call(NextDefinition& next, const ErrorHandlers& errors, Ps... p) {
    static_assert(sizeof...(Ps) == nparams);
    constexpr std::size_t lengths = fortran ? character_arguments() : 0;
    const auto forward = [&]() -> const void* {
      void* fn = find_next(next);
      if (!fn) return nullptr;
      call_next(fn, std::make_index_sequence<lengths>{}, p...);
      return fn;
    };
    if (ShimScope::active()) {
      if (!forward()) no_next_definition(fortran ? name6.data() : next.name);
      return;
    }
    Level3Call<T> c{};
    CblasLevel3Enums e{};
    read_all(std::make_index_sequence<nparams>{}, c, e, p...);
    if constexpr (fortran) {
      if (const int info = fortran_level3_info(R::spec, is_complex<T>, c.s)) {
        if (verbose())
          verbose_level3_rejected(verbose_call(c.alpha, c.beta), R::spec, c.s, false, R::spec.args[info - 1],
                                  fortran_reported(name6.data(), info));
        report_fortran(name6.data(), info, errors);
        return;
      }
    } else {
      CblasError error{};
      Arg bad{};
      const auto shape = cblas_level3_shape(R::spec, is_complex<T>, e, c.s, next.name, &error, &bad);
      if (!shape) {
        if (verbose())
          verbose_level3_rejected(verbose_call(c.alpha, c.beta), R::spec, cblas_as_made(R::spec, e, c.s),
                                  e.layout == 101, bad, cblas_reported(error, errors));
        report_cblas(error, errors);
        return;
      }
      c.s = *shape;
      c.row_major = e.layout == 101;
      if (c.row_major && R::spec.family == Family::Gemmt) std::swap(c.a, c.b);  // the column-major call's A and B
    }
    dispatch<R>(c, name.data(), forward);
  }
};

// The checked call: the reference quick return, the mode choice, then the library or the next definition.
template <typename R, typename T, typename Forward>
void dispatch(const Level3Call<T>& c, const char* routine, Forward&& forward) {
  const bool alpha_zero = real_part(c.alpha) == 0 && imag_part(c.alpha) == 0;
  const bool beta_one = real_part(c.beta) == 1 && imag_part(c.beta) == 0;
  if (level3_quick_return(R::spec, c.s, alpha_zero, beta_one)) return;
  const ShimScope scope;
  const Level3LibraryCall call = level3_library_call(R::spec, c.s, c.row_major);
  const auto run = [&](int mode) {
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    return level3::run<R>(call, c, &o);
  };
  if (level3_no_product(R::spec, c.s, alpha_zero)) {
    // C = beta C (B = 0) by the library itself, as for GEMM: a host kernel may read A and B all the same.
    if (run(BF16X_MODE_NATIVE) != BF16X_OK) no_next_definition(routine);
    return;
  }
  const GemmDims d = level3_gemm_dims(R::spec, c.s);
  const int mode = emulation_mode(GemmShape{'N', 'N', d.m, d.n, d.k, 1, 1, 1}, is_double<T>);
  int declined = BF16X_OK;  // or the library's status where it declined the emulation
  if (mode != BF16X_MODE_NATIVE) {
    declined = run(mode);
    if (declined == BF16X_OK) return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const void* fn = forward();
  if (!fn) {
    if (run(BF16X_MODE_NATIVE) != BF16X_OK) no_next_definition(routine);
    return;
  }
  if (verbose())
    verbose_level3_forwarded(verbose_call(c.alpha, c.beta), R::spec, call, fn, declined,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace level3
}  // namespace bf16x::blas

// The exported entry points. BF16X_BLAS_LEVEL3(routine, api, T, Int, symbol, handlers): the entry point `symbol` of
// level3::routine for call type T and integer Int, Fortran (api fortran) or CBLAS (api cblas), forwarding to the next
// definition of its own name and reporting errors to `handlers` (xerbla.hpp). Its parameters are those of the
// routine's argument list (Entry::P), as many as BF16X_L3_ARITY_<api>_<routine> says.
#define BF16X_L3_ARITY_fortran_syrk 10
#define BF16X_L3_ARITY_fortran_herk 10
#define BF16X_L3_ARITY_fortran_trmm 11
#define BF16X_L3_ARITY_fortran_trsm 11
#define BF16X_L3_ARITY_fortran_syr2k 12
#define BF16X_L3_ARITY_fortran_her2k 12
#define BF16X_L3_ARITY_fortran_symm 12
#define BF16X_L3_ARITY_fortran_hemm 12
#define BF16X_L3_ARITY_fortran_gemmt 13
#define BF16X_L3_ARITY_cblas_syrk 11
#define BF16X_L3_ARITY_cblas_herk 11
#define BF16X_L3_ARITY_cblas_trmm 12
#define BF16X_L3_ARITY_cblas_trsm 12
#define BF16X_L3_ARITY_cblas_syr2k 13
#define BF16X_L3_ARITY_cblas_her2k 13
#define BF16X_L3_ARITY_cblas_symm 13
#define BF16X_L3_ARITY_cblas_hemm 13
#define BF16X_L3_ARITY_cblas_gemmt 14

#define BF16X_L3_PARAMS_10(E) \
  E::P<0> p0, E::P<1> p1, E::P<2> p2, E::P<3> p3, E::P<4> p4, E::P<5> p5, E::P<6> p6, E::P<7> p7, E::P<8> p8, E::P<9> p9
#define BF16X_L3_PARAMS_11(E) BF16X_L3_PARAMS_10(E), E::P<10> p10
#define BF16X_L3_PARAMS_12(E) BF16X_L3_PARAMS_11(E), E::P<11> p11
#define BF16X_L3_PARAMS_13(E) BF16X_L3_PARAMS_12(E), E::P<12> p12
#define BF16X_L3_PARAMS_14(E) BF16X_L3_PARAMS_13(E), E::P<13> p13
#define BF16X_L3_ARGS_10 p0, p1, p2, p3, p4, p5, p6, p7, p8, p9
#define BF16X_L3_ARGS_11 BF16X_L3_ARGS_10, p10
#define BF16X_L3_ARGS_12 BF16X_L3_ARGS_11, p11
#define BF16X_L3_ARGS_13 BF16X_L3_ARGS_12, p12
#define BF16X_L3_ARGS_14 BF16X_L3_ARGS_13, p13
#define BF16X_L3_CAT_(a, b) a##b
#define BF16X_L3_CAT(a, b) BF16X_L3_CAT_(a, b)

#define BF16X_BLAS_LEVEL3(routine, api, T, Int, symbol, handlers)                                                     \
  namespace bf16x_blas_entries {                                                                                      \
  using symbol =                                                                                                      \
      ::bf16x::blas::level3::Entry<::bf16x::blas::level3::routine, T, Int, ::bf16x::blas::level3::Api::api>;          \
  }                                                                                                                   \
  extern "C" __attribute__((visibility("default"))) void symbol(                                                      \
      BF16X_L3_CAT(BF16X_L3_PARAMS_, BF16X_L3_ARITY_##api##_##routine)(bf16x_blas_entries::symbol)) {                 \
    static ::bf16x::blas::NextDefinition next{#symbol};                                                               \
    bf16x_blas_entries::symbol::call(next, handlers, BF16X_L3_CAT(BF16X_L3_ARGS_, BF16X_L3_ARITY_##api##_##routine)); \
  }

// X(routine, ROUTINE, p, P, T) for every level-3 routine beside GEMM and every call type T it has (p: its letter).
// clang-format off
#define BF16X_LEVEL3_OF(X, p, P, T) \
  X(syrk, SYRK, p, P, T)            \
  X(syr2k, SYR2K, p, P, T)          \
  X(symm, SYMM, p, P, T)            \
  X(trmm, TRMM, p, P, T)            \
  X(trsm, TRSM, p, P, T)            \
  X(gemmt, GEMMT, p, P, T)
#define BF16X_LEVEL3_HERMITIAN_OF(X, p, P, T) \
  X(herk, HERK, p, P, T)                      \
  X(her2k, HER2K, p, P, T)                    \
  X(hemm, HEMM, p, P, T)
#define BF16X_LEVEL3_EACH(X)                                 \
  BF16X_LEVEL3_OF(X, s, S, float)                            \
  BF16X_LEVEL3_OF(X, d, D, double)                           \
  BF16X_LEVEL3_OF(X, c, C, bf16x_complex_float)              \
  BF16X_LEVEL3_HERMITIAN_OF(X, c, C, bf16x_complex_float)    \
  BF16X_LEVEL3_OF(X, z, Z, bf16x_complex_double)             \
  BF16X_LEVEL3_HERMITIAN_OF(X, z, Z, bf16x_complex_double)
// clang-format on

// Another exported name of the Fortran entry point `symbol` of routine for T and Int (the same function).
#define BF16X_BLAS_LEVEL3_ALIAS(routine, T, Int, name, symbol)                 \
  extern "C" __attribute__((visibility("default"), alias(#symbol))) void name( \
      BF16X_L3_CAT(BF16X_L3_PARAMS_, BF16X_L3_ARITY_fortran_##routine)(bf16x_blas_entries::symbol));
