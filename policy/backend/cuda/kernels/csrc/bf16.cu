// bf16.cu: conversion of float32 operands to bfloat16 for the products
// that cuBLASLt computes with bfloat16 inputs (model.compute_dtype bf16).
#include "prelude.cuh"

// round_bf16 writes dst[i], the bfloat16 nearest src[i] with ties to even,
// as its 16 bits, for n values: the top 16 bits of the float32 after
// adding 0x7fff plus the lowest kept bit. Values past the largest finite
// bfloat16 round to infinity, subnormals round like any value, and a NaN
// stays a quiet NaN with its sign and top payload bits (rounding could
// carry a NaN's payload into the exponent, making it an infinity). It is
// the host's rounding bit for bit (package policy's roundBF16).
KERNEL(round_bf16)(unsigned short* dst, const float* src, long long n) {
  GRID_STRIDE(i, n) {
    unsigned b = __builtin_bit_cast(unsigned, src[i]);
    if ((b & 0x7fffffffu) > 0x7f800000u)
      dst[i] = (unsigned short)((b >> 16) | 0x0040u);
    else
      dst[i] = (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
  }
}
REGISTER(round_bf16)
