package policy

// The operations of the training graph. Each is a gorgonia Op whose forward
// and backward passes each call the backend's kernels, so the graph has one node per
// model operation (no broadcast or transpose nodes that copy), and no node
// ever writes into its inputs: the weight tensors, which share their
// backing arrays with Param.Data, are only read. Shapes as in the
// package's legend (doc.go).

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// kernel is a gorgonia Op computed by plain Go. Its name identifies the op
// and all of its parameters: gorgonia merges nodes with equal hashes.
type kernel struct {
	name    string
	inDims  []int // dims of each input; 0 is a scalar
	outDims int
	shape   func(in []tensor.Shape) tensor.Shape
	fwd     func(out backend.Tensor, in []backend.Tensor, shapes []tensor.Shape) error // the kernel's error (a failed launch), wrapped by Do
	diff    []bool                                                                     // differentiable inputs; nil: none
	grad    func(in G.Nodes, out, dy *G.Node) (G.Nodes, error)                         // one gradient node per input (nil where not differentiable)
	// save, when set, sizes the values the forward pass keeps in saved
	// for its backward kernels (backend.Kernels: saved tensors); 0 keeps
	// none. The backward kernels take the forward node as an input, so
	// they run after it.
	save   func(in []tensor.Shape) int
	noSave bool // save nothing, whatever save says (graphSettings.save off)

	out    *tensor.Dense  // output buffer, reused across runs: the value gorgonia sees
	outT   backend.Tensor // out as the backend holds it (graph_memory.go)
	saved  []float32      // what the forward pass saved in the last run (its host shape on a device)
	savedT backend.Tensor // saved as the backend holds it
	plan   *memoryPlan    // the graph's memory plan, which gave out; nil: none
	pos    int            // position in plan.order
	gm     *graphMemory   // where the graph's values live; nil: on the host
}

var (
	_ G.SDOp            = (*kernel)(nil)
	_ G.UsePreallocDoer = (*kernel)(nil)
)

func typeOfDims(d int) hm.Type {
	if d == 0 {
		return tensor.Float32
	}
	return G.TensorType{Dims: d, Of: tensor.Float32}
}

func (k *kernel) Arity() int { return len(k.inDims) }

func (k *kernel) Type() hm.Type {
	ts := make([]hm.Type, 0, len(k.inDims)+1)
	for _, d := range k.inDims {
		ts = append(ts, typeOfDims(d))
	}
	return hm.NewFnType(append(ts, typeOfDims(k.outDims))...)
}

func (k *kernel) InferShape(ds ...G.DimSizer) (tensor.Shape, error) {
	shapes, err := G.DimSizersToShapes(ds)
	if err != nil {
		return nil, fmt.Errorf("policy: %s: %w", k.name, err)
	}
	return k.shape(shapes), nil
}

// Do computes the op. A tensor output is written into the same buffer on
// every run (each kernel belongs to one node), which saves allocating and
// clearing every intermediate tensor of the graph per run. Inputs and
// output reach fwd as backend tensors (graph_memory.go); a scalar input
// or output is a host value.
func (k *kernel) Do(vals ...G.Value) (G.Value, error) {
	in, shapes, err := k.inputs(vals)
	if err != nil {
		return nil, err
	}
	if k.plan != nil {
		if err := k.plan.ran(k); err != nil {
			return nil, err
		}
	}
	if k.save != nil {
		n := k.save(shapes)
		if k.noSave {
			n = 0
		}
		switch {
		case n == 0:
			k.saved, k.savedT = nil, backend.Tensor{}
		case len(k.saved) != n:
			k.saved = make([]float32, n)
			if k.savedT, err = k.gm.alloc(k.saved); err != nil {
				return nil, fmt.Errorf("policy: %s: %w", k.name, err)
			}
		}
	}
	if k.outDims == 0 {
		out := []float32{0}
		if err := k.fwd(backend.Host(out), in, shapes); err != nil {
			return nil, fmt.Errorf("policy: %s: %w", k.name, err)
		}
		return G.NewF32(out[0]), nil
	}
	if s := k.shape(shapes); k.out == nil || !k.out.Shape().Eq(s) {
		k.out = tensor.New(tensor.WithShape(s...), tensor.Of(tensor.Float32))
		if k.outT, err = k.gm.alloc(k.out.Data().([]float32)); err != nil {
			return nil, fmt.Errorf("policy: %s: %w", k.name, err)
		}
	}
	if err := k.fwd(k.outT, in, shapes); err != nil {
		return nil, fmt.Errorf("policy: %s: %w", k.name, err)
	}
	return k.out, nil
}

// UsePreallocDo ignores the offered tensor in favour of the kernel's own.
func (k *kernel) UsePreallocDo(_ G.Value, vals ...G.Value) (G.Value, error) {
	return k.Do(vals...)
}

func (k *kernel) inputs(vals []G.Value) ([]backend.Tensor, []tensor.Shape, error) {
	if len(vals) != len(k.inDims) {
		return nil, nil, fmt.Errorf("policy: %s takes %d inputs, got %d", k.name, len(k.inDims), len(vals))
	}
	in := make([]backend.Tensor, len(vals))
	shapes := make([]tensor.Shape, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case *tensor.Dense:
			if v.IsScalar() {
				f, ok := v.ScalarValue().(float32)
				if !ok {
					return nil, nil, fmt.Errorf("policy: %s: input %d is %v, want float32", k.name, i, v.Dtype())
				}
				in[i], shapes[i] = backend.Host([]float32{f}), tensor.ScalarShape()
				continue
			}
			d, ok := v.Data().([]float32)
			if !ok {
				return nil, nil, fmt.Errorf("policy: %s: input %d is %v, want float32", k.name, i, v.Dtype())
			}
			t, err := k.gm.of(d)
			if err != nil {
				return nil, nil, fmt.Errorf("policy: %s: input %d: %w", k.name, i, err)
			}
			in[i], shapes[i] = t, v.Shape()
		case *G.F32:
			in[i], shapes[i] = backend.Host([]float32{float32(*v)}), tensor.ScalarShape()
		default:
			return nil, nil, fmt.Errorf("policy: %s: input %d has unsupported type %T", k.name, i, v)
		}
	}
	return in, shapes, nil
}

func (k *kernel) ReturnsPtr() bool      { return false }
func (k *kernel) CallsExtern() bool     { return false }
func (k *kernel) OverwritesInput() int  { return -1 }
func (k *kernel) WriteHash(h hash.Hash) { h.Write([]byte(k.name)) }
func (k *kernel) String() string        { return k.name }

func (k *kernel) Hashcode() uint32 {
	h := fnv.New32a()
	k.WriteHash(h)
	return h.Sum32()
}

func (k *kernel) DiffWRT(n int) []bool {
	if k.diff == nil {
		return make([]bool, n)
	}
	return k.diff
}

func (k *kernel) SymDiff(in G.Nodes, out, dy *G.Node) (G.Nodes, error) {
	if k.grad == nil {
		return nil, fmt.Errorf("policy: %s is not differentiable", k.name)
	}
	return k.grad(in, out, dy)
}

// apply adds a node computing k over the inputs.
func apply(k *kernel, in ...*G.Node) (*G.Node, error) {
	n, err := G.ApplyOp(k, in...)
	if err != nil {
		return nil, fmt.Errorf("policy: graph node %s: %w", k.name, err)
	}
	return n, nil
}

// grads applies each kernel to its inputs; a nil kernel gives a nil node.
func grads(pairs ...any) (G.Nodes, error) {
	var out G.Nodes
	for i := 0; i < len(pairs); i += 2 {
		k, _ := pairs[i].(*kernel)
		if k == nil {
			out = append(out, nil)
			continue
		}
		n, err := apply(k, pairs[i+1].([]*G.Node)...)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func nodes(n ...*G.Node) []*G.Node { return n }

func same(in []tensor.Shape) tensor.Shape { return in[0].Clone() }
