package policy

// The training path: a gorgonia graph over a padded batch that computes
// per-token log-probs and the gradient of a weighted sum of them. Shapes
// as in the package's legend (doc.go).

import (
	"fmt"
	"runtime"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

const (
	padMultiple = 16 // T is rounded up to a multiple of this, to reuse graphs
	batchPad    = 8  // B above this is rounded up to a multiple of it, likewise
	maxGraphs   = 4  // graphs kept per model; the least recently used goes first
)

// graphSettings tune how a model builds and keeps its training graphs.
// Each model holds its own (defaultGraphSettings); tests change a
// model's to check that every way gives the same results.
type graphSettings struct {
	cacheBytes    int64 // see SetGraphCacheBytes
	plan          bool  // new graphs share buffers by a memory plan (planMemory)
	save          bool  // forward kernels save values for their backward kernels
	maxSavedProbs int   // attention probabilities one layer keeps (N·H·T values); longer batches recompute them
	// The LM head is one fused, chunked op (headLogProbOp) when the
	// graph's logits would hold more than headFuseAbove values, with
	// chunks of headChunkValues logits (at least one row).
	headFuseAbove, headChunkValues int
	recompute                      bool // decoder blocks recompute their values in the backward pass (graph_block.go)
	pad                            bool // each sequence takes T rows, padded, instead of packing (to measure packing)
}

func defaultGraphSettings() graphSettings {
	return graphSettings{cacheBytes: 64 << 20, plan: true, save: true, maxSavedProbs: 8 << 20,
		headFuseAbove: 16 << 20, headChunkValues: 8 << 20}
}

// SetGraphCacheBytes bounds the memory of the compiled training graphs m
// keeps (activations, saved values and gradients of each padded shape),
// beside the count bound of four: after a new graph is built, the least
// recently used others are closed until the rest fit. The graph in use is
// always kept, however large. The default is 64 MiB; 0 keeps only the
// graph in use. Call it before training starts.
func (m *Model) SetGraphCacheBytes(n int64) { m.gs.cacheBytes = n }

// trainGraph is one compiled graph for a shape (N, T): N rows that hold
// a packed batch whose sequences have at most T tokens.
type trainGraph struct {
	N, T    int
	mode    *batchMode // the blocks' rows: load sets their sequences and positions
	vm      G.VM
	gm      *graphMemory // where the values live
	params  []*G.Node    // aligned with graphParams; values share Param.Data
	grads   []*G.Node    // ∂cost/∂param, aligned with wrt
	wrt     []*Param     // the trainable parameters whose gradients are graph nodes; kernels add the others' to Param.Grad themselves
	ids     []float32    // [N] token ids (padding 0); backs the ids input
	targets []float32    // [N] id of the next token, -1 where none
	coef    []float32    // [N] weight of each row's log-prob in the cost
	logp    *G.Node      // [N] log p(targets[r] | tokens up to r)
	used    int64        // for least-recently-used eviction
	eg      *G.ExprGraph
	saves   []*kernel // forward kernels that keep values for backward
	scratch int64     // bytes of kernels' own scratch buffers
	bytes   int64     // memory held after a run (sizeBytes); 0 before
	plan    *memoryPlan
}

// Backward computes logp[i][t] = log p(seqs[i][t] | seqs[i][:t]) for t ≥ 1
// (logp[i][0] = 0), like LogProbs, and ADDS to every Param.Grad the
// gradient of Σ_i Σ_{t≥1} coef[i][t]·logp[i][t]. coef has the shape of seqs;
// coef[i][0] is ignored. Supervised fine-tuning passes −1/count on answer
// tokens; GRPO passes ∂loss/∂logp.
//
// The sequences are packed, not padded: back to back in the rows of the
// batch, each attending only over its own tokens. The graph's shape is
// (N, T): N rows, at least the tokens, and T tokens a sequence at most,
// at least the longest, each rounded up to a value 4, 5, 6 or 7 times a
// power of two (packedShape); the rows after the last
// sequence are padding sequences of at most T rows, with no target and no
// weight. At most four graphs are kept per model. The graph reads the weights straight from Param.Data
// (no copy), so in-place optimizer updates are seen by the next call.
// Backward is not safe for concurrent use on one model. On a model
// frozen in bfloat16 (Freeze16) it trains the attached adapters, reading
// each frozen weight widened for its product (FreezeBase16), and returns
// ErrFrozen16 when none are attached.
func (m *Model) Backward(seqs [][]int, coef [][]float32) (logp [][]float32, err error) {
	if m.trainsFrozen() {
		return nil, fmt.Errorf("policy: Backward: %w", ErrFrozen16)
	}
	longest, err := m.checkBatch(seqs, coef)
	if err != nil {
		return nil, err
	}
	logp = make([][]float32, len(seqs))
	for i, s := range seqs {
		logp[i] = make([]float32, len(s))
	}
	if longest == 0 {
		return logp, nil
	}
	N, T := packedShape(seqs, longest)
	if m.gs.pad {
		T = (longest + padMultiple - 1) / padMultiple * padMultiple
		N = paddedBatch(len(seqs)) * T
	}
	tg, err := m.graph(N, T)
	if err != nil {
		return nil, err
	}
	starts := tg.load(seqs, coef, m.gs.pad)
	if err := tg.bind(m); err != nil {
		return nil, err
	}
	for _, in := range [][]float32{tg.ids, tg.targets, tg.coef} {
		if err := tg.gm.upload(in); err != nil {
			return nil, fmt.Errorf("policy: backward: %w", err)
		}
	}
	tg.vm.Reset()
	tg.plan.next = 0
	if err := m.EnableGrads(); err != nil { // kernels add into the gradients as they run
		return nil, fmt.Errorf("policy: backward: %w", err)
	}
	if err := tg.vm.RunAll(); err != nil {
		return nil, fmt.Errorf("policy: backward: %w", err)
	}
	if err := tg.addGrads(); err != nil {
		return nil, err
	}
	if tg.bytes == 0 {
		tg.bytes = tg.sizeBytes()
		m.graphs.trim(tg, m.gs.cacheBytes)
	}
	lp := tg.logp.Value().Data().([]float32)
	if err := tg.gm.download(lp); err != nil {
		return nil, fmt.Errorf("policy: backward: %w", err)
	}
	for i, s := range seqs {
		for t := 1; t < len(s); t++ {
			logp[i][t] = lp[starts[i]+t-1]
		}
	}
	return logp, nil
}

// checkBatch validates the arguments of Backward and returns the longest
// sequence length.
func (m *Model) checkBatch(seqs [][]int, coef [][]float32) (int, error) {
	if len(coef) != len(seqs) {
		return 0, fmt.Errorf("policy: backward: %d coefficient rows for %d sequences", len(coef), len(seqs))
	}
	longest := 0
	for i, s := range seqs {
		if len(coef[i]) != len(s) {
			return 0, fmt.Errorf("policy: backward: sequence %d has %d tokens but %d coefficients", i, len(s), len(coef[i]))
		}
		if len(s) > m.Config.MaxPositionEmbeddings {
			return 0, fmt.Errorf("policy: backward: sequence %d has %d tokens, over max_position_embeddings %d", i, len(s), m.Config.MaxPositionEmbeddings)
		}
		for t, tok := range s {
			if tok < 0 || tok >= m.Config.VocabSize {
				return 0, fmt.Errorf("policy: backward: token %d of sequence %d is %d, outside the vocabulary [0, %d)", t, i, tok, m.Config.VocabSize)
			}
		}
		longest = max(longest, len(s))
	}
	return longest, nil
}

// bind makes every parameter node read its Param.Data again if the slice
// was replaced since the graph was built (e.g. by loading weights), and
// on a device backend registers the model's mirror of each.
func (tg *trainGraph) bind(m *Model) error {
	for i, p := range m.graphParams() {
		if err := tg.gm.mirror(m, p); err != nil {
			return err
		}
		n := tg.params[i]
		if d := n.Value().Data().([]float32); len(d) == len(p.Data) && &d[0] == &p.Data[0] {
			continue
		}
		if err := G.Let(n, backed(p)); err != nil {
			return fmt.Errorf("policy: rebind %s: %w", p.Name, err)
		}
	}
	return nil
}

// addGrads adds the graph's parameter gradients into the model's
// (graphMemory.addGrad).
func (tg *trainGraph) addGrads() error {
	for i, p := range tg.wrt {
		v := tg.grads[i].Value()
		if v == nil {
			return fmt.Errorf("policy: backward: no gradient computed for %s", p.Name)
		}
		t, err := tg.gm.of(v.Data().([]float32))
		if err == nil {
			err = tg.gm.addGrad(p, t)
		}
		if err != nil {
			return fmt.Errorf("policy: backward: gradient of %s: %w", p.Name, err)
		}
	}
	return nil
}

// parallelChunks runs fn over [0, n) in contiguous chunks on up to
// GOMAXPROCS goroutines when n is large enough to pay for them.
func parallelChunks(n int, fn func(lo, hi int)) {
	backend.Split(n, min(runtime.GOMAXPROCS(0), n/(1<<15)), fn)
}

// backed wraps Param.Data in a tensor without copying it.
func backed(p *Param) *tensor.Dense {
	return tensor.New(tensor.WithShape(p.Shape...), tensor.WithBacking(p.Data))
}

// builder adds the model's operations to a graph; the first error sticks
// and turns later calls into no-ops.
type builder struct {
	err        error
	be         backend.Backend
	gm         *graphMemory
	g          geometry
	T          int
	cosT, sinT backend.Tensor // [T, D/2]
	pn         map[*Param]*G.Node
	saves      []*kernel
	gs         graphSettings
	lora       *LoRA   // the model's adapters; when set the base is frozen
	model      *Model  // the model whose graph this is
	invTemp    float32 // 1/temperature of the log-probs
	// direct are the parameters whose kernels add their gradients into
	// Param.Grad themselves; scratchBytes sizes kernels' own buffers.
	direct       map[*Param]bool
	scratchBytes int64
	blocks       *blockShared          // what the decoder blocks share
	directEmbed  bool                  // the embedding's gradient is added into Param.Grad by the anchor's kernel
	children     map[*G.Node][]*G.Node // the inputs of every node op made, for backprop
}

func (b *builder) op(k *kernel, in ...*G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	if k.save != nil {
		k.noSave = !b.gs.save
		b.saves = append(b.saves, k)
	}
	n, err := apply(k, in...)
	b.err = err
	if err == nil {
		b.children[n] = in
	}
	return n
}

// graphParams are the parameters a graph of m reads as nodes: every
// weight, then the adapters' A and B. Weights frozen in bfloat16 are no
// nodes: only the decoder blocks read them, widened (batchMode.weight).
func (m *Model) graphParams() []*Param {
	ps := m.Params
	if m.Frozen16() {
		ps = nil
		for _, p := range m.Params {
			if !p.Frozen16() {
				ps = append(ps, p)
			}
		}
	}
	if m.lora == nil {
		return ps
	}
	return append(append([]*Param(nil), ps...), m.lora.Params()...)
}

// buildGraph builds and compiles the graph for N rows of sequences of at
// most T tokens.
func buildGraph(m *Model, N, T int) (*trainGraph, error) {
	g := geometryOf(m.Config)
	eg := G.NewGraph()
	tg := &trainGraph{N: N, T: T, ids: make([]float32, N), targets: make([]float32, N), coef: make([]float32, N)}
	gm := newGraphMemory(m.be, m.w)
	b := &builder{be: m.be, gm: gm, g: g, T: T, pn: make(map[*Param]*G.Node), gs: m.gs, lora: m.lora, model: m, invTemp: m.invTemp(), direct: map[*Param]bool{}, children: map[*G.Node][]*G.Node{}}
	cos, sin := ropeTables(T, g.D, m.Config.RopeTheta)
	if err := b.tables(cos, sin); err != nil {
		return nil, err
	}
	for _, in := range [][]float32{tg.ids, tg.targets, tg.coef} {
		if _, err := gm.alloc(in); err != nil {
			gm.release()
			return nil, fmt.Errorf("policy: graph inputs: %w", err)
		}
	}
	ids, targets, coef := b.inputs(eg, m, tg) // [N] each

	x, anchor := b.embed(eg, m, ids, N) // [N, C]
	for l, L := range m.Layers {
		x = b.block(x, l, L) // [N, C]
	}
	b.err = b.allocBlocks()
	x = b.norm(x, m.Norm)                   // [N, C]
	tg.logp = b.head(x, m.Head, targets, N) // [N]
	if b.err != nil {
		gm.release()
		return nil, b.err
	}
	cost := b.op(costOp(m.be), tg.logp, coef) // scalar
	if b.err != nil {
		gm.release()
		return nil, fmt.Errorf("policy: graph cost: %w", b.err)
	}
	wrt := b.wrt(m, tg, anchor)
	all, err := b.backprop(eg, cost, wrt)
	if err != nil {
		gm.release()
		return nil, fmt.Errorf("policy: graph gradient: %w", err)
	}
	tg.grads = all[:len(tg.wrt)]
	for _, n := range eg.AllNodes() {
		if k, ok := n.Op().(*kernel); ok {
			k.gm = gm
		}
	}
	tg.plan = &memoryPlan{release: func() {}}
	if m.gs.plan {
		if tg.plan, err = planMemory(eg, append([]*G.Node{tg.logp}, all...), gm); err != nil {
			gm.release()
			return nil, err
		}
	}
	tg.vm = G.NewTapeMachine(eg)
	tg.eg, tg.saves, tg.scratch, tg.gm = eg, b.saves, b.scratchBytes, gm
	tg.mode = &batchMode{pos: make([]int, N)} // a model without layers attends nowhere
	if b.blocks != nil {
		tg.mode = b.blocks.mode
	}
	return tg, nil
}

// inputs adds the graph's parameter nodes (to b.pn and tg.params) and
// returns its input nodes ids, targets and coef [N], which read tg's.
func (b *builder) inputs(eg *G.ExprGraph, m *Model, tg *trainGraph) (ids, targets, coef *G.Node) {
	for _, p := range m.graphParams() {
		n := G.NewTensor(eg, tensor.Float32, len(p.Shape), G.WithShape(p.Shape...), G.WithName(p.Name), G.WithValue(backed(p)))
		b.pn[p] = n
		tg.params = append(tg.params, n)
	}
	N := len(tg.ids)
	input := func(name string, data []float32) *G.Node {
		v := tensor.New(tensor.WithShape(N), tensor.WithBacking(data))
		return G.NewVector(eg, tensor.Float32, G.WithShape(N), G.WithName(name), G.WithValue(v))
	}
	return input("ids", tg.ids), input("targets", tg.targets), input("coef", tg.coef)
}

// wrt lists the nodes whose gradients the graph computes: the trainable
// parameters whose gradients no kernel adds into Param.Grad itself (their
// params go to tg.wrt), then the anchor when there is one. The blocks'
// backward kernels add their weights' or adapters' gradients themselves:
// asking for the anchor's gradient makes the graph run every one of them
// even when no gradient node is left for a trainable parameter.
func (b *builder) wrt(m *Model, tg *trainGraph, anchor *G.Node) []*G.Node {
	wrt := make([]*G.Node, 0, len(tg.params))
	for _, p := range m.TrainParams() {
		if b.direct[p] && !(p == m.Embed && p == m.Head && !b.directEmbed) { // a tied head's embedding may also have the graph's gradient
			continue
		}
		tg.wrt = append(tg.wrt, p)
		wrt = append(wrt, b.pn[p])
	}
	if anchor != nil {
		wrt = append(wrt, anchor)
	}
	return wrt
}

// tables gives the builder the rotary tables as the backend holds them.
func (b *builder) tables(cos, sin []float32) error {
	var err error
	if b.cosT, err = b.gm.constant(cos); err != nil {
		return fmt.Errorf("policy: rotary tables: %w", err)
	}
	if b.sinT, err = b.gm.constant(sin); err != nil {
		b.gm.release()
		return fmt.Errorf("policy: rotary tables: %w", err)
	}
	return nil
}

// costOp is the graph's cost Σ_r logp[r]·coef[r] for logp and coef [N],
// a host scalar computed from their host values (Backward reads only its
// gradient). Its gradient with respect to logp is coef·dy.
func costOp(be backend.Backend) *kernel {
	k := &kernel{
		name: "cost", inDims: []int{1, 1}, outDims: 0,
		shape: func([]tensor.Shape) tensor.Shape { return tensor.ScalarShape() },
		diff:  []bool{true, false},
	}
	k.fwd = func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
		lp, err := download(be, in[0])
		if err != nil {
			return err
		}
		c, err := download(be, in[1])
		if err != nil {
			return err
		}
		var sum float32
		for i, v := range lp {
			sum += v * c[i]
		}
		out.Host()[0] = sum
		return nil
	}
	k.grad = func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		return grads(&kernel{
			name: "costGrad", inDims: []int{1, 0}, outDims: 1, shape: same,
			fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
				if err := be.Copy(out, in[0]); err != nil {
					return err
				}
				return scale(be, out, in[1].Host()[0])
			},
		}, nodes(in[1], dy), nil, nil)
	}
	return k
}
