//go:build unix

package cuda

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// Odd shapes for the kernel cases: N rows in N/T sequences of T, C
// channels, M bias columns, V vocab, H and K heads of D values, P rope
// positions, n elements.
const (
	tN, tT, tC, tM, tV = 6, 3, 7, 5, 11
	tH, tK, tD, tP, tn = 4, 2, 6, 9, 37
)

var heads = backend.Heads{H: tH, K: tK, D: tD, Scale: float32(1 / math.Sqrt(tD))}

// kernelCase runs call on tensors holding in (both backends) and compares
// every tensor afterwards except those listed in saved, whose layout is
// each backend's own.
type kernelCase struct {
	name  string
	in    [][]float32
	saved []int
	call  func(be backend.Kernels, x []backend.Tensor) error
}

// TestEmuKernels checks every kernel of the emulated backend against the
// pure-Go backend on odd shapes; outputs agree to float32 rounding.
func TestEmuKernels(t *testing.T) {
	runKernelCases(t, openEmu(t), cpu.NewGo(), 3)
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

// runKernelCases runs every kernel case on b and ref, inputs drawn from
// seed, and compares the tensors each case leaves.
func runKernelCases(t *testing.T, b *Backend, ref *cpu.Backend, seed int64) {
	rng := newRand(seed)
	r := func(n int) []float32 { return randSlice(rng, n) }
	none := []float32{}
	var cases []kernelCase
	cases = append(cases, rowCases(r, none)...)
	cases = append(cases, normCases(r, none)...)
	cases = append(cases, attentionCases(r, none)...)
	cases = append(cases, elementCases(r, none)...)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, want := runBoth(t, b, ref, tc.in, tc.call)
			for j := range got {
				if !slices.Contains(tc.saved, j) {
					closeTo(t, fmt.Sprintf("case %d: tensor %d", i, j), got[j], want[j], 2e-5)
				}
			}
		})
	}
}

// ids returns n token ids below v as float32 values, with repeats.
func ids(n, v int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32((i * 7) % v)
	}
	x[n-1] = x[0]
	return x
}

func rowCases(r func(int) []float32, none []float32) []kernelCase {
	return []kernelCase{
		{"AddBias", [][]float32{r(tN * tM), r(tM)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.AddBias(x[0], x[1])
		}},
		{"ColSum", [][]float32{r(tM), r(tN * tM)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.ColSum(x[0], x[1])
		}},
		{"Embed", [][]float32{r(tN * tC), r(tV * tC), ids(tN, tV)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.Embed(x[0], x[1], x[2], tC)
		}},
		{"EmbedBack", [][]float32{r(tV * tC), ids(tN, tV), r(tN * tC)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.EmbedBack(x[0], x[1], x[2], tC)
		}},
		{"MatMul/accumulate", [][]float32{r(tN * tC), r(tM * tC), r(tN * tM)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.MatMul(false, true, tN, tM, tC, x[0], x[1], 1, x[2])
		}},
		{"MatMul/k=0", [][]float32{none, none, r(tN * tM)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.MatMul(false, false, tN, tM, 0, x[0], x[1], 0, x[2])
		}},
	}
}

func normCases(r func(int) []float32, none []float32) []kernelCase {
	const eps = 1e-6
	cos, sin := r(tP*tD/2), r(tP*tD/2)
	pos := []int{0, 8, 3, 3, 1, 7}
	cases := []kernelCase{
		{"RMSNorm", [][]float32{r(tN * tC), r(tN * tC), r(tC)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.RMSNorm(x[0], x[1], x[2], tC, eps)
		}},
		{"RMSNorm/in place", [][]float32{r(tN * tC), r(tC)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.RMSNorm(x[0], x[0], x[1], tC, eps)
		}},
		{"RMSNormBack", [][]float32{r(tN * tC), r(tC), r(tN * tC), r(tC), r(tN * tC)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.RMSNormBack(x[0], x[1], x[2], x[3], x[4], tC, eps)
		}},
		{"RMSNormBack/dx only", [][]float32{r(tN * tC), none, r(tN * tC), r(tC), r(tN * tC)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.RMSNormBack(x[0], x[1], x[2], x[3], x[4], tC, eps)
		}},
		{"RMSNormBack/dw only", [][]float32{none, r(tC), r(tN * tC), r(tC), r(tN * tC)}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.RMSNormBack(x[0], x[1], x[2], x[3], x[4], tC, eps)
		}},
	}
	for _, inverse := range []bool{false, true} {
		cases = append(cases, kernelCase{fmt.Sprintf("Rope/inverse=%v", inverse),
			[][]float32{r(tN * tH * tD), r(tN * tH * tD), cos, sin}, nil,
			func(be backend.Kernels, x []backend.Tensor) error {
				return be.Rope(x[0], x[1], tH, tD, pos, x[2], x[3], inverse)
			}})
	}
	return cases
}

func attentionCases(r func(int) []float32, none []float32) []kernelCase {
	HD, KD := tH*tD, tK*tD
	fwd := func(be backend.Kernels, x []backend.Tensor) error { // o, saved, q, k, v
		return be.Attention(x[0], x[1], x[2], x[3], x[4], heads, tT)
	}
	back := func(be backend.Kernels, x []backend.Tensor) error { // then dq, dk, dv, do
		if err := fwd(be, x); err != nil {
			return err
		}
		return be.AttentionBack(x[5], x[6], x[7], x[2], x[3], x[4], x[0], x[1], x[8], heads, tT)
	}
	spans := []backend.Span{{Row: 0, N: 2, P0: 3}, {Row: 2, N: 1, P0: 0}, {Row: 3, N: 2, P0: 1}}
	cached := func(be backend.Kernels, x []backend.Tensor) error { // o, q, 3 key caches, 3 value caches
		return be.AttendCached(x[0], x[1], x[2:5], x[5:8], spans, heads)
	}
	fwdIn := func(saved []float32) [][]float32 {
		return [][]float32{r(tN * HD), saved, r(tN * HD), r(tN * KD), r(tN * KD)}
	}
	backIn := func(saved []float32) [][]float32 {
		return append(fwdIn(saved), r(tN*HD), r(tN*KD), r(tN*KD), r(tN*HD))
	}
	return []kernelCase{
		{"Attention", fwdIn(r(tN * tH * tT)), []int{1}, fwd},
		{"Attention/no saved", fwdIn(none), nil, fwd},
		{"AttentionBack", backIn(r(tN * tH * tT)), []int{1}, back},
		{"AttentionBack/no saved", backIn(none), nil, back},
		{"AttendCached", [][]float32{r(5 * HD), r(5 * HD), r(5 * KD), r(1 * KD), r(4 * KD), r(5 * KD), r(1 * KD), r(4 * KD)}, nil, cached},
	}
}

func elementCases(r func(int) []float32, none []float32) []kernelCase {
	glu := func(be backend.Kernels, x []backend.Tensor) error { // y, saved, gate, up
		return be.SwiGLU(x[0], x[1], x[2], x[3])
	}
	gluBack := func(be backend.Kernels, x []backend.Tensor) error { // then dgate, dup, dy
		if err := glu(be, x); err != nil {
			return err
		}
		return be.SwiGLUBack(x[4], x[5], x[2], x[3], x[1], x[6])
	}
	targets := ids(tN, tV)
	targets[2] = -1
	lp := func(be backend.Kernels, x []backend.Tensor) error { // out, saved, logits, targets
		return be.TokenLogProb(x[0], x[1], x[2], x[3], tV)
	}
	lpBack := func(be backend.Kernels, x []backend.Tensor) error { // then dlogits, dy
		if err := lp(be, x); err != nil {
			return err
		}
		return be.TokenLogProbBack(x[4], x[2], x[3], x[1], x[5], tV)
	}
	dy := r(tN)
	dy[4] = 0
	step := backend.AdamWStep{Scale: 0.5, Decay: 0.999, StepSize: 1e-2, RootBC2: 0.3, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8}
	v := r(tn)
	for i := range v {
		v[i] *= v[i]
	}
	return []kernelCase{
		{"SwiGLU", [][]float32{r(tn), r(tn), r(tn), r(tn)}, []int{1}, glu},
		{"SwiGLU/no saved", [][]float32{r(tn), none, r(tn), r(tn)}, nil, glu},
		{"SwiGLUBack", [][]float32{r(tn), r(tn), r(tn), r(tn), r(tn), r(tn), r(tn)}, []int{1}, gluBack},
		{"SwiGLUBack/dup only", [][]float32{r(tn), none, r(tn), r(tn), none, r(tn), r(tn)}, nil, gluBack},
		{"TokenLogProb", [][]float32{r(tN), r(tN), r(tN * tV), targets}, []int{1}, lp},
		{"TokenLogProb/no saved", [][]float32{r(tN), none, r(tN * tV), targets}, nil, lp},
		{"TokenLogProbBack", [][]float32{r(tN), r(tN), r(tN * tV), targets, r(tN * tV), dy}, []int{1}, lpBack},
		{"AdamW", [][]float32{r(tn), r(tn), r(tn), v}, nil, func(be backend.Kernels, x []backend.Tensor) error {
			return be.AdamW(x[0], x[1], x[2], x[3], step)
		}},
		{"Copy", [][]float32{r(tn), r(tn)}, nil, func(be backend.Kernels, x []backend.Tensor) error { return be.Copy(x[0], x[1]) }},
		{"Add", [][]float32{r(tn), r(tn)}, nil, func(be backend.Kernels, x []backend.Tensor) error { return be.Add(x[0], x[1]) }},
		{"Mul", [][]float32{r(tn), r(tn), r(tn)}, nil, func(be backend.Kernels, x []backend.Tensor) error { return be.Mul(x[0], x[1], x[2]) }},
		{"Mul/in place", [][]float32{r(tn), r(tn)}, nil, func(be backend.Kernels, x []backend.Tensor) error { return be.Mul(x[0], x[0], x[1]) }},
		{"Scale", [][]float32{r(tn)}, nil, func(be backend.Kernels, x []backend.Tensor) error { return be.Scale(x[0], -1.5) }},
	}
}
