#include "textflag.h"

// One row of the 4×16 kernel: where the row's scaled a value at OFF(SI)
// is not zero (NaN is not zero), acc0, acc1 += a·b0, a·b1, a product then
// a sum as gonum's AxpyUnitary rounds them.
#define ROW(OFF, ACC0, ACC1, DO, SKIP) \
	VMOVSS OFF(SI), X10; \
	VUCOMISS X15, X10; \
	JNE DO; \
	JPS DO; \
	JMP SKIP; \
DO: \
	VBROADCASTSS OFF(SI), Y10; \
	VMULPS Y8, Y10, Y11; \
	VADDPS Y11, ACC0, ACC0; \
	VMULPS Y9, Y10, Y12; \
	VADDPS Y12, ACC1, ACC1; \
SKIP:

// func sgemm4x16(k int, ta *float32, b *float32, ldb int, c *float32, ldc int)
TEXT ·sgemm4x16(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ ta+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R8
	SHLQ $2, R8
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R9

	MOVQ    DX, R10
	VMOVUPS (R10), Y0
	VMOVUPS 32(R10), Y1
	ADDQ    R9, R10
	VMOVUPS (R10), Y2
	VMOVUPS 32(R10), Y3
	ADDQ    R9, R10
	VMOVUPS (R10), Y4
	VMOVUPS 32(R10), Y5
	ADDQ    R9, R10
	VMOVUPS (R10), Y6
	VMOVUPS 32(R10), Y7
	VXORPS  X15, X15, X15
	TESTQ   CX, CX
	JZ      store

loop:
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9
	ROW(0, Y0, Y1, do0, skip0)
	ROW(4, Y2, Y3, do1, skip1)
	ROW(8, Y4, Y5, do2, skip2)
	ROW(12, Y6, Y7, do3, skip3)
	ADDQ $16, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  loop

store:
	MOVQ    DX, R10
	VMOVUPS Y0, (R10)
	VMOVUPS Y1, 32(R10)
	ADDQ    R9, R10
	VMOVUPS Y2, (R10)
	VMOVUPS Y3, 32(R10)
	ADDQ    R9, R10
	VMOVUPS Y4, (R10)
	VMOVUPS Y5, 32(R10)
	ADDQ    R9, R10
	VMOVUPS Y6, (R10)
	VMOVUPS Y7, 32(R10)
	VZEROUPPER
	RET

// One row of the 4×32 kernel: sgemm4x16's ROW on 16-lane registers.
#define ROW512(OFF, ACC0, ACC1, DO, SKIP) \
	VMOVSS OFF(SI), X10; \
	VUCOMISS X15, X10; \
	JNE DO; \
	JPS DO; \
	JMP SKIP; \
DO: \
	VBROADCASTSS OFF(SI), Z10; \
	VMULPS Z8, Z10, Z11; \
	VADDPS Z11, ACC0, ACC0; \
	VMULPS Z9, Z10, Z12; \
	VADDPS Z12, ACC1, ACC1; \
SKIP:

// func sgemm4x32(k int, ta *float32, b *float32, ldb int, c *float32, ldc int)
//
// sgemm4x16 on 32 columns at once with AVX-512: the same products and
// sums for every element, in the same order.
TEXT ·sgemm4x32(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ ta+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R8
	SHLQ $2, R8
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R9

	MOVQ    DX, R10
	VMOVUPS (R10), Z0
	VMOVUPS 64(R10), Z1
	ADDQ    R9, R10
	VMOVUPS (R10), Z2
	VMOVUPS 64(R10), Z3
	ADDQ    R9, R10
	VMOVUPS (R10), Z4
	VMOVUPS 64(R10), Z5
	ADDQ    R9, R10
	VMOVUPS (R10), Z6
	VMOVUPS 64(R10), Z7
	VXORPS  X15, X15, X15
	TESTQ   CX, CX
	JZ      store512

loop512:
	VMOVUPS (DI), Z8
	VMOVUPS 64(DI), Z9
	ROW512(0, Z0, Z1, do0z, skip0z)
	ROW512(4, Z2, Z3, do1z, skip1z)
	ROW512(8, Z4, Z5, do2z, skip2z)
	ROW512(12, Z6, Z7, do3z, skip3z)
	ADDQ $16, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  loop512

store512:
	MOVQ    DX, R10
	VMOVUPS Z0, (R10)
	VMOVUPS Z1, 64(R10)
	ADDQ    R9, R10
	VMOVUPS Z2, (R10)
	VMOVUPS Z3, 64(R10)
	ADDQ    R9, R10
	VMOVUPS Z4, (R10)
	VMOVUPS Z5, 64(R10)
	ADDQ    R9, R10
	VMOVUPS Z6, (R10)
	VMOVUPS Z7, 64(R10)
	VZEROUPPER
	RET
