package cpu

import "math"

// Exp32 is exp(x) in float32, within 2 ulp, 0 below −87.33 and +Inf above
// 88.37: x = k·ln2 + r with |r| ≤ ln2/2, exp(r) by the Cephes expf
// polynomial, 2^k from the exponent bits. expSlice computes the same
// values, operation for operation, eight at a time where the CPU can.
func Exp32(x float32) float32 {
	switch {
	case x < expLo: // below the smallest normal float32
		return 0
	case x > expHi: // 2^k would overflow (true overflow starts at 88.72)
		return float32(math.Inf(1))
	case x != x:
		return x
	}
	kf := x*log2e + 0.5
	if kf < 0 {
		kf -= 1
	}
	k := int32(kf) // round to nearest
	r := x - float32(k)*ln2Hi - float32(k)*ln2Lo
	p := ((((expP0*r+expP1)*r+expP2)*r+expP3)*r+expP4)*r + expP5
	return (p*r*r + r + 1) * math.Float32frombits(uint32(k+127)<<23)
}

// The constants of Exp32, as float32.
const (
	expLo    float32 = -87.33
	expHi    float32 = 88.37
	log2e    float32 = 1.442695041
	ln2Hi    float32 = 0.693359375
	ln2Lo    float32 = -2.12194440e-4
	expP0    float32 = 1.9875691500e-4
	expP1    float32 = 1.3981999507e-3
	expP2    float32 = 8.3334519073e-3
	expP3    float32 = 4.1665795894e-2
	expP4    float32 = 1.6666665459e-1
	expP5    float32 = 5.0000001201e-1
	expChunk         = 256 // values a kernel exponentiates at once on its stack
)

// expSliceGo replaces every x[i] by Exp32(x[i]).
func expSliceGo(x []float32) {
	for i, v := range x {
		x[i] = Exp32(v)
	}
}
