package policy

// What the sampling path (sample.go) and the training graph (graph_ops.go)
// share: the model's sizes and the calls into its backend. The kernels
// themselves belong to the backend (package policy/backend). Shapes as in
// the package's legend (doc.go).

import (
	"math"

	"github.com/artist-rl/artist/policy/backend"
)

// geometry holds the sizes the kernels need.
type geometry struct {
	C, F, V, H, K, D int
	eps              float32
	scale            float32 // 1/sqrt(D)
}

func geometryOf(c Config) geometry {
	D := c.HeadDim()
	return geometry{
		C: c.HiddenSize, F: c.IntermediateSize, V: c.VocabSize,
		H: c.NumAttentionHeads, K: c.NumKeyValueHeads, D: D,
		eps:   float32(c.RMSNormEps),
		scale: float32(1 / math.Sqrt(float64(D))),
	}
}

// targetDims is the (out, in) of a LoRA target's weight.
func (g geometry) targetDims(t loraTarget) (out, in int) {
	switch t {
	case targetQ:
		return g.H * g.D, g.C
	case targetK, targetV:
		return g.K * g.D, g.C
	case targetO:
		return g.C, g.H * g.D
	case targetGate, targetUp:
		return g.F, g.C
	}
	return g.C, g.F // down
}

// heads is the attention geometry as the backend takes it.
func (g geometry) heads() backend.Heads {
	return backend.Heads{H: g.H, K: g.K, D: g.D, Scale: g.scale}
}

// host wraps a slice as a host tensor.
func host(x []float32) backend.Tensor { return backend.Host(x) }

// linear writes y [N, out] = x [N, in]·wᵀ (+ bias [out] when not empty);
// w is [out, in] as HuggingFace stores it.
func linear(be backend.Backend, y, x backend.Tensor, N, in int, w, bias backend.Tensor, out int) error {
	y = y.Slice(0, N*out)
	if err := be.MatMul(false, true, N, out, in, x, w, 0, y); err != nil {
		return err
	}
	if bias.Len() > 0 {
		return be.AddBias(y, bias)
	}
	return nil
}

// errs keeps the first error of a run of kernel calls. A kernel called
// after a failed one still runs (a device backend then fails it at once,
// a host backend never fails but on a programmer error); the run returns
// the first error and its outputs are not used.
type errs struct{ err error }

// add keeps err when it is the first.
func (e *errs) add(err error) {
	if e.err == nil {
		e.err = err
	}
}

// tokenIDs returns ids as float32 values, as the backend takes them.
func tokenIDs(ids []int) []float32 {
	out := make([]float32, len(ids))
	for i, id := range ids {
		out[i] = float32(id)
	}
	return out
}
