// Package memplan estimates the peak memory of a run from the model's
// shape and the run's batch sizes, before any weight is read, so that a
// run that cannot fit is refused at start rather than killed hours in.
//
// The estimate is a sum of terms (Plan.Terms): the weights in float32,
// their gradients and AdamW's two moments when training, the frozen
// reference model when the KL weight is positive (in float32, or with its
// decoder-layer linear weights in bfloat16 and one matrix's float32
// scratch; with LoRA: the frozen
// weights, in float32 or with model.lora.base_dtype bf16 their layer
// weights in bfloat16, the adapters with their gradients and moments,
// and no reference copy, the base being the reference), the activations of the
// largest training graph, the KV cache of the rollout batch and a fixed
// runtime term. The activation figures are fitted to the training
// graph's planned buffers (policy's memory plan) at small shapes; the
// runtime term is calibrated on the default run's measured peak RSS. It
// is an estimate of the order of the peak, not a bound: compare it with
// what a run reports (summary.json peak_rss_mib).
package memplan

import (
	"fmt"
	"io"
	"strings"

	"github.com/artist-rl/artist/policy"
)

// Run is what a command will hold at its peak, beyond the model's shape.
type Run struct {
	// Train holds gradients and AdamW's two moments for every weight.
	Train bool
	// Reference holds a frozen copy of the weights (GRPO with beta > 0).
	Reference bool
	// Reference16 holds that copy's decoder-layer linear weights in
	// bfloat16 (model.reference_dtype bf16, policy.Model.Freeze16), with
	// a float32 scratch of the largest of them.
	Reference16 bool
	// GraphSeqs × GraphLen is the largest training graph: sequences of
	// one backward pass and tokens per sequence. 0 builds none.
	GraphSeqs, GraphLen int
	// DecodeSeqs × DecodeLen is the KV cache of the largest decoding
	// batch (rollouts: prompts × group size, each up to DecodeLen tokens).
	DecodeSeqs, DecodeLen int
	// LoRA, when enabled, trains adapters on frozen weights: Train then
	// holds gradients and moments for the adapters only, and Reference
	// costs nothing (the base is the reference). With base_dtype bf16
	// the frozen base holds its layer linear weights in bfloat16
	// (Base16Bytes).
	LoRA policy.LoRAConfig
	// Recompute keeps one hidden state per token and layer in the
	// training graph, plus one layer's buffers (model.recompute).
	Recompute bool
}

// Term is one line of a plan.
type Term struct {
	Name  string
	Bytes int64
}

// Plan is an estimate of a run's peak memory, term by term.
type Plan struct {
	Terms []Term
}

// Total is the sum of the terms, in bytes.
func (p Plan) Total() int64 {
	var n int64
	for _, t := range p.Terms {
		n += t.Bytes
	}
	return n
}

// Fitted per-token figures, in float32 values, of the training graph's
// buffers after the memory plan (policy's BenchmarkGraphMemory shapes and
// variations of each dimension): per layer 10.75·hidden + 5.875·
// intermediate, plus 0.75·heads·T for the attention probabilities the
// graph keeps when a layer's N·heads·T fits savedProbsLimit; outside the
// layers 2.25·vocab (logits, their softmax and gradient, sharing buffers)
// + 13·hidden.
const (
	perLayerHidden  = 10.75
	perLayerInter   = 5.875
	perLayerProbs   = 0.75
	outsideVocab    = 2.25
	outsideHidden   = 13
	savedProbsLimit = 8 << 20 // policy's default bound on kept probabilities (values)
	// Above headFuseAbove logit values (N·vocab) policy's LM head is one
	// chunked op whose two chunk buffers hold headChunkValues values each,
	// in place of the 2.25·vocab values a token.
	headFuseAbove   = 16 << 20
	headChunkValues = 8 << 20
)

// RuntimeBytes is the fixed term: the Go runtime, the binary, tokenizer,
// task data, the graph cache's other graphs and the collector's headroom.
// Calibrated so that the default run's estimate meets its measured peak
// RSS (541 MiB, OpenBLAS).
const RuntimeBytes int64 = 200 << 20

// Params is the number of weights of a model of shape c (the tied head
// counted once).
func Params(c policy.Config) int64 {
	C, F, V := int64(c.HiddenSize), int64(c.IntermediateSize), int64(c.VocabSize)
	kv := int64(c.NumKeyValueHeads) * headDim(c)
	layer := C*C + C + 2*(C*kv+kv) + C*C + 3*C*F + 2*C
	n := V*C + int64(c.NumHiddenLayers)*layer + C
	if !c.TieWordEmbeddings {
		n += V * C
	}
	return n
}

// LayerLinearParams is the number of decoder-layer linear weights (q, k,
// v, o, gate, up, down of every layer, biases not counted): the weights
// policy.Model.Freeze16 stores in bfloat16.
func LayerLinearParams(c policy.Config) int64 {
	C, F := int64(c.HiddenSize), int64(c.IntermediateSize)
	kv := int64(c.NumKeyValueHeads) * headDim(c)
	return int64(c.NumHiddenLayers) * (2*C*C + 2*C*kv + 3*C*F)
}

// ReferenceBytes is the memory of the frozen reference copy: its float32
// weights, or with bf16 its layer linear weights at 2 bytes each plus
// the float32 scratch a forward widens them into, one matrix at a time
// (the largest: C·F, or C·C when that is larger).
func ReferenceBytes(c policy.Config, bf16 bool) int64 {
	w := 4 * Params(c)
	if !bf16 {
		return w
	}
	C, F := int64(c.HiddenSize), int64(c.IntermediateSize)
	return w - 2*LayerLinearParams(c) + 4*C*max(F, C)
}

// Base16Bytes is the memory of a frozen base under LoRA with
// model.lora.base_dtype bf16 (policy.Model.FreezeBase16): ReferenceBytes'
// bfloat16 weights and scratch, and a second float32 scratch of the
// largest layer matrix, as the training graphs and a decoding session
// each widen into one of their own.
func Base16Bytes(c policy.Config) int64 {
	C, F := int64(c.HiddenSize), int64(c.IntermediateSize)
	return ReferenceBytes(c, true) + 4*C*max(F, C)
}

func headDim(c policy.Config) int64 {
	if c.NumAttentionHeads == 0 {
		return 0
	}
	return int64(c.HiddenSize / c.NumAttentionHeads)
}

// AdapterParams is the number of adapter weights of lora on a model of
// shape c: r·(in + out) per target and layer; 0 when lora is off.
func AdapterParams(c policy.Config, lora policy.LoRAConfig) int64 {
	if !lora.Enabled() {
		return 0
	}
	C, F := int64(c.HiddenSize), int64(c.IntermediateSize)
	kv := int64(c.NumKeyValueHeads) * headDim(c)
	sizes := map[string]int64{"q": 2 * C, "k": C + kv, "v": C + kv, "o": 2 * C, "gate": C + F, "up": C + F, "down": C + F}
	var n int64
	for _, t := range lora.Targets {
		n += sizes[strings.TrimSuffix(t, "_proj")]
	}
	return n * int64(lora.Rank) * int64(c.NumHiddenLayers)
}

// adapterActivationBytes is what adapters add to a training graph of
// seqs × T tokens: per target and token the rank-r product and its scaled
// copy, and with dropout the mask and the dropped input (in values each).
func adapterActivationBytes(c policy.Config, lora policy.LoRAConfig, seqs, T int) int64 {
	if !lora.Enabled() || seqs <= 0 || T <= 0 {
		return 0
	}
	C, F := int64(c.HiddenSize), int64(c.IntermediateSize)
	in := map[string]int64{"q": C, "k": C, "v": C, "o": C, "gate": C, "up": C, "down": F}
	var per int64
	for _, t := range lora.Targets {
		per += 2 * int64(lora.Rank)
		if lora.Dropout > 0 {
			per += 2 * in[strings.TrimSuffix(t, "_proj")]
		}
	}
	return 4 * int64(seqs) * int64(T) * int64(c.NumHiddenLayers) * per
}

// ActivationBytes estimates the buffers of one training graph of seqs
// sequences of T tokens (forward values, gradients, saved attention
// probabilities) for a model of shape c; with recompute, those of
// decoder blocks that recompute their values in the backward pass.
func ActivationBytes(c policy.Config, seqs, T int, recompute bool) int64 {
	if seqs <= 0 || T <= 0 {
		return 0
	}
	N := float64(seqs) * float64(T)
	C, F, H := float64(c.HiddenSize), float64(c.IntermediateSize), float64(c.NumAttentionHeads)
	probs := N*H*float64(T) <= savedProbsLimit
	layer := perLayerHidden*C + perLayerInter*F
	if probs {
		layer += perLayerProbs * H * float64(T)
	}
	layers := float64(c.NumHiddenLayers) * layer
	if recompute { // each block's output, and one block's values and gradients (policy's blockScratch)
		kv := float64(c.NumKeyValueHeads * int(headDim(c)))
		layers = float64(c.NumHiddenLayers)*C + 8*C + 6*float64(c.NumAttentionHeads*int(headDim(c))) + 6*kv + 7*F
		if probs {
			layers += H * float64(T)
		}
	}
	outside := outsideVocab*float64(c.VocabSize) + outsideHidden*C
	fixed := 0.0
	if recompute {
		fixed = max(F, C) * C // one weight's gradient
	}
	if N*float64(c.VocabSize) > headFuseAbove {
		outside = outsideHidden * C
		fixed += 2 * float64(max(headChunkValues, c.VocabSize))
	}
	return int64(4 * (N*(layers+outside) + fixed))
}

// KVCacheBytes is the float32 KV cache of seqs sequences of up to T
// tokens: layers × 2 (keys, values) × kv heads × head dim per token.
func KVCacheBytes(c policy.Config, seqs, T int) int64 {
	return int64(seqs) * int64(T) * int64(c.NumHiddenLayers) * 2 * int64(c.NumKeyValueHeads) * headDim(c) * 4
}

// Estimate is the plan of run r on a model of shape c. Terms that are 0
// are left out.
func Estimate(c policy.Config, r Run) Plan {
	w := 4 * Params(c)
	var p Plan
	add := func(name string, b int64) {
		if b > 0 {
			p.Terms = append(p.Terms, Term{name, b})
		}
	}
	if r.LoRA.Enabled() {
		a := 4 * AdapterParams(c, r.LoRA)
		if r.LoRA.Base16() {
			add("weights (bf16 layers, frozen)", Base16Bytes(c))
		} else {
			add("weights (f32, frozen)", w)
		}
		add(fmt.Sprintf("LoRA adapters (rank %d)", r.LoRA.Rank), a)
		if r.Train {
			add("adapter gradients", a)
			add("adapter AdamW moments", 2*a)
		}
	} else {
		add("weights (f32)", w)
		if r.Train {
			add("gradients", w)
			add("AdamW moments", 2*w)
		}
		switch {
		case r.Reference && r.Reference16:
			add("reference model (bf16 layers)", ReferenceBytes(c, true))
		case r.Reference:
			add("reference model", w)
		}
	}
	adapters := adapterActivationBytes(c, r.LoRA, r.GraphSeqs, r.GraphLen)
	if r.Recompute { // one block's, in the blocks' shared buffers
		adapters /= int64(max(c.NumHiddenLayers, 1))
	}
	add(fmt.Sprintf("activations (%d x %d tokens)", r.GraphSeqs, r.GraphLen),
		ActivationBytes(c, r.GraphSeqs, r.GraphLen, r.Recompute)+adapters)
	add(fmt.Sprintf("KV cache (%d x %d tokens)", r.DecodeSeqs, r.DecodeLen), KVCacheBytes(c, r.DecodeSeqs, r.DecodeLen))
	add("runtime and data", RuntimeBytes)
	return p
}

// Write prints the plan as a table, one term a line, then the total and
// the memory available with its source.
func (p Plan) Write(w io.Writer, avail int64, source string) {
	fmt.Fprintln(w, "memory plan:")
	for _, t := range p.Terms {
		fmt.Fprintf(w, "  %-32s %10s\n", t.Name, MiB(t.Bytes))
	}
	fmt.Fprintf(w, "  %-32s %10s\n", "estimated peak", MiB(p.Total()))
	if avail > 0 {
		fmt.Fprintf(w, "  %-32s %10s  (%s)\n", "available", MiB(avail), source)
	}
}

// Check is nil when the plan fits in avail bytes (or avail is 0:
// unknown), else an error that gives the estimate, what is available
// and the ways out.
func (p Plan) Check(avail int64, source string) error {
	if avail <= 0 || p.Total() <= avail {
		return nil
	}
	return fmt.Errorf("memory plan: the estimated peak, %s, exceeds the memory available, %s (%s): "+
		"lower micro_batch (warmstart.micro_batch, grpo.micro_batch) or the batch and group sizes, "+
		"spread the batch over more ranks (mpirun -np N), or use a larger machine; "+
		"-force runs anyway", MiB(p.Total()), MiB(avail), source)
}

// MiB formats bytes as MiB (two decimals under 10 MiB), or GiB from
// 10 GiB up.
func MiB(b int64) string {
	switch {
	case b >= 10<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b < 10<<20:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}
