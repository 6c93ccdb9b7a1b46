// fiber.h: switching between the emulated threads of a block. On x86-64
// and arm64 a switch saves the callee-saved registers on the old stack
// and loads them from the new one (a few nanoseconds); elsewhere it is
// swapcontext, which also makes a system call per switch.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) || defined(__aarch64__)

namespace emu {

struct Context {
  void* sp;
};

extern "C" void emu_switch(void** save, void* load);

#if defined(__x86_64__)
// emu_switch pushes rbp, rbx, r12–r15, stores rsp in *save, loads load
// into rsp, pops them and returns into the other context.
asm(R"(
  .text
  .globl emu_switch
  .hidden emu_switch
  .type emu_switch, @function
emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch, .-emu_switch
)");
const int kSaved = 6;  // words below the return address
#else
// emu_switch saves x19–x30 and d8–d15 (176 bytes) below sp, stores sp in
// *save, loads load into sp, restores them and returns through x30.
asm(R"(
  .text
  .globl emu_switch
  .hidden emu_switch
  .type emu_switch, %function
emu_switch:
  sub sp, sp, #176
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mov x2, sp
  str x2, [x0]
  mov sp, x1
  ldp x19, x20, [sp, #0]
  ldp x21, x22, [sp, #16]
  ldp x23, x24, [sp, #32]
  ldp x25, x26, [sp, #48]
  ldp x27, x28, [sp, #64]
  ldp x29, x30, [sp, #80]
  ldp d8, d9, [sp, #96]
  ldp d10, d11, [sp, #112]
  ldp d12, d13, [sp, #128]
  ldp d14, d15, [sp, #144]
  add sp, sp, #176
  ret
  .size emu_switch, .-emu_switch
)");
#endif

// make_context prepares ctx to begin fn, which must never return, on
// the stack [stack, stack+size).
inline void make_context(Context* ctx, char* stack, std::size_t size, void (*fn)()) {
  std::uintptr_t top = (reinterpret_cast<std::uintptr_t>(stack) + size) & ~std::uintptr_t(15);
  void** sp = reinterpret_cast<void**>(top);
#if defined(__x86_64__)
  *--sp = nullptr;                        // fn's return address: never used
  *--sp = reinterpret_cast<void*>(fn);    // where emu_switch returns to
  for (int i = 0; i < kSaved; i++) *--sp = nullptr;
#else
  sp -= 22;  // 176 bytes of saved registers
  for (int i = 0; i < 22; i++) sp[i] = nullptr;
  sp[11] = reinterpret_cast<void*>(fn);  // x30
#endif
  ctx->sp = sp;
}

inline void switch_to(Context* from, Context* to) { emu_switch(&from->sp, to->sp); }

}  // namespace emu

#else

#include <ucontext.h>

namespace emu {

struct Context {
  ucontext_t uc;
};

inline void make_context(Context* ctx, char* stack, std::size_t size, void (*fn)()) {
  getcontext(&ctx->uc);
  ctx->uc.uc_stack.ss_sp = stack;
  ctx->uc.uc_stack.ss_size = size;
  ctx->uc.uc_link = nullptr;
  makecontext(&ctx->uc, fn, 0);
}

inline void switch_to(Context* from, Context* to) { swapcontext(&from->uc, &to->uc); }

}  // namespace emu

#endif
