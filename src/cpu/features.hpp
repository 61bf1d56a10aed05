// Runtime CPU capability checks. None of these executes an instruction of the feature it tests. Each check covers
// every flag that cmake/isa.cmake gives the *_isa.cpp files called after it.
#pragma once

namespace bf16x::cpu {

// AVX2 and FMA in CPUID (leaf 1 ECX bits 12/28, leaf 7 EBX bit 5) and the YMM state enabled by the OS in XCR0
// (OSXSAVE, XCR0 bits 1 and 2).
bool has_avx2_fma();

// has_avx512() and AVX512-BF16 (CPUID.(7,1):EAX bit 5).
bool has_avx512bf16();

// has_avx512() and AVX512-VNNI (CPUID.(7,0):ECX bit 11).
bool has_avx512vnni();

// has_avx2_fma() and AVX512F + BW + VL + DQ (CPUID.(7,0):EBX bits 16/30/31/17) with the ZMM/opmask state in XCR0:
// the x86-64-v4 vector level.
bool has_avx512();

// The vector level of the *_avx2_isa.cpp / *_avx512_isa.cpp variants this CPU runs, resolved once, thread-safely.
enum class Level { generic, avx2, avx512 };
Level vector_level();

// The one of three variant tables (loops built per level) that vector_level() selects.
template <typename T>
const T& by_level(const T& generic, const T& avx2, const T& avx512) {
  switch (vector_level()) {
    case Level::avx512:
      return avx512;
    case Level::avx2:
      return avx2;
    default:
      return generic;
  }
}

// amx_available() and AMX-INT8 (CPUID.(7,0):EDX bit 25).
bool has_amx_int8();

// AMX-TILE + AMX-BF16 in CPUID.(7,0):EDX bits 24/22, XTILECFG/XTILEDATA enabled in XCR0 bits 17/18, and the
// Linux permission arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) granted. Evaluated once, thread-safely.
bool amx_available();

// Why amx_available() is false (for verbose output): "cpuid", "xcr0", "arch_prctl" or "" when available.
const char* amx_unavailable_reason();

// Test-only: the AMX gate also opens while `sigill_handler` (a sa_sigaction) is the process's SIGILL handler, so
// that the amx engines run their real machine code with each tile instruction's #UD executed in software by that
// handler (tests/amx_trap, docs/amx.md "Trap and emulate"). nullptr closes it again. Not exported from libbf16x.so
// (hidden visibility), so the shipped library's gate stays CPUID + XCR0 + arch_prctl; only programs linked with
// the internal library can call it.
void open_amx_gate_under_trap(void (*sigill_handler)(int, void*, void*));

}  // namespace bf16x::cpu
