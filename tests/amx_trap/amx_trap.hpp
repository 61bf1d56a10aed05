// Trap and emulate AMX (docs/amx.md, "Trap and emulate"): on a CPU without AMX every tile instruction raises #UD
// (SIGILL). The handler installed here decodes the faulting instruction from its bytes (the VEX encodings of the
// SDM), reads its registers from the signal context, executes it on this thread's tile state (the tile model,
// engine/amx/tile_model.hpp: the same arithmetic as the amx-model engine) and resumes after it. So the amx
// engines' real machine code runs: the compiler's encodings and memory operands, the per-thread LDTILECFG, the
// strides in the index register, TILERELEASE. An instruction it does not know, a tile used before LDTILECFG on its
// thread, or a tile fault of the model ends the process with a message (fail loudly).
#pragma once
#include <cstddef>
#include <cstdint>

namespace bf16x::amx_trap {

enum class Op {
  unknown,
  ldtilecfg,
  sttilecfg,
  tilerelease,
  tilezero,
  tileloadd,
  tileloaddt1,
  tilestored,
  tdpbf16ps,
  tdpbssd,
  tdpbsud,
  tdpbusd,
  tdpbuud,
  count
};
const char* op_name(Op op);

// A memory operand: base + index * scale + disp (RIP-relative: base is the next instruction's address).
struct MemOperand {
  int base = -1;   // 0-15 (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15), -1: none
  int index = -1;  // 0-15 but 4 (rsp), -1: none; for TILELOADD/TILESTORED, the row stride
  int scale = 1;
  std::int64_t disp = 0;
  bool rip = false;
};

struct Decoded {
  Op op = Op::unknown;
  int length = 0;            // bytes
  int tile = -1;             // TILEZERO / TILELOADD / TILESTORED: the tile; TDP*: the destination
  int src1 = -1, src2 = -1;  // TDP*: src1 (ModRM.rm), src2 (VEX.vvvv)
  MemOperand mem;            // LDTILECFG / STTILECFG / TILELOADD(T1) / TILESTORED
};

// Decodes the instruction at `code` (at most 15 bytes are read). Op::unknown where it is not one of the AMX-TILE,
// AMX-BF16 and AMX-INT8 instructions in a form the SDM allows.
Decoded decode(const std::uint8_t* code);

// Installs the SIGILL handler and opens the library's test-only AMX gate under it (cpu::open_amx_gate_under_trap):
// from here on the amx engines are usable and their tile instructions run here. Idempotent. On a CPU whose AMX
// passes the library's own gate (hardware_amx()) nothing is installed: the instructions run on the hardware.
void install();
bool hardware_amx();
void uninstall();  // the previous SIGILL handler again, the gate closed

// Instructions executed by the handler since the last reset, per kind, all threads.
struct Counts {
  std::uint64_t n[std::size_t(Op::count)] = {};
  std::uint64_t operator[](Op op) const { return n[std::size_t(op)]; }
};
Counts counts();
void reset_counts();

// Whether this thread's emulated tiles are configured (between an LDTILECFG and a TILERELEASE).
bool thread_configured();

}  // namespace bf16x::amx_trap
