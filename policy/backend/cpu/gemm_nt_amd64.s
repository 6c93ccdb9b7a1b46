#include "textflag.h"

// The a·bᵀ tile of the pure-Go Sgemm (gemm_nt.go): eight dot products,
// four rows of a against two rows of b, each summed in the order of
// gonum's f32.DotUnitary on a 16-byte aligned b row whose length is a
// multiple of 16. DotUnitary keeps two four-lane sums, SUM taking floats
// 0-3 and 8-11 of every 16 and P_SUM 4-7 and 12-15; one eight-lane
// accumulator fed eight floats at a time holds SUM in its low half and
// P_SUM in its high half, each lane taking the same products in the same
// order. The end is DotUnitary's too: s = SUM + P_SUM, then
// (s0 + s1) + (s2 + s3) by two horizontal adds, done here for the eight
// sums at once (VHADDPS adds within each sum's lanes only).

// One row of a against the two rows of b: acc0 += a·b0, acc1 += a·b1,
// each a product then a sum (no fused multiply-add, as DotUnitary).
#define ROW(PTR, ACC0, ACC1) \
	VMOVUPS (PTR), Y10; \
	VMULPS Y8, Y10, Y11; \
	VADDPS Y11, ACC0, ACC0; \
	VMULPS Y9, Y10, Y12; \
	VADDPS Y12, ACC1, ACC1

// One c element += one of the eight sums at OFF(SP).
#define ADDC(OFF, CADDR) \
	VMOVSS OFF(SP), X9; \
	VADDSS CADDR, X9, X9; \
	VMOVSS X9, CADDR

// func ntTile4x2(nblk, kb int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
//
// For each of nblk consecutive blocks of kb floats (kb a multiple of 16):
// c[r][s] += dot(a[r][block], b[s][block]) for r < 4, s < 2.
TEXT ·ntTile4x2(SB), NOSPLIT, $32-64
	MOVQ nblk+0(FP), BX
	MOVQ kb+8(FP), R12
	SHRQ $3, R12
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), AX
	SHLQ $2, AX
	LEAQ (SI)(AX*1), R8
	LEAQ (R8)(AX*1), R9
	LEAQ (R9)(AX*1), R13
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), AX
	SHLQ $2, AX
	LEAQ (DI)(AX*1), R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $2, R11
	LEAQ (DX)(R11*2), AX
	ADDQ R11, AX

block:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ R12, CX

loop:
	VMOVUPS (DI), Y8
	VMOVUPS (R10), Y9
	ROW(SI, Y0, Y1)
	ROW(R8, Y2, Y3)
	ROW(R9, Y4, Y5)
	ROW(R13, Y6, Y7)
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R13
	ADDQ $32, DI
	ADDQ $32, R10
	DECQ CX
	JNZ  loop

	// s = low + high of each accumulator, two accumulators a register.
	VPERM2F128 $0x20, Y1, Y0, Y8
	VPERM2F128 $0x31, Y1, Y0, Y9
	VADDPS     Y9, Y8, Y8
	VPERM2F128 $0x20, Y3, Y2, Y9
	VPERM2F128 $0x31, Y3, Y2, Y10
	VADDPS     Y10, Y9, Y9
	VPERM2F128 $0x20, Y5, Y4, Y10
	VPERM2F128 $0x31, Y5, Y4, Y11
	VADDPS     Y11, Y10, Y10
	VPERM2F128 $0x20, Y7, Y6, Y11
	VPERM2F128 $0x31, Y7, Y6, Y12
	VADDPS     Y12, Y11, Y11

	// (s0 + s1) + (s2 + s3): Y8 = [c00 c10 c20 c30 | c01 c11 c21 c31].
	VHADDPS Y9, Y8, Y8
	VHADDPS Y11, Y10, Y10
	VHADDPS Y10, Y8, Y8
	VMOVUPS Y8, (SP)

	ADDC(0, (DX))
	ADDC(16, 4(DX))
	ADDC(4, (DX)(R11*1))
	ADDC(20, 4(DX)(R11*1))
	ADDC(8, (DX)(R11*2))
	ADDC(24, 4(DX)(R11*2))
	ADDC(12, (AX))
	ADDC(28, 4(AX))

	DECQ BX
	JNZ  block
	VZEROUPPER
	RET
