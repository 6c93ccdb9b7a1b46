package policy

// Frozen weights in bfloat16: stored in half the bytes, computed in
// float32. A frozen model (Freeze16) is an inference model, or the frozen
// base of adapters that train (FreezeBase16, lora16.go): the forward
// passes (LogProbs, Session.Step, Embeddings) and the training graph
// widen one weight matrix at a time into a float32 scratch right before
// its product, so the products are float32 products of the rounded
// values. A host backend widens on the host (widener); a device backend
// that implements backend.Widener holds the bfloat16 bits in its memory,
// mirrored once (weightSet.half), and widens them there (frozenReader).
// Everything that would write the frozen weights (Backward without
// adapters, EnableGrads without adapters, an optimizer over them,
// MergeAdapters) refuses it; SaveModel writes them as BF16 tensors.

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/artist-rl/artist/policy/backend"
)

// ErrFrozen16 is what the writers of the weights return (or panic with)
// on a model whose weights are frozen in bfloat16.
var ErrFrozen16 = errors.New("policy: the model's weights are frozen in bfloat16 (Freeze16): they compute forward passes and adapters' gradients only; train or merge in place a float32 model")

// roundBF16 rounds f to the nearest bfloat16, ties to even (the top 16
// bits of the float32 after rounding the low 16); values past the largest
// finite bfloat16 round to infinity, subnormals round as any value, and a
// NaN stays a NaN (quiet, same sign and top payload bits).
func roundBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN: rounding could carry it into infinity
		return uint16(b>>16) | 0x0040
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// RoundBF16 is roundBF16 for other packages: the host's rounding to
// bfloat16 (nearest, ties to even; NaN stays a quiet NaN), which the
// CUDA backend's conversion kernel must reproduce bit for bit.
func RoundBF16(f float32) uint16 { return roundBF16(f) }

// fromBF16 is the float32 of a bfloat16, exactly.
func fromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// FromBF16 is fromBF16 for other packages: the host's widening of a
// bfloat16 to float32 (exact: the bits shifted into the top half), which
// a device backend's widening (backend.Widener) must reproduce bit for
// bit.
func FromBF16(h uint16) float32 { return fromBF16(h) }

// widenChunk is the values one goroutine of widenBF16 converts: above
// it, a matrix is split over the cores.
const widenChunk = 1 << 18

// widenBF16 writes dst[i] = fromBF16(src[i]); len(dst) ≥ len(src).
func widenBF16(dst []float32, src []uint16) {
	n := len(src)
	workers := min(runtime.GOMAXPROCS(0), n/widenChunk)
	if workers < 2 {
		widenRange(dst[:n], src)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			widenRange(dst[lo:hi], src[lo:hi])
		}()
	}
	wg.Wait()
}

func widenRange(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	for i, h := range src {
		dst[i] = math.Float32frombits(uint32(h) << 16)
	}
}

// Frozen16 reports whether p holds its weights in bfloat16 (Data is then
// nil).
func (p *Param) Frozen16() bool { return p.half != nil }

// BF16 returns the bfloat16 bits of a frozen p (Frozen16), nil
// otherwise; the caller must not change them.
func (p *Param) BF16() []uint16 { return p.half }

// Len is the number of weights of p, however they are stored.
func (p *Param) Len() int {
	if p.half != nil {
		return len(p.half)
	}
	return len(p.Data)
}

// Bytes is the memory p's weights take: 2 a weight in bfloat16, 4 in
// float32 (gradients not counted).
func (p *Param) Bytes() int64 {
	if p.half != nil {
		return 2 * int64(len(p.half))
	}
	return 4 * int64(len(p.Data))
}

// roundAll writes dst[i] = roundBF16(src[i]) for the len(dst) values.
func roundAll(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = roundBF16(v)
	}
}

// freeze16 rounds p's weights to bfloat16 and drops the float32 copy and
// any gradient.
func (p *Param) freeze16() {
	if p.half != nil {
		return
	}
	h := make([]uint16, len(p.Data))
	roundAll(h, p.Data)
	p.half, p.Data, p.Grad = h, nil, nil
}

// frozenParams are the weights Freeze16 stores in bfloat16: the linear
// weights of the decoder layers. The embedding (and the head, tied or
// not) stays float32: the head's product reads the whole [V, C] matrix
// at once, so widening it would need a float32 scratch as large as the
// copy it saves; norms and biases are a few values a channel.
func (m *Model) frozenParams() []*Param {
	var ps []*Param
	for _, L := range m.Layers {
		ps = append(ps, L.Q, L.K, L.V, L.O, L.Gate, L.Up, L.Down)
	}
	return ps
}

// Freeze16 stores the model's decoder-layer linear weights in bfloat16
// (rounded to nearest, ties to even) and frees their float32 copies and
// gradients; the embedding, head, norms and biases stay float32, as do
// attached adapters. From then on its weights are for forward passes
// only: LogProbs, Session.Step and Embeddings compute in float32 on the
// rounded values, the same bits as a float32 model whose weights were
// rounded to bfloat16 and back; Backward without adapters and
// MergeAdapters return ErrFrozen16, and EnableGrads without adapters and
// an optimizer over the frozen weights panic with it (programmer
// errors); with adapters attached, Backward and EnableGrads train the
// adapters over the frozen base (FreezeBase16, which is Freeze16
// returning its error). SaveModel writes the frozen
// weights as BF16 tensors. It is meant for the frozen KL reference,
// read by LogProbs: at Qwen2.5-0.5B the weights take 1.26 GB instead of
// 1.98 GB, and widening them (about 64 ms on 2 cores) is under 1% of
// scoring a GRPO batch. Every forward call widens every matrix again, so
// decoding token by token with Session.Step pays that per step. Where
// the widening happens depends on the backend: a host backend widens on
// the host; a device backend that implements backend.Widener (cuda)
// keeps the frozen weights in its memory as bfloat16, uploaded once at
// first use, and widens each matrix there into one float32 scratch per
// Session (the largest frozen matrix), so a forward call uploads its
// inputs only; a device backend without it gets each matrix widened on
// the host and uploaded for every product. The results are the same
// bits either way (the widening is exact). It cannot be undone. Not safe
// to call while the model is in use. It panics when weights an optimizer
// updated on a device cannot be brought back (as Clone).
func (m *Model) Freeze16() {
	if err := m.FreezeBase16(); err != nil {
		panic(err)
	}
}

// newShell16 is newShell with the parameters Freeze16 freezes holding
// zeroed bfloat16 weights instead of float32 ones.
func newShell16(cfg Config, be backend.Backend) *Model {
	m := newShellAlloc(cfg, be, false)
	for _, p := range m.frozenParams() {
		p.half = make([]uint16, numel(p.Shape))
	}
	for _, p := range m.Params {
		if p.half == nil {
			p.Data = make([]float32, numel(p.Shape))
		}
	}
	return m
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// Clone16 returns a copy of m frozen in bfloat16, as m.Clone() then
// Freeze16 would give, built without the float32 copy of the frozen
// weights; adapters are not copied (the copy is the base).
func (m *Model) Clone16() *Model {
	if err := m.HostWeights(); err != nil {
		panic(err) // as Clone
	}
	c := newShell16(m.Config, m.be)
	for i, p := range c.Params {
		switch src := m.Params[i]; {
		case p.half == nil:
			copy(p.Data, src.Data)
		case src.half != nil:
			copy(p.half, src.half)
		default:
			roundAll(p.half, src.Data)
		}
	}
	return c
}

// LoadModel16 is LoadModel with the model frozen in bfloat16 as Freeze16
// leaves it, built without a float32 copy of the frozen weights: a BF16
// tensor's bits go into their bfloat16 storage unchanged (a base that
// SaveModel wrote frozen comes back bit for bit, NaN payloads included),
// and an F32 or F16 tensor is read through one float32 scratch (the
// largest such layer matrix) and rounded to nearest-even, as Freeze16
// rounds it. For every weight but a signalling NaN (which LoadModel then
// Freeze16 quiets) the result is LoadModel then Freeze16's, bit for bit;
// with adapters attached after it (LoadAdapter, AttachLoRA) it is the
// model LoadModel, the adapters and FreezeBase16 give, so a LoRA run over
// a bfloat16 base resumes from it without ever holding its base in
// float32.
func LoadModel16(dir string) (*Model, error) { return loadModel(dir, newShell16) }

// Frozen16 reports whether any of the model's weights are held in
// bfloat16 (Freeze16).
func (m *Model) Frozen16() bool {
	for _, p := range m.Params {
		if p.half != nil {
			return true
		}
	}
	return false
}

// WeightBytes is the memory the model's weights take as they are stored
// (a tied head counted once; adapters and gradients not counted).
func (m *Model) WeightBytes() int64 {
	var n int64
	for _, p := range m.Params {
		n += p.Bytes()
	}
	return n
}

// refuseFrozen16 panics with ErrFrozen16, naming the caller, when the
// model holds bfloat16 weights.
func (m *Model) refuseFrozen16(what string) {
	if m.Frozen16() {
		panic(fmt.Sprintf("%s: %v", what, ErrFrozen16))
	}
}

// deviceWidener returns the model's backend as a backend.Widener when
// it is a device backend (HostBLAS nil) that holds bfloat16 weights and
// widens them itself. Otherwise frozen weights are widened on the host
// (widener below), as a host backend's tensors are there anyway.
func (m *Model) deviceWidener() (backend.Widener, bool) {
	wd, ok := m.be.(backend.Widener)
	return wd, ok && m.onDevice()
}

// largestFrozen is the most weights a parameter frozen in bfloat16 holds:
// the size of the scratch that every frozen matrix is widened into.
func (m *Model) largestFrozen() int {
	n := 0
	for _, p := range m.Params {
		if p.half != nil {
			n = max(n, len(p.half))
		}
	}
	return n
}

// widener hands out a parameter's float32 weights for one product at a
// time: Data itself, or the bfloat16 weights widened into a scratch that
// the next call reuses. The scratch grows to the largest frozen matrix.
type widener struct{ buf []float32 }

// weights returns p's float32 weights, valid until the next call.
func (w *widener) weights(p *Param) []float32 {
	if p.half == nil {
		return p.Data
	}
	if cap(w.buf) < len(p.half) {
		w.buf = make([]float32, len(p.half))
	}
	out := w.buf[:len(p.half)]
	widenBF16(out, p.half)
	return out
}
