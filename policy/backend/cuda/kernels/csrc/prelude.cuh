// prelude.cuh: what every kernel source includes. It compiles two ways:
//
//   - for the GPU with clang -x cuda --cuda-device-only (no CUDA toolkit):
//     the CUDA keywords are clang's attributes, the built-in variables come
//     from clang's __clang_cuda_builtin_vars.h and the intrinsics are
//     __nvvm_* builtins;
//   - for the host with a C++17 compiler, where emu.h emulates a launch:
//     threads of a block are fibers with real barriers, shared memory is
//     per block, shuffles exchange values among the 32 lanes of a warp.
//
// Kernels use only what this file and emu.h define in common: KERNEL,
// REGISTER, DEV, SHARED, DYNAMIC_SHARED, threadIdx, blockIdx, blockDim,
// gridDim, __syncthreads, shfl_xor, shfl_down, shfl_up, shfl_xor_int,
// atomic_add, sqrt_rn, log_approx, bits_float, umulhi, the maths
// helpers below, and plain C++.
#pragma once

#if defined(__CUDA__) && defined(__CUDA_ARCH__)

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#include <__clang_cuda_builtin_vars.h>

#define DEV static __device__ __attribute__((always_inline)) inline
#define KERNEL(name) extern "C" __global__ void name
#define REGISTER(name)
#define SHARED __shared__
#define DYNAMIC_SHARED(T, name) extern __shared__ T name[]

// __syncthreads is a clang builtin for NVPTX (bar.sync 0).
DEV float shfl_xor(float v, int lanemask) {
  return __nvvm_shfl_sync_bfly_f32(0xffffffffu, v, lanemask, 0x1f);
}
DEV float shfl_down(float v, unsigned delta) {
  return __nvvm_shfl_sync_down_f32(0xffffffffu, v, delta, 0x1f);
}
DEV float shfl_up(float v, unsigned delta) {
  return __nvvm_shfl_sync_up_f32(0xffffffffu, v, delta, 0);
}
DEV int shfl_xor_int(int v, int lanemask) {
  return __nvvm_shfl_sync_bfly_i32(0xffffffffu, v, lanemask, 0x1f);
}
DEV float atomic_add(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }
DEV float sqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
// log_approx is ln(x) from the hardware's log2 (about 2⁻²² absolute).
DEV float log_approx(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
DEV float bits_float(unsigned u) { return __builtin_bit_cast(float, u); }
DEV unsigned umulhi(unsigned a, unsigned b) { return __nvvm_mulhi_ui(a, b); }

#else

#include "emu.h"

#endif

#define WARP 32
#define NEG_INF (-__builtin_inff())

DEV float fmaxf_(float a, float b) { return a > b ? a : b; }

// exp32 is the pure-Go backend's Exp32, operation for operation: exp(x)
// within 2 ulp, 0 below −87.33, +Inf above 88.37 (the GPU may fuse its
// multiply-adds, which changes the last bit at most).
DEV float exp32(float x) {
  if (x < -87.33f) return 0.0f;
  if (x > 88.37f) return __builtin_inff();
  if (x != x) return x;
  float kf = x * 1.442695041f + 0.5f;
  if (kf < 0) kf -= 1;
  int k = (int)kf;
  float r = x - (float)k * 0.693359375f - (float)k * -2.12194440e-4f;
  float p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r +
              4.1665795894e-2f) * r + 1.6666665459e-1f) * r + 5.0000001201e-1f;
  return (p * r * r + r + 1.0f) * bits_float((unsigned)(k + 127) << 23);
}

DEV float warp_sum(float v) {
  for (int o = WARP / 2; o > 0; o >>= 1) v += shfl_xor(v, o);
  return v;
}

DEV float warp_max(float v) {
  for (int o = WARP / 2; o > 0; o >>= 1) v = fmaxf_(v, shfl_xor(v, o));
  return v;
}

// block_sum returns the sum of v over the threads of a block of whole
// warps, the same value in every thread; red is 32 floats of shared
// memory. Every thread of the block must call it.
DEV float block_sum(float v, float* red) {
  unsigned lane = threadIdx.x % WARP, w = threadIdx.x / WARP, nw = blockDim.x / WARP;
  v = warp_sum(v);
  if (lane == 0) red[w] = v;
  __syncthreads();
  v = warp_sum(lane < nw ? red[lane] : 0.0f);
  __syncthreads();
  return v;
}

// block_max is block_sum with max.
DEV float block_max(float v, float* red) {
  unsigned lane = threadIdx.x % WARP, w = threadIdx.x / WARP, nw = blockDim.x / WARP;
  v = warp_max(v);
  if (lane == 0) red[w] = v;
  __syncthreads();
  v = warp_max(lane < nw ? red[lane] : NEG_INF);
  __syncthreads();
  return v;
}

// grid_stride runs i over [0, n) spread over the grid's threads.
#define GRID_STRIDE(i, n)                                                          \
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += (long long)blockDim.x * gridDim.x)
