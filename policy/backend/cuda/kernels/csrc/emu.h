// emu.h: the host side of prelude.cuh. A launch runs its blocks on a few
// OS threads; the threads of one block run as cooperative fibers on one
// OS thread, switching only at barriers and shuffles, so __syncthreads,
// warp shuffles and shared memory behave as on a GPU. threadIdx and the
// other built-in variables are thread_local and switched with the fiber.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstring>
#include <utility>

namespace emu {

struct Dim {
  unsigned x, y, z;
};

// Trampoline calls a kernel of the given parameter types with the
// arguments that params point to (cuLaunchKernel's layout).
typedef void (*Trampoline)(void (*kernel)(), void** params);

template <typename... A, std::size_t... I>
void call(void (*kernel)(), void** params, std::index_sequence<I...>) {
  reinterpret_cast<void (*)(A...)>(kernel)(*static_cast<A*>(params[I])...);
}

template <typename... A>
void trampoline(void (*kernel)(), void** params) {
  call<A...>(kernel, params, std::index_sequence_for<A...>{});
}

// add registers a kernel under name, with the sizes of its arity
// parameters; launches find it there.
void add(const char* name, void (*kernel)(), Trampoline t, int arity, const unsigned char* sizes);

template <typename... A>
struct Sizes {
  static constexpr unsigned char of[sizeof...(A) + 1] = {(unsigned char)sizeof(A)..., 0};
};

struct Registrar {
  template <typename... A>
  Registrar(const char* name, void (*kernel)(A...)) {
    add(name, reinterpret_cast<void (*)()>(kernel), &trampoline<A...>, (int)sizeof...(A), Sizes<A...>::of);
  }
};

void syncthreads();
void* dynamic_shared();
float shfl_xor(float v, int lanemask);
float shfl_down(float v, unsigned delta);
float shfl_up(float v, unsigned delta);
int shfl_xor_int(int v, int lanemask);

}  // namespace emu

extern thread_local emu::Dim threadIdx, blockIdx, blockDim, gridDim;

#define DEV static inline
#define KERNEL(name) extern "C" void name
#define REGISTER(name) static emu::Registrar emu_registrar_##name(#name, name);
#define SHARED static thread_local
#define DYNAMIC_SHARED(T, name) T* name = static_cast<T*>(emu::dynamic_shared())

inline void __syncthreads() { emu::syncthreads(); }
inline float shfl_xor(float v, int lanemask) { return emu::shfl_xor(v, lanemask); }
inline float shfl_down(float v, unsigned delta) { return emu::shfl_down(v, delta); }
inline float shfl_up(float v, unsigned delta) { return emu::shfl_up(v, delta); }
inline int shfl_xor_int(int v, int lanemask) { return emu::shfl_xor_int(v, lanemask); }

// atomic_add is atomic across the OS threads that run blocks.
inline float atomic_add(float* p, float v) {
  unsigned* u = reinterpret_cast<unsigned*>(p);
  unsigned old = __atomic_load_n(u, __ATOMIC_RELAXED), next;
  do {
    float f;
    std::memcpy(&f, &old, 4);
    f += v;
    std::memcpy(&next, &f, 4);
  } while (!__atomic_compare_exchange_n(u, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  float f;
  std::memcpy(&f, &old, 4);
  return f;
}

inline float sqrt_rn(float x) { return std::sqrt(x); }
inline float log_approx(float x) { return std::log(x); }
inline float bits_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline unsigned umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
