#include "amx_trap.hpp"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cpu/features.hpp"
#include "engine/amx/tile_model.hpp"

namespace bf16x::amx_trap {
namespace {

using engine::amx::TileConfig;
using engine::amx::TileFault;
using engine::amx::TileModel;

// This thread's tile state. In the executable's static TLS (no lazy allocation inside the handler).
thread_local TileModel tls_tiles;

std::atomic<std::uint64_t> g_counts[std::size_t(Op::count)];
struct sigaction g_previous;
bool g_installed = false;

// The general registers in the x86 numbering (ModRM / SIB / VEX) -> the signal context's gregs.
constexpr int kGreg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                           REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

// Fail loudly: the message and the faulting bytes to stderr, then abort (formatted on the stack, written by write:
// no allocation and no stdio stream inside the handler).
[[noreturn]] void fail(const char* what, const std::uint8_t* code, const char* detail = "") {
  char line[256];
  int n = std::snprintf(line, sizeof line, "amx_trap: %s%s%s at %p:", what, detail[0] ? ": " : "", detail,
                        static_cast<const void*>(code));
  for (int i = 0; i < 8 && n < int(sizeof line) - 4; ++i)
    n += std::snprintf(line + n, sizeof line - n, " %02x", code[i]);
  n += std::snprintf(line + n, sizeof line - n, "\n");
  if (write(2, line, std::size_t(n)) < 0) _exit(134);
  abort();
}

// ModRM (+ SIB, displacement) at p, in 64-bit mode with VEX.R/X/B (already un-inverted). Returns the bytes used.
int decode_modrm(const std::uint8_t* p, int rex_x, int rex_b, int& mod, int& reg, int& rm, MemOperand& mem) {
  const std::uint8_t modrm = p[0];
  mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  int used = 1;
  if (mod == 3) return used;
  int disp_bytes = mod == 1 ? 1 : mod == 2 ? 4 : 0;
  if (rm == 4) {  // SIB
    const std::uint8_t sib = p[used++];
    const int index = ((sib >> 3) & 7) | (rex_x << 3), base = (sib & 7) | (rex_b << 3);
    mem.scale = 1 << (sib >> 6);
    mem.index = index == 4 ? -1 : index;  // rsp cannot be an index: none
    if ((sib & 7) == 5 && mod == 0) {
      mem.base = -1;  // disp32, no base
      disp_bytes = 4;
    } else {
      mem.base = base;
    }
  } else if (rm == 5 && mod == 0) {
    mem.rip = true;
    disp_bytes = 4;
  } else {
    mem.base = rm | (rex_b << 3);
  }
  if (disp_bytes == 1) mem.disp = std::int8_t(p[used]);
  if (disp_bytes == 4) {
    std::int32_t d;
    std::memcpy(&d, p + used, 4);
    mem.disp = d;
  }
  return used + disp_bytes;
}

std::uint64_t address(const MemOperand& m, const greg_t* g, std::uint64_t next_rip) {
  std::uint64_t a = m.rip ? next_rip : m.base >= 0 ? std::uint64_t(g[kGreg[m.base]]) : 0;
  return a + std::uint64_t(m.disp);
}

void execute(const Decoded& d, const std::uint8_t* code, greg_t* g) {
  const std::uint64_t next = std::uint64_t(g[REG_RIP]) + std::uint64_t(d.length);
  TileModel& t = tls_tiles;
  const auto stride = [&] { return d.mem.index >= 0 ? std::size_t(g[kGreg[d.mem.index]]) * d.mem.scale : 0; };
  try {
    switch (d.op) {
      case Op::ldtilecfg: {
        const engine::amx::ConfigError e = t.load_config(reinterpret_cast<const void*>(address(d.mem, g, next)));
        if (e != engine::amx::ConfigError::none && e != engine::amx::ConfigError::palette)
          fail("ldtilecfg #GP", code, engine::amx::config_error_name(e));
        break;
      }
      case Op::sttilecfg: {
        const TileConfig c = t.config();
        std::memcpy(reinterpret_cast<void*>(address(d.mem, g, next)), &c, sizeof c);
        break;
      }
      case Op::tilerelease:
        t.release();
        break;
      case Op::tilezero:
        t.zero_tile(d.tile);
        break;
      case Op::tileloadd:
      case Op::tileloaddt1:
        t.load_tile(d.tile, reinterpret_cast<const void*>(address(d.mem, g, next)), stride());
        break;
      case Op::tilestored:
        t.store_tile(d.tile, reinterpret_cast<void*>(address(d.mem, g, next)), stride());
        break;
      case Op::tdpbf16ps:
        t.dpbf16ps_tiles(d.tile, d.src1, d.src2);
        break;
      case Op::tdpbssd:
      case Op::tdpbsud:
      case Op::tdpbusd:
      case Op::tdpbuud:
        t.dp_int8_tiles(d.tile, d.src1, d.src2, d.op == Op::tdpbssd || d.op == Op::tdpbsud,
                        d.op == Op::tdpbssd || d.op == Op::tdpbusd);
        break;
      default:
        fail("unknown instruction", code);
    }
  } catch (const TileFault& e) {  // the model's #UD (never thrown on the paths that pass)
    fail("tile fault", code, e.what());
  }
  g_counts[std::size_t(d.op)].fetch_add(1, std::memory_order_relaxed);
  g[REG_RIP] = greg_t(next);
}

void on_sigill(int, siginfo_t*, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* g = uc->uc_mcontext.gregs;
  const auto* code = reinterpret_cast<const std::uint8_t*>(g[REG_RIP]);
  const Decoded d = decode(code);
  if (d.op == Op::unknown) fail("unknown instruction (not AMX)", code);
  execute(d, code, g);
}

}  // namespace

const char* op_name(Op op) {
  static const char* const names[] = {"unknown",   "ldtilecfg",   "sttilecfg",  "tilerelease", "tilezero",
                                      "tileloadd", "tileloaddt1", "tilestored", "tdpbf16ps",   "tdpbssd",
                                      "tdpbsud",   "tdpbusd",     "tdpbuud"};
  static_assert(sizeof names / sizeof names[0] == std::size_t(Op::count));
  return names[std::size_t(op)];
}

// The AMX instructions: VEX.128 (3-byte C4 form: map 0F38, W0, L0), opcode 49 / 4B / 5C / 5E, prefix in VEX.pp.
Decoded decode(const std::uint8_t* code) {
  Decoded d;
  if (code[0] != 0xc4) return d;
  const std::uint8_t p1 = code[1], p2 = code[2];
  const int rex_r = !(p1 & 0x80), rex_x = !(p1 & 0x40), rex_b = !(p1 & 0x20), map = p1 & 0x1f;
  const int w = p2 >> 7, vvvv = (~p2 >> 3) & 0xf, l = (p2 >> 2) & 1, pp = p2 & 3;  // pp: 0 NP, 1 66, 2 F3, 3 F2
  if (map != 2 || w != 0 || l != 0) return d;
  const std::uint8_t opcode = code[3];
  int mod, reg, rm;
  MemOperand mem;
  const int modrm_bytes = decode_modrm(code + 4, rex_x, rex_b, mod, reg, rm, mem);
  d.length = 4 + modrm_bytes;
  const bool memory = mod != 3;
  // tile numbers are 0-7: VEX.R, .B and the top bit of vvvv must not extend them
  const bool tiles_ok = rex_r == 0 && (memory || rex_b == 0);
  Op op = Op::unknown;
  switch (opcode) {
    case 0x49:
      if (memory && reg == 0 && vvvv == 0 && pp == 0) op = Op::ldtilecfg;
      if (memory && reg == 0 && vvvv == 0 && pp == 1) op = Op::sttilecfg;
      if (!memory && reg == 0 && rm == 0 && vvvv == 0 && pp == 0 && rex_b == 0 && rex_r == 0) op = Op::tilerelease;
      if (!memory && rm == 0 && vvvv == 0 && pp == 3 && tiles_ok) op = Op::tilezero, d.tile = reg;
      break;
    case 0x4b:  // sibmem: a SIB byte is required
      if (memory && rm == 4 && vvvv == 0 && tiles_ok) {
        op = pp == 3 ? Op::tileloadd : pp == 1 ? Op::tileloaddt1 : pp == 2 ? Op::tilestored : Op::unknown;
        d.tile = reg;
      }
      break;
    case 0x5c:
      if (!memory && pp == 2 && tiles_ok && vvvv < 8) op = Op::tdpbf16ps;
      break;
    case 0x5e:
      if (!memory && tiles_ok && vvvv < 8) {
        constexpr Op by_pp[4] = {Op::tdpbuud, Op::tdpbusd, Op::tdpbsud, Op::tdpbssd};
        op = by_pp[pp];
      }
      break;
    default:
      break;
  }
  if (op == Op::unknown) return Decoded{};
  if (op == Op::tdpbf16ps || op == Op::tdpbssd || op == Op::tdpbsud || op == Op::tdpbusd || op == Op::tdpbuud)
    d.tile = reg, d.src1 = rm, d.src2 = vvvv;
  d.op = op;
  d.mem = mem;
  return d;
}

bool hardware_amx() {
  static const bool hw = [] {
    cpu::open_amx_gate_under_trap(nullptr);  // the strict gate alone (CPUID, XCR0, arch_prctl)
    return cpu::amx_available();
  }();
  return hw;
}

void install() {
  if (g_installed || hardware_amx()) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_sigill;
  sa.sa_flags = SA_SIGINFO;  // SIGILL stays blocked in the handler: a fault inside it ends the process
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGILL, &sa, &g_previous) != 0) {
    std::perror("amx_trap: sigaction");
    std::abort();
  }
  g_installed = true;
  cpu::open_amx_gate_under_trap(reinterpret_cast<void (*)(int, void*, void*)>(on_sigill));
}

void uninstall() {
  if (!g_installed) return;
  cpu::open_amx_gate_under_trap(nullptr);
  sigaction(SIGILL, &g_previous, nullptr);
  g_installed = false;
}

Counts counts() {
  Counts c;
  for (std::size_t i = 0; i < std::size_t(Op::count); ++i) c.n[i] = g_counts[i].load(std::memory_order_relaxed);
  return c;
}

void reset_counts() {
  for (auto& c : g_counts) c.store(0, std::memory_order_relaxed);
}

bool thread_configured() { return tls_tiles.configured(); }

}  // namespace bf16x::amx_trap
