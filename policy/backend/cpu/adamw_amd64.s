#include "textflag.h"

// func adamwAVX2(n int, p, grad, m, v *float32, c *[9]float32)
//
// The AdamW update of n weights (n a positive multiple of 8), eight at a
// time, with every element's operations those of the portable loop in
// kernels.go, in its order and unfused: c holds Scale, Beta1, 1−Beta1,
// Beta2, 1−Beta2, RootBC2, Eps, Decay and StepSize. VSQRTPS rounds the
// square root once, as float32(math.Sqrt(float64(x))) does.
TEXT ·adamwAVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ grad+16(FP), DI
	MOVQ m+24(FP), R8
	MOVQ v+32(FP), R9
	MOVQ c+40(FP), AX
	VBROADCASTSS (AX), Y0    // Scale
	VBROADCASTSS 4(AX), Y1   // Beta1
	VBROADCASTSS 8(AX), Y2   // 1 − Beta1
	VBROADCASTSS 12(AX), Y3  // Beta2
	VBROADCASTSS 16(AX), Y4  // 1 − Beta2
	VBROADCASTSS 20(AX), Y5  // RootBC2
	VBROADCASTSS 24(AX), Y6  // Eps
	VBROADCASTSS 28(AX), Y7  // Decay
	VBROADCASTSS 32(AX), Y8  // StepSize
	SHRQ $3, CX

loop:
	VMOVUPS (DI), Y9
	VMULPS  Y0, Y9, Y9       // grad·Scale
	VMOVUPS (R8), Y10
	VMULPS  Y1, Y10, Y10     // Beta1·m
	VMULPS  Y2, Y9, Y11      // (1−Beta1)·g
	VADDPS  Y11, Y10, Y10    // m
	VMOVUPS Y10, (R8)
	VMOVUPS (R9), Y12
	VMULPS  Y3, Y12, Y12     // Beta2·v
	VMULPS  Y4, Y9, Y13      // (1−Beta2)·g
	VMULPS  Y9, Y13, Y13     // ·g
	VADDPS  Y13, Y12, Y12    // v
	VMOVUPS Y12, (R9)
	VSQRTPS Y12, Y12
	VDIVPS  Y5, Y12, Y12     // √v / RootBC2
	VADDPS  Y6, Y12, Y12     // + Eps
	VMULPS  Y8, Y10, Y13     // StepSize·m
	VDIVPS  Y12, Y13, Y13    // / denom
	VMOVUPS (SI), Y14
	VMULPS  Y7, Y14, Y14     // p·Decay
	VSUBPS  Y13, Y14, Y14
	VMOVUPS Y14, (SI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, R8
	ADDQ    $32, R9
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET
