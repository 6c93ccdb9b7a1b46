// bf16.cu: conversion of float32 operands to bfloat16 for the products
// that cuBLASLt computes with bfloat16 inputs (model.compute_dtype bf16),
// and of weights held in bfloat16 (Freeze16) back to float32.
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

// widen_bf16 writes dst[i], the float32 of the bfloat16 whose 16 bits are
// src[i], for n values: the bits shifted into the top half of a float32,
// which is exact for every value (zeros, subnormals, infinities and NaNs
// keep their sign and bits). It is the host's widening bit for bit
// (package policy's fromBF16), so weights held on the device in bfloat16
// are widened there right before their product.
KERNEL(widen_bf16)(float* dst, const unsigned short* src, long long n) {
  GRID_STRIDE(i, n) {
    dst[i] = __builtin_bit_cast(float, (unsigned)src[i] << 16);
  }
}
REGISTER(widen_bf16)
