#include "textflag.h"

// func rows4x3FMA(k int, x *float32, w *float32, ldw int, out *float32)
//
// out[3r+j] = Σ_t x[r·k+t]·w[j·ldw+t] for the four rows r of x [4, k]
// and three rows j of w (row stride ldw floats; 0 repeats one row), k a
// positive multiple of 8. Every element is summed alike: lane t mod 8
// collects fused multiply-adds in order of t, then the lanes are added
// as (l0+l4 + l1+l5) + (l2+l6 + l3+l7). The twelve elements run at once,
// each w vector loaded serving four rows and each x vector three.
TEXT ·rows4x3FMA(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), BX
	MOVQ out+32(FP), DX
	SHLQ $2, CX            // bytes per x row
	SHLQ $2, BX            // bytes per w row
	LEAQ (SI)(CX*1), R8    // x row 1
	LEAQ (R8)(CX*1), R9    // x row 2
	LEAQ (R9)(CX*1), R10   // x row 3
	LEAQ (DI)(BX*1), R11   // w row 1
	LEAQ (R11)(BX*1), R12  // w row 2
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ   AX, AX

loop:
	VMOVUPS (DI)(AX*1), Y12
	VMOVUPS (R11)(AX*1), Y13
	VMOVUPS (R12)(AX*1), Y14
	VMOVUPS (SI)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y0
	VFMADD231PS Y15, Y13, Y1
	VFMADD231PS Y15, Y14, Y2
	VMOVUPS (R8)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y3
	VFMADD231PS Y15, Y13, Y4
	VFMADD231PS Y15, Y14, Y5
	VMOVUPS (R9)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y6
	VFMADD231PS Y15, Y13, Y7
	VFMADD231PS Y15, Y14, Y8
	VMOVUPS (R10)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y9
	VFMADD231PS Y15, Y13, Y10
	VFMADD231PS Y15, Y14, Y11
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop

	VEXTRACTF128 $1, Y0, X15
	VADDPS       X15, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, 0(DX)
	VEXTRACTF128 $1, Y1, X15
	VADDPS       X15, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	VMOVSS       X1, 4(DX)
	VEXTRACTF128 $1, Y2, X15
	VADDPS       X15, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	VMOVSS       X2, 8(DX)
	VEXTRACTF128 $1, Y3, X15
	VADDPS       X15, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	VMOVSS       X3, 12(DX)
	VEXTRACTF128 $1, Y4, X15
	VADDPS       X15, X4, X4
	VHADDPS      X4, X4, X4
	VHADDPS      X4, X4, X4
	VMOVSS       X4, 16(DX)
	VEXTRACTF128 $1, Y5, X15
	VADDPS       X15, X5, X5
	VHADDPS      X5, X5, X5
	VHADDPS      X5, X5, X5
	VMOVSS       X5, 20(DX)
	VEXTRACTF128 $1, Y6, X15
	VADDPS       X15, X6, X6
	VHADDPS      X6, X6, X6
	VHADDPS      X6, X6, X6
	VMOVSS       X6, 24(DX)
	VEXTRACTF128 $1, Y7, X15
	VADDPS       X15, X7, X7
	VHADDPS      X7, X7, X7
	VHADDPS      X7, X7, X7
	VMOVSS       X7, 28(DX)
	VEXTRACTF128 $1, Y8, X15
	VADDPS       X15, X8, X8
	VHADDPS      X8, X8, X8
	VHADDPS      X8, X8, X8
	VMOVSS       X8, 32(DX)
	VEXTRACTF128 $1, Y9, X15
	VADDPS       X15, X9, X9
	VHADDPS      X9, X9, X9
	VHADDPS      X9, X9, X9
	VMOVSS       X9, 36(DX)
	VEXTRACTF128 $1, Y10, X15
	VADDPS       X15, X10, X10
	VHADDPS      X10, X10, X10
	VHADDPS      X10, X10, X10
	VMOVSS       X10, 40(DX)
	VEXTRACTF128 $1, Y11, X15
	VADDPS       X15, X11, X11
	VHADDPS      X11, X11, X11
	VHADDPS      X11, X11, X11
	VMOVSS       X11, 44(DX)
	VZEROUPPER
	RET
