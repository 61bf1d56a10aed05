#include "cpu/features.hpp"

#include <cpuid.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace bf16x::cpu {
namespace {

constexpr long kArchGetXcompPerm = 0x1022;
constexpr long kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

struct Leaf7 {
  unsigned ebx = 0, ecx = 0, edx = 0, eax1 = 0;  // eax1: CPUID.(7,1):EAX
};

bool cpuid_count(unsigned leaf, unsigned sub, unsigned& a, unsigned& b, unsigned& c, unsigned& d) {
  if (unsigned(__get_cpuid_max(0, nullptr)) < leaf) return false;
  __cpuid_count(leaf, sub, a, b, c, d);
  return true;
}

// CPUID and XCR0 as the process found them, read once: in a virtual machine each CPUID is an exit to the
// hypervisor (microseconds), and the engine checks run on every GEMM call.
struct Registers {
  bool leaf1 = false;
  unsigned leaf1_ecx = 0;
  Leaf7 l7;
  std::uint64_t xcr0 = 0;
};

Registers read_registers() {
  Registers r;
  unsigned a, b, c, d;
  if (cpuid_count(1, 0, a, b, c, d)) r.leaf1 = true, r.leaf1_ecx = c;
  if (cpuid_count(7, 0, a, b, c, d)) {
    r.l7.ebx = b;
    r.l7.ecx = c;
    r.l7.edx = d;
    if (a >= 1 && cpuid_count(7, 1, a, b, c, d)) r.l7.eax1 = a;
  }
  if (r.leaf1 && (r.leaf1_ecx & (1u << 27))) {  // OSXSAVE: XGETBV may run
    std::uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    r.xcr0 = (std::uint64_t(hi) << 32) | lo;
  }
  return r;
}

const Registers& registers() {
  static const Registers r = read_registers();  // C++11 magic static: once, thread-safe
  return r;
}

std::uint64_t xcr0() { return registers().xcr0; }

const Leaf7& leaf7() { return registers().l7; }

const char* probe_amx() {
  const Leaf7& l = leaf7();
  const bool tile = l.edx & (1u << 24), bf16 = l.edx & (1u << 22);
  if (!tile || !bf16) return "cpuid";
  const std::uint64_t x = xcr0();
  if ((x & (3ull << 17)) != (3ull << 17)) return "xcr0";
  // Ask the kernel for permission to use the large tile-data state; already granted is fine.
  unsigned long bitmask = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &bitmask) == 0 && (bitmask & (1ul << kXfeatureXtiledata))) return "";
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) return "arch_prctl";
  bitmask = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &bitmask) != 0 || !(bitmask & (1ul << kXfeatureXtiledata)))
    return "arch_prctl";
  return "";
}

const char* amx_reason() {
  static const char* const reason = probe_amx();  // C++11 magic static: once, thread-safe
  return reason;
}

}  // namespace

bool has_avx2_fma() {
  if (!registers().leaf1) return false;
  const unsigned c = registers().leaf1_ecx;
  const bool fma = c & (1u << 12), avx = c & (1u << 28);
  const bool avx2 = leaf7().ebx & (1u << 5);
  const bool ymm_state = (xcr0() & 0x6) == 0x6;  // SSE, AVX
  return fma && avx && avx2 && ymm_state;
}

bool has_avx512() {
  const Leaf7& l = leaf7();
  const bool f = l.ebx & (1u << 16), dq = l.ebx & (1u << 17), bw = l.ebx & (1u << 30), vl = l.ebx & (1u << 31);
  const bool zmm_state = (xcr0() & 0xe6) == 0xe6;  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
  return f && dq && bw && vl && zmm_state && has_avx2_fma();
}

Level vector_level() {
  static const Level level = has_avx512() ? Level::avx512 : has_avx2_fma() ? Level::avx2 : Level::generic;
  return level;
}

bool has_avx512bf16() { return has_avx512() && (leaf7().eax1 & (1u << 5)); }

bool has_avx512vnni() { return has_avx512() && (leaf7().ecx & (1u << 11)); }

namespace {

std::atomic<void (*)(int, void*, void*)> trap_handler{nullptr};

// The test-only gate (open_amx_gate_under_trap): open while its handler is the SIGILL handler installed now.
bool under_trap() {
  const auto h = trap_handler.load(std::memory_order_acquire);
  if (!h) return false;
  struct sigaction now {};
  return sigaction(SIGILL, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
         reinterpret_cast<void (*)(int, void*, void*)>(now.sa_sigaction) == h;
}

}  // namespace

bool has_amx_int8() { return under_trap() || ((leaf7().edx & (1u << 25)) && amx_reason()[0] == '\0'); }

bool amx_available() { return under_trap() || amx_reason()[0] == '\0'; }

const char* amx_unavailable_reason() { return under_trap() ? "" : amx_reason(); }

void open_amx_gate_under_trap(void (*sigill_handler)(int, void*, void*)) {
  trap_handler.store(sigill_handler, std::memory_order_release);
}

}  // namespace bf16x::cpu
