// selftest.cpp: kernels that check the emulator itself (host only, not
// in the PTX): shuffles, block reductions, per-block shared memory,
// atomics across OS threads and deadlock detection.
#include "prelude.cuh"

// emu_shuffles writes, per thread of a block of whole warps, shfl_xor by 5,
// shfl_down by 3, shfl_up by 2 and the block sum of the thread indices.
KERNEL(emu_shuffles)(float* out) {
  SHARED float red[WARP];
  float v = (float)threadIdx.x;
  float* o = out + 4 * threadIdx.x;
  o[0] = shfl_xor(v, 5);
  o[1] = shfl_down(v, 3);
  o[2] = shfl_up(v, 2);
  o[3] = block_sum(v, red);
}
REGISTER(emu_shuffles)

// emu_shared writes, for every thread, what thread 0 of its block stored
// in static and dynamic shared memory: the block's index, twice.
KERNEL(emu_shared)(float* out) {
  SHARED float s;
  DYNAMIC_SHARED(float, d);
  if (threadIdx.x == 0) s = (float)blockIdx.x, d[0] = (float)blockIdx.x;
  __syncthreads();
  long long i = 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = s;
  out[i + 1] = d[0];
}
REGISTER(emu_shared)

// emu_deadlock has lane 0 of each warp wait at the block's barrier while
// the other lanes wait at a shuffle that needs lane 0: it never ends.
KERNEL(emu_deadlock)(float* out) {
  if (threadIdx.x % WARP == 0)
    __syncthreads();
  else
    out[threadIdx.x] = shfl_xor(1.0f, 1);
}
REGISTER(emu_deadlock)

// emu_atomics adds 1 to *out from every thread of every block.
KERNEL(emu_atomics)(float* out) { atomic_add(out, 1.0f); }
REGISTER(emu_atomics)
