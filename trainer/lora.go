package trainer

import (
	"fmt"
	"slices"

	"github.com/artist-rl/artist/policy"
)

// ModelConfig is the model section: the shape of a fresh model (the
// HuggingFace Qwen2 keys, inline) and its LoRA adapters.
type ModelConfig struct {
	policy.Config `yaml:",inline"`
	// LoRA trains low-rank adapters instead of the full weights in the
	// GRPO phase (model.lora.rank > 0; off by default). The warm start,
	// when it runs, trains the full weights (a model from scratch has
	// nothing for adapters to adapt); GRPO then freezes them, attaches
	// fresh adapters (A from the run's seed, B = 0) and steps only those,
	// and the KL reference is the frozen base itself. GRPO checkpoints
	// hold the base weights and the adapters in PEFT's layout; artist
	// export -merge writes the merged weights. model.lora.base_dtype bf16
	// holds the frozen base's layer weights in bfloat16 for GRPO
	// (freezeBase): half their memory, and the reference is that base. A
	// resumed run (openResume) and a run from an init without a warm
	// start (initLoader) read that base straight into bfloat16.
	LoRA policy.LoRAConfig `yaml:"lora"`
	// Recompute makes every backward pass (warm start and GRPO) recompute
	// each decoder block's values instead of keeping them from the
	// forward pass (default false): the training graph then holds one
	// hidden state per token and layer, for about one more forward pass
	// of the blocks, with the same gradients bit for bit
	// (policy.Model.SetRecompute). With model.lora it needs
	// model.lora.dropout 0.
	Recompute bool `yaml:"recompute"`
	// ReferenceDType is how the frozen KL reference of a full-weights run
	// (grpo.beta > 0) holds its decoder-layer linear weights: "f32"
	// (default) or "bf16", rounded to nearest-even bfloat16 and widened
	// to float32 one matrix at a time for each product
	// (policy.Model.Freeze16). bf16 takes the reference's weights from
	// 1.98 GB to 1.26 GB at Qwen2.5-0.5B (the embedding stays float32)
	// and moves its log-probs by bfloat16 rounding, so the KL term and
	// the run's numbers change; f32 stays the default so that runs keep
	// their numbers. With model.lora the reference is the base itself,
	// not a copy, and this key does not apply.
	ReferenceDType string `yaml:"reference_dtype"`
	// ComputeDType is the type the backend's matrix products read their
	// operands in: "f32" (default) or "bf16", which rounds both operands
	// of every product to bfloat16 and multiplies and sums in float32
	// (tensor cores on a GPU). Weights, gradients, the optimizer's state,
	// norms, softmax and every other kernel stay float32. Only the cuda
	// backend computes in bf16; on another backend bf16 is refused at
	// start. It changes what is trained, so a resumed run keeps its
	// value.
	ComputeDType string `yaml:"compute_dtype"`
}

// referenceDTypes are the values model.reference_dtype takes.
var referenceDTypes = []string{"f32", "bf16"}

// attachLoRA gives the policy the adapters of model.lora for GRPO: fresh
// ones from the seed when it has none (A drawn from the stream
// "lora/init"), else it checks that those it loaded from a checkpoint
// are the configured ones. The adapters' dropout masks are reseeded per
// update (seedDropout).
func (r *Run) attachLoRA() error {
	want := r.Cfg.Model.LoRA
	have := r.Model.LoRA()
	if have == nil {
		return r.Model.AttachLoRA(want, stepRNG(r.Cfg.Seed, "lora/init", 0))
	}
	got := have.Config
	norm := func(ts []string) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t
			if len(t) > 5 && t[len(t)-5:] == "_proj" {
				out[i] = t[:len(t)-5]
			}
		}
		slices.Sort(out)
		return out
	}
	if got.Rank != want.Rank || got.Alpha != want.Alpha || got.Dropout != want.Dropout || !slices.Equal(norm(got.Targets), norm(want.Targets)) {
		return fmt.Errorf("trainer: the checkpoint's adapters (rank %d, alpha %g, dropout %g, targets %v) are not model.lora's (rank %d, alpha %g, dropout %g, targets %v): resume with the run's own model.lora",
			got.Rank, got.Alpha, got.Dropout, got.Targets, want.Rank, want.Alpha, want.Dropout, want.Targets)
	}
	return nil
}

// seedDropout derives the adapters' dropout masks of a GRPO step's update
// from (seed, step), so a resumed run draws the same ones.
func (r *Run) seedDropout(step int) {
	if l := r.Model.LoRA(); l != nil {
		l.SeedDropout(stepRNG(r.Cfg.Seed, "lora/dropout", step).Int63())
	}
}

// prepareLoRA sets the policy's adapters up for GRPO: with model.lora on,
// attachLoRA then freezeBase; with it off, adapters the policy was loaded
// with (an init folder that is a LoRA checkpoint) are merged into its
// weights, which then train in full.
func (r *Run) prepareLoRA() error {
	if r.Cfg.Model.LoRA.Enabled() {
		if err := r.attachLoRA(); err != nil {
			return err
		}
		return r.freezeBase()
	}
	if r.Model.LoRA() != nil {
		fmt.Fprintf(r.out, "trainer: merging the init's LoRA adapters into its weights (model.lora.rank is 0: the full weights train)\n")
		return r.Model.MergeAdapters()
	}
	return nil
}

// reference is the frozen policy of the KL term: the base itself, adapters
// off, in a LoRA run (the weights GRPO started from, never stepped), else
// the warm start's checkpoint loaded again.
func (r *Run) reference() (*policy.Model, error) {
	if r.Model.LoRA() != nil {
		return r.Model.Base(), nil
	}
	return r.referenceModel()
}

// freezeBase holds the base's decoder-layer linear weights in bfloat16
// under the adapters when model.lora.base_dtype is bf16
// (policy.Model.FreezeBase16: forward and backward read them widened to
// float32; the adapters, embedding, head and norms stay float32), and
// says what they take. A base that was loaded frozen (initLoader,
// resumesBase16: policy.LoadModel16, the bits FreezeBase16 would give)
// stays as it is. Nothing with f32.
func (r *Run) freezeBase() error {
	if !r.Cfg.Model.LoRA.Base16() {
		return nil
	}
	if !r.Model.Frozen16() {
		if err := r.Model.FreezeBase16(); err != nil {
			return fmt.Errorf("trainer: model.lora.base_dtype bf16: %w", err)
		}
	}
	frozen := int64(0)
	for _, p := range r.Model.Params {
		if p.Frozen16() {
			frozen += int64(p.Len())
		}
	}
	after := r.Model.WeightBytes()
	fmt.Fprintf(r.out, "trainer: LoRA base: layer weights in bf16, %.1f MiB of weights (%.1f MiB in f32)\n",
		float64(after)/(1<<20), float64(after+2*frozen)/(1<<20))
	return nil
}

// initLoader is how setupModel reads the init folder. A run that trains
// (Run.trains) with model.lora.base_dtype bf16, no warm start
// (warmstart.steps 0: no step trains the full weights) and an init
// without adapters (the warm start would merge them into float32
// weights) reads it with policy.LoadModel16: the layer weights go from
// the file into bfloat16 without a float32 copy, BF16 tensors bit for
// bit and F32 or F16 ones rounded to nearest-even as FreezeBase16 rounds
// them, and GRPO starts from the base the float32 load and freezeBase
// would give, bit for bit. The evaluation before GRPO ("initial eval")
// then scores that base: the same numbers as the float32 load's for an
// init whose layer weights are BF16 (a HuggingFace bf16 checkpoint), the
// rounded base's for an F32 one. Any other run uses policy.LoadModel.
func (r *Run) initLoader() func(string) (*policy.Model, error) {
	c := r.Cfg
	if !r.trains || !c.Model.LoRA.Base16() || c.WarmStart.Steps > 0 || policy.HasAdapter(c.Init) {
		return policy.LoadModel
	}
	return policy.LoadModel16
}

// validateBaseDType checks model.lora.base_dtype: f32 or bf16, and bf16
// only where adapters train over the base (model.lora.rank > 0).
func (c ModelConfig) validateBaseDType() error {
	switch d := c.LoRA.BaseDType; {
	case !slices.Contains(policy.LoRABaseDTypes, d):
		return fmt.Errorf("config: model.lora.base_dtype %q is unknown: use f32 or bf16 (bf16 holds the frozen base's layer weights in bfloat16 under LoRA)", d)
	case d == "bf16" && !c.LoRA.Enabled():
		return fmt.Errorf("config: model.lora.base_dtype bf16 freezes the base under LoRA adapters, but model.lora.rank is 0 (the full weights train, in float32): set model.lora.rank (e.g. 16) to train adapters over a bf16 base, or model.lora.base_dtype: f32 (for a bf16 KL reference of a full-weights run, model.reference_dtype: bf16)")
	}
	return nil
}
