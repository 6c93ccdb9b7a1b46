#include "textflag.h"

// func dot4AVX2(k int, x *float32, w *float32, out *float32)
//
// out[r] = Σ_t x[r·k+t]·w[t] for r = 0 … 3, in eight lanes of partial
// sums (a product, then a sum: no fused multiply-add) added up at the
// end; k is a positive multiple of 8.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DI
	MOVQ out+24(FP), DX
	SHLQ $2, CX            // bytes per row
	LEAQ (SI)(CX*1), R8    // row 1
	LEAQ (R8)(CX*1), R9    // row 2
	LEAQ (R9)(CX*1), R10   // row 3
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX

loop:
	VMOVUPS (DI)(AX*1), Y4
	VMULPS  (SI)(AX*1), Y4, Y5
	VADDPS  Y5, Y0, Y0
	VMULPS  (R8)(AX*1), Y4, Y6
	VADDPS  Y6, Y1, Y1
	VMULPS  (R9)(AX*1), Y4, Y7
	VADDPS  Y7, Y2, Y2
	VMULPS  (R10)(AX*1), Y4, Y8
	VADDPS  Y8, Y3, Y3
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop

	VEXTRACTF128 $1, Y0, X4
	VADDPS       X4, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, 0(DX)
	VEXTRACTF128 $1, Y1, X4
	VADDPS       X4, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	VMOVSS       X1, 4(DX)
	VEXTRACTF128 $1, Y2, X4
	VADDPS       X4, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	VMOVSS       X2, 8(DX)
	VEXTRACTF128 $1, Y3, X4
	VADDPS       X4, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	VMOVSS       X3, 12(DX)
	VZEROUPPER
	RET
