#include "textflag.h"

// Offsets of the constants in expConsts, 32 bytes each.
#define LOG2E 0(DX)
#define HALF 32(DX)
#define ONE 64(DX)
#define LN2HI 96(DX)
#define LN2LO 128(DX)
#define P0 160(DX)
#define P1 192(DX)
#define P2 224(DX)
#define P3 256(DX)
#define P4 288(DX)
#define P5 320(DX)
#define LO 352(DX)
#define HI 384(DX)
#define INF 416(DX)
#define BIAS 448(DX)
#define ZERO 480(DX)

// func expAVX2(x []float32, c *[16][8]float32)
TEXT ·expAVX2(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ c+24(FP), DX
	VMOVUPS ZERO, Y15
	VMOVUPS HI, Y14
	SHRQ $3, CX
	JZ done

loop:
	VMOVUPS (SI), Y0 // x

	// kf = x*log2e + 0.5; kf -= 1 where kf < 0; k = int32(kf)
	VMULPS LOG2E, Y0, Y1
	VADDPS HALF, Y1, Y1
	VCMPPS $1, Y15, Y1, Y2 // kf < 0
	VANDPS ONE, Y2, Y2
	VSUBPS Y2, Y1, Y1
	VCVTTPS2DQ Y1, Y2 // k
	VCVTDQ2PS Y2, Y3  // float32(k)

	// r = x - float32(k)*ln2Hi - float32(k)*ln2Lo
	VMULPS LN2HI, Y3, Y4
	VSUBPS Y4, Y0, Y5
	VMULPS LN2LO, Y3, Y4
	VSUBPS Y4, Y5, Y5

	// p = ((((p0*r+p1)*r+p2)*r+p3)*r+p4)*r + p5
	VMULPS P0, Y5, Y6
	VADDPS P1, Y6, Y6
	VMULPS Y5, Y6, Y6
	VADDPS P2, Y6, Y6
	VMULPS Y5, Y6, Y6
	VADDPS P3, Y6, Y6
	VMULPS Y5, Y6, Y6
	VADDPS P4, Y6, Y6
	VMULPS Y5, Y6, Y6
	VADDPS P5, Y6, Y6

	// (p*r*r + r + 1) * 2^k
	VMULPS Y5, Y6, Y6
	VMULPS Y5, Y6, Y6
	VADDPS Y5, Y6, Y6
	VADDPS ONE, Y6, Y6
	VPADDD BIAS, Y2, Y2
	VPSLLD $23, Y2, Y2
	VMULPS Y2, Y6, Y6

	// 0 below LO, +Inf above HI, NaN stays NaN
	VCMPPS $1, LO, Y0, Y7 // x < LO
	VANDNPS Y6, Y7, Y6
	VCMPPS $1, Y0, Y14, Y7 // HI < x
	VBLENDVPS Y7, INF, Y6, Y6
	VCMPPS $3, Y0, Y0, Y7 // x unordered
	VBLENDVPS Y7, Y0, Y6, Y6

	VMOVUPS Y6, (SI)
	ADDQ $32, SI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET

// func cpuid(eax, ecx uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eax+0(FP), AX
	MOVL ecx+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
