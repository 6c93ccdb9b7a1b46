package backend

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
)

// Tensor is a handle to a run of float32 values in a backend's memory,
// row-major when it holds a matrix. It is a small value: copying it copies
// the handle, not the data. A host tensor (Host) wraps a Go slice without
// copying it; a device backend makes device tensors (Device) from its
// Alloc. A backend's kernels accept the tensors of its own kind only, and
// return an error that names the kernel for others.
type Tensor struct {
	host []float32
	dev  uintptr
	n    int
}

// Host wraps x as a host tensor of len(x) values; the tensor and x share
// their storage.
func Host(x []float32) Tensor { return Tensor{host: x, n: len(x)} }

// Device is a tensor of n values at device address addr, for device
// backends; addr is opaque to everyone else.
func Device(addr uintptr, n int) Tensor { return Tensor{dev: addr, n: n} }

// Len is the number of values.
func (t Tensor) Len() int { return t.n }

// Host returns the storage of a host tensor, nil for a device tensor.
func (t Tensor) Host() []float32 { return t.host }

// Addr returns the device address of a device tensor, 0 for a host tensor.
func (t Tensor) Addr() uintptr { return t.dev }

// OnHost reports whether t is a host tensor (an empty tensor is both).
func (t Tensor) OnHost() bool { return t.dev == 0 }

// Slice returns the view of values [lo, hi) of t. It panics when the
// bounds are outside [0, Len()].
func (t Tensor) Slice(lo, hi int) Tensor {
	if lo < 0 || hi < lo || hi > t.n {
		panic(fmt.Sprintf("backend: Slice(%d, %d) of a tensor of %d values", lo, hi, t.n))
	}
	if t.dev != 0 {
		return Tensor{dev: t.dev + uintptr(lo)*4, n: hi - lo}
	}
	return Tensor{host: t.host[lo:hi:hi], n: hi - lo}
}

// Info describes a backend as it runs in this process.
type Info struct {
	Name           string `json:"name"`                      // registry name: "go", "openblas", ...
	Threads        int    `json:"threads"`                   // threads its kernels run on at most
	LibraryThreads int    `json:"library_threads,omitempty"` // threads the library uses per call, when a library computes
	Core           string `json:"core,omitempty"`            // the kernel type the library chose, e.g. OpenBLAS's "Haswell"
	Library        string `json:"library,omitempty"`         // the shared library loaded, empty for pure Go
}

func (i Info) String() string {
	s := fmt.Sprintf("%s, %d threads", i.Name, i.Threads)
	if i.LibraryThreads > 0 {
		s += fmt.Sprintf(" (library %d per call)", i.LibraryThreads)
	}
	if i.Core != "" {
		s += ", kernels " + i.Core
	}
	if i.Library != "" {
		s += ", " + i.Library
	}
	return s
}

// Heads sizes grouped-query attention: H query heads share K key/value
// heads of D values each (query head h reads key/value head h/(H/K)), and
// scores are scaled by Scale, usually 1/sqrt(D).
type Heads struct {
	H, K, D int
	Scale   float32
}

// Span is the block of rows that one sequence contributes to a batched
// decoding step: N rows from row Row on, at positions P0 … P0+N-1.
type Span struct {
	Row, N, P0 int
}

// AdamWStep holds the float32 constants of one AdamW update (see
// Kernels.AdamW): gradient scale (clipping), weight decay factor
// 1 − lr·λ, step size lr/(1−β1ᵗ), √(1−β2ᵗ), the betas and ε.
type AdamWStep struct {
	Scale, Decay, StepSize, RootBC2, Beta1, Beta2, Eps float32
}

// Backend is one way of computing the model: memory that tensors live in,
// the kernels over them, and a description of itself. Implementations are
// safe for concurrent use by distinct goroutines on distinct output
// tensors.
type Backend interface {
	Info() Info
	Memory
	Kernels
	// HostBLAS is the BLAS that gonum and gorgonia should use in this
	// process when this backend is chosen: the backend's own matrix
	// routines behind gonum's interface. Device backends return nil.
	HostBLAS() HostBLAS
}

// HostBLAS is gonum's BLAS interface in every precision, as gorgonia's
// Use and gonum's blas32.Use and blas64.Use take it. Embedding
// gonum.Implementation provides whatever a backend does not override.
type HostBLAS interface {
	blas.Float32
	blas.Float64
	blas.Complex64
	blas.Complex128
}

// Memory holds a backend's tensors and moves values between them and the
// host. Transfers happen only at the edges of a computation (weights in
// once, token ids in and logits or log-probs out per call); everything
// between stays where the backend keeps it.
//
// A host backend's tensors are Go slices: Alloc makes one, Mirror wraps
// the caller's slice without copying, Free does nothing (the garbage
// collector frees), and Upload and Download copy nothing when the
// tensor and the slice share their storage. A device backend's tensors
// live in its own memory, which only its kernels and these methods
// touch.
type Memory interface {
	// Alloc returns a zeroed tensor of n values, or the backend's error
	// (out of memory).
	Alloc(n int) (Tensor, error)
	// Mirror returns a tensor holding the values of x. A host backend
	// returns Host(x) itself: no copy, and the tensor sees every later
	// write to x. A device backend allocates a tensor and uploads x; it
	// sees later writes to x only after Upload(t, x). Weights enter a
	// backend this way, once per model, and so do a call's inputs.
	Mirror(x []float32) (Tensor, error)
	// Free releases a tensor that Alloc or Mirror returned (not a view
	// of one); the tensor and its views must not be used after. Free of
	// an empty tensor does nothing.
	Free(t Tensor)
	// Upload copies src into dst; the lengths must agree.
	Upload(dst Tensor, src []float32) error
	// Download copies src into dst once every kernel queued before it
	// has finished; the lengths must agree.
	Download(dst []float32, src Tensor) error
	// Zero sets every value of t to 0, after every kernel queued before
	// it (a view zeroes its own values only).
	Zero(t Tensor) error
}

// UploadMirror is Mirror for a device backend: it allocates a tensor of
// len(x) values and uploads x into it, freeing the tensor when the upload
// fails. An empty x gives the empty tensor, with no upload.
func UploadMirror(m Memory, x []float32) (Tensor, error) {
	t, err := m.Alloc(len(x))
	if err != nil || len(x) == 0 {
		return t, err
	}
	if err := m.Upload(t, x); err != nil {
		m.Free(t)
		return Tensor{}, err
	}
	return t, nil
}

// Kernels are the model's operations, forward and backward. Dimensions
// follow the model's shape legend: N rows (one token each), C channels, H
// and K query and key/value heads, D head dim, F MLP width, V vocab. Token
// ids travel as float32 values (exact below 2²⁴). Outputs must not alias
// inputs unless a method says so. Every output is overwritten in full,
// except where a method says it accumulates.
//
// Every kernel returns an error: a device backend's launch can fail (out
// of memory, a lost device), and a backend refuses a tensor that is not
// of its kind with an error that names the kernel. On an error the
// outputs are undefined; callers pass it up and do not use them. Sizes
// that do not fit the tensors are programmer errors that a backend may
// panic on instead (the cpu backends do, with an index out of range).
//
// A forward kernel of training may fill a saved tensor, whose size the
// method states, with intermediate values its backward kernel then reads
// instead of recomputing them; an empty saved tensor is neither written
// nor read (the backward kernel recomputes). Saved values make no
// difference to any result.
type Kernels interface {
	// MatMul computes c [m, n] = op(a)·op(b) + beta·c, where op(a) is
	// [m, k] (a is stored [k, m] when ta) and op(b) is [k, n] (b is
	// stored [n, k] when tb). With beta = 0, c is only written.
	MatMul(ta, tb bool, m, n, k int, a, b Tensor, beta float32, c Tensor) error
	// AddBias adds bias [M] to every row of y [rows, M].
	AddBias(y, bias Tensor) error
	// ColSum writes out [M] = Σ_r x[r] over the rows of x [rows, M].
	ColSum(out, x Tensor) error
	// Embed copies rows ids[r] of table [V, C] into out [N, C].
	Embed(out, table, ids Tensor, C int) error
	// EmbedBack writes dtable [V, C] = the sum of the rows of dy [N, C]
	// whose ids [N] name each row (zero for the others).
	EmbedBack(dtable, ids, dy Tensor, C int) error
	// RMSNorm writes y[r] = x[r] / sqrt(mean(x[r]²) + eps) ⊙ w for the rows
	// of x [N, C] and w [C]; y may alias x.
	RMSNorm(y, x, w Tensor, C int, eps float32) error
	// RMSNormBack writes the gradients of RMSNorm: dx [N, C] and dw [C]
	// from x, w and dy [N, C]. An empty dx or dw is not computed.
	RMSNormBack(dx, dw, x, w, dy Tensor, C int, eps float32) error
	// Rope writes into y the nh heads of D values of every row of x,
	// [N, nh·D], rotated by the angle of the row's position pos[r] (rotate-half
	// convention); cos and sin are [P, D/2] tables. inverse rotates by the
	// negative angle, which is the gradient. y may alias x. pos, like
	// spans and sizes, is a host value: a device backend takes it along
	// with the launch.
	Rope(y, x Tensor, nh, D int, pos []int, cos, sin Tensor, inverse bool) error
	// Attention writes o [N, H·D] = softmax(q·kᵀ·Scale + causal mask)·v
	// for the N/T sequences of T rows in q [N, H·D], k and v [N, K·D].
	// saved holds N·H·T values (the attention probabilities) or none.
	Attention(o, saved, q, k, v Tensor, h Heads, T int) error
	// AttentionBack writes dq [N, H·D], dk and dv [N, K·D], the gradients
	// of Attention given its inputs, its output o, what it saved and
	// do = ∂cost/∂o.
	AttentionBack(dq, dk, dv, q, k, v, o, saved, do Tensor, h Heads, T int) error
	// AttendCached is decoding attention: for each span i, the rows of q
	// and o [N, H·D] in the span attend causally over the sequence's
	// cache keys[i] and vals[i] [P, K·D], P ≥ P0+N, which already hold
	// the span's own rows.
	AttendCached(o, q Tensor, keys, vals []Tensor, spans []Span, h Heads) error
	// SwiGLU writes y = silu(gate) ⊙ up, silu(x) = x·sigmoid(x); y may
	// alias gate. saved holds len(gate) values or none.
	SwiGLU(y, saved, gate, up Tensor) error
	// SwiGLUBack writes dgate and dup, the gradients of SwiGLU given what
	// it saved and dy. An empty dgate or dup is not computed.
	SwiGLUBack(dgate, dup, gate, up, saved, dy Tensor) error
	// TokenLogProb writes out[r] = log softmax(logits[r])[targets[r]] for
	// logits [N, V] and targets [N]; a negative target gives 0. saved
	// holds N values or none.
	TokenLogProb(out, saved, logits, targets Tensor, V int) error
	// TokenLogProbBack writes dlogits[r] = dy[r]·(onehot(targets[r]) −
	// softmax(logits[r])), zero rows where the target is negative or
	// dy[r] is 0, given what TokenLogProb saved.
	TokenLogProbBack(dlogits, logits, targets, saved, dy Tensor, V int) error
	// AdamW updates p, m and v in place from the gradient g, per element:
	// g' = Scale·g, m ← β1·m + (1−β1)·g', v ← β2·v + (1−β2)·g'²,
	// p ← Decay·p − StepSize·m / (√v/RootBC2 + Eps).
	AdamW(p, g, m, v Tensor, s AdamWStep) error
	// Copy writes dst = src; the lengths must agree.
	Copy(dst, src Tensor) error
	// Add does y += x, element by element; the lengths must agree.
	Add(y, x Tensor) error
	// Mul writes y = a ⊙ b, element by element (y[i] = a[i]·b[i]); the
	// lengths must agree, and y may alias a or b.
	Mul(y, a, b Tensor) error
	// Scale does x *= s in place.
	Scale(x Tensor, s float32) error
}
