package trainer

import (
	"github.com/artist-rl/artist/envs/pysandbox"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Config is a whole run. A YAML file holds only what differs from
// DefaultConfig; unknown keys are errors. Every field documents its default.
type Config struct {
	// Seed drives every random choice of the run: weights, tasks, sampling.
	// Default 1.
	Seed int64 `yaml:"seed"`
	// RunDir is the run folder: resolved config, metrics, checkpoints,
	// plots, samples, summary. Default "runs/default". A folder that holds
	// a checkpoint is resumed.
	RunDir string `yaml:"run_dir"`
	// Init is a checkpoint folder (config.json + model.safetensors, e.g. a
	// HuggingFace Qwen2 checkpoint) to start from, checked against its
	// manifest.json when it has one. Empty (default) builds a fresh model
	// of shape Model with the seed.
	Init string `yaml:"init"`
	// Tokenizer is a tokenizer.json to load, with the
	// tokenizer_config.json (eos_token) and generation_config.json
	// (eos_token_id: every id that ends a turn) of its folder. Empty
	// (default) builds the byte-level vocabulary with the format's tags as
	// single tokens.
	Tokenizer string `yaml:"tokenizer"`
	// TokenizerMerges is how many byte-level BPE merges the built-in
	// tokenizer learns from the demonstration library (digits never merge).
	// 0 keeps one token per byte. Used only when Tokenizer is empty.
	// Default 256.
	TokenizerMerges int `yaml:"tokenizer_merges"`
	// Model sizes a fresh model (HuggingFace Qwen2 keys; vocab_size 0 means
	// the tokenizer's size; ignored when Init is set) and sets its LoRA
	// adapters (model.lora, off by default).
	Model ModelConfig `yaml:"model"`
	// Format names the rollout tags.
	Format format.Format `yaml:"format"`
	// Prompt renders a task as the text the policy continues.
	Prompt PromptConfig `yaml:"prompt"`
	// Task selects the task family and holds each family's section.
	Task TaskConfig `yaml:"task"`
	// Tool selects the code tool.
	Tool ToolConfig `yaml:"tool"`
	// Rollout sets group size, budgets and sampling.
	Rollout rollout.Config `yaml:"rollout"`
	// Reward weights each reward component by name.
	Reward RewardConfig `yaml:"reward"`
	// WarmStart is supervised fine-tuning on demonstrations before GRPO.
	WarmStart WarmStartConfig `yaml:"warmstart"`
	// GRPO is the reinforcement-learning phase.
	GRPO GRPOConfig `yaml:"grpo"`
	// Eval measures the policy on held-out tasks.
	Eval EvalConfig `yaml:"eval"`
	// Checkpoint sets how often and how many checkpoints are kept.
	Checkpoint CheckpointConfig `yaml:"checkpoint"`
}

// PromptConfig renders tasks for the policy.
type PromptConfig struct {
	// Template is "plain" (default: the question and a newline, for models
	// trained from scratch) or "chat" (the Qwen2.5 chat template: a system
	// turn, the question as the user turn, then the assistant turn opened).
	Template string `yaml:"template"`
	// System is the system turn of the chat template; empty uses Qwen's
	// default. Write here how to use the tags and the code tool.
	System string `yaml:"system"`
	// Demos puts task-library demonstrations before each task (ART
	// prompting); none by default.
	Demos DemosConfig `yaml:"demos"`
}

// ToolConfig selects the tool that runs the policy's calls.
type ToolConfig struct {
	// Kind is "sandbox" (default: Go code run by the yaegi sandbox),
	// "python" (Python code run in jailed python3 workers, allowed
	// wherever sandbox is, with the limits of tool.sandbox), a tool kind of the task family (family.Family.ToolKinds: for
	// example function calls run on the task's API instances) or
	// "disabled" (every call answers with an error: the ablation). The
	// kind must be one the task family lists. With sandbox.stateful
	// true, the calls of one trajectory share an interpreter, so later
	// code sees earlier definitions; the default is a fresh interpreter
	// per call, as in the paper.
	Kind    string         `yaml:"kind"`
	Sandbox sandbox.Config `yaml:"sandbox"`
	// Python names the interpreter and bubblewrap of tool.kind python
	// (Python code run in jailed python3 workers with the limits of
	// tool.sandbox); the families that take sandbox calls take it too.
	// Defaults: /usr/bin/python3 and bwrap.
	Python pysandbox.Runtime `yaml:"python"`
	// Library adds an ATLASS-style tool library to the sandbox.
	Library LibraryConfig `yaml:"library"`
}

// LibraryConfig is a database of verified Go functions (envs/toollib)
// that the policy retrieves from and may grow. Each trajectory retrieves
// the K approved functions most relevant to its task: the prompt lists
// their signatures and its snippets can call them. With Grow, a documented
// function with examples that the policy writes in a successful call joins
// a working copy of the database once its examples pass, as pending (it
// runs nowhere but in verification until a person approves it with artist
// tools approve) or, with AutoApprove, as approved; the copy is saved as
// tools.db in the run folder at each checkpoint, and a resumed run
// continues from it. Review the pending tools of that file once the run
// ends: the next checkpoint of a running run replaces it.
type LibraryConfig struct {
	// Path is the tool database (artist tools add builds one; artist
	// tools import converts a JSON library). Empty (default) runs
	// without a library.
	Path string `yaml:"path"`
	// K is how many functions each task retrieves. Default 3.
	K int `yaml:"k"`
	// Grow adds verified functions the policy writes. Default false.
	Grow bool `yaml:"grow"`
	// AutoApprove approves grown functions at once, so that later tasks
	// retrieve them, for unattended runs; the run's log says so at the
	// start. Needs Grow. Default false.
	AutoApprove bool `yaml:"auto_approve"`
	// Atlass runs the ATLASS phases with the policy inside GRPO
	// rollouts (see AtlassConfig). Off by default.
	Atlass AtlassConfig `yaml:"atlass"`
}

// RewardConfig weights reward components.
type RewardConfig struct {
	// Weights by component name (reward.Names); default the paper's
	// rewards for tasks with final answers: answer, format_relaxed, format_strict and
	// tool_success, each weight 1 (max total 4). Only the components the
	// task family lists (family.Family.Rewards) are allowed: a
	// function-calling family takes fc_state, fc_function and fc_format
	// instead (max total 1.175). A weights mapping in a config file
	// replaces the default set; -set reward.weights.NAME=W changes one
	// weight.
	Weights map[string]float64 `yaml:"weights"`
}

// WarmStartConfig is the supervised warm start on ART-style demonstrations.
type WarmStartConfig struct {
	// Steps of supervised fine-tuning; 0 skips the warm start. Default 1200
	// (a tiny model needs about 400 before it learns to copy numbers).
	Steps int `yaml:"steps"`
	// BatchSize is demonstrations per step. Default 32.
	BatchSize int `yaml:"batch_size"`
	// LR is the peak learning rate (cosine decay, 5% warmup). Default 5e-3.
	LR float64 `yaml:"lr"`
	// Demos is the size of the demonstration library. Default 2000.
	Demos int `yaml:"demos"`
	// ToolFraction is the share of demonstrations that call the tool; the
	// rest answer without it, so the warm-started policy is imperfect.
	// Default 0.4. A family may write its library otherwise (one
	// demonstration per training task, for example) and ignore Demos
	// and ToolFraction (family.DemoRequest).
	ToolFraction float64 `yaml:"tool_fraction"`
	// MicroBatch bounds the sequences of one backward pass; a batch runs
	// as several passes whose gradients add up, which bounds memory on
	// long sequences. 0 (default) runs the whole batch at once.
	MicroBatch int `yaml:"micro_batch"`
	// Library, when set, is a task library file (envs/library) whose
	// demonstrations, all of them in file order, replace the family's
	// generated ones; Demos and ToolFraction are then ignored. Empty
	// (default) uses the family's.
	Library string `yaml:"library"`
	// AdamW's constants (AdamConstants): defaults 0.9, 0.99, 1e-8.
	AdamBeta1 float64 `yaml:"adam_beta1"`
	AdamBeta2 float64 `yaml:"adam_beta2"`
	AdamEps   float64 `yaml:"adam_eps"`
}

// GRPOConfig is the reinforcement-learning phase.
type GRPOConfig struct {
	// Steps of GRPO. Default 100.
	Steps int `yaml:"steps"`
	// BatchSize is prompts per step; each gets rollout.group_size samples.
	// Default 8.
	BatchSize int `yaml:"batch_size"`
	// Advantage estimator: "grpo" (divide by the group's std, default),
	// "drgrpo" (no division), "rloo" (leave-one-out baseline),
	// "reinforce_pp" or "reinforce_pp_baseline" (REINFORCE++, normalised
	// over the batch), "gdpo" (each reward component normalised in its
	// group), or one added with RegisterAdvantage (docs/objectives.md).
	Advantage string `yaml:"advantage"`
	// Loss is the policy surrogate: "ppo_clip" (default), "gspo"
	// (sequence-level ratio clipped to [1-gspo_eps_low, 1+gspo_eps_high]),
	// "cispo" (clipped stop-gradient IS weight times log π; eps_high is
	// its upper bound), or one added with RegisterLoss.
	Loss string `yaml:"loss"`
	// RolloutCorrection weighs or rejects tokens by the mismatch between
	// the sampler's and the trainer's log-probs; off by default.
	RolloutCorrection RolloutCorrectionConfig `yaml:"rollout_correction"`
	// Epochs is mu, the passes over each batch. Default 1.
	Epochs int `yaml:"epochs"`
	// MiniBatches splits each batch into this many updates. Default 1.
	MiniBatches int `yaml:"mini_batches"`
	// EpsLow and EpsHigh clip the ratio to [1-eps_low, 1+eps_high].
	// Defaults 0.2 and 0.28.
	EpsLow  float64 `yaml:"eps_low"`
	EpsHigh float64 `yaml:"eps_high"`
	// GSPOEpsLow and GSPOEpsHigh clip GSPO's sequence ratio (loss gspo
	// only, which does not read eps_low and eps_high): defaults 3e-4 and
	// 4e-4, the GSPO paper's.
	GSPOEpsLow  float64 `yaml:"gspo_eps_low"`
	GSPOEpsHigh float64 `yaml:"gspo_eps_high"`
	// Beta weighs the k3 KL to the frozen warm-start policy; 0 (default)
	// skips the reference model.
	Beta float64 `yaml:"beta"`
	// Agg is the loss aggregation: "seq-mean-token-mean" (default, the
	// paper), "token-mean" or "seq-mean-token-sum-norm" (Dr. GRPO).
	Agg string `yaml:"agg"`
	// LR is the learning rate (constant after a linear warmup). Default 2e-4.
	LR float64 `yaml:"lr"`
	// WarmupSteps of linear learning-rate warmup. Default 5.
	WarmupSteps int `yaml:"warmup_steps"`
	// WeightDecay is AdamW's decoupled decay on matrices. Default 0.
	WeightDecay float64 `yaml:"weight_decay"`
	// MaxGradNorm clips the global gradient norm; 0 disables. Default 1.
	MaxGradNorm float64 `yaml:"max_grad_norm"`
	// MaskTruncated drops rollouts that hit the length budget from the loss,
	// as the paper does (TRL's mask_truncated_completions, DAPO's overlong
	// filtering). Default true. It is the masking half of overlong
	// handling; Overlong adds the soft penalty.
	MaskTruncated bool `yaml:"mask_truncated"`
	// MaskToolOutput keeps tool-result tokens out of the loss, as the
	// paper does. false is the ablation that puts them in (the warm start
	// masks them either way). Default true.
	MaskToolOutput bool `yaml:"mask_tool_output"`
	// MicroBatch bounds the sequences of one backward pass, as
	// warmstart.micro_batch. 0 (default) runs each mini-batch at once.
	MicroBatch int `yaml:"micro_batch"`
	// ClipRatioC is the dual clip for negative advantages (verl's
	// clip_ratio_c): where A < 0 a token's loss is at most −A·c. 0
	// (default) turns it off; otherwise > 1 (verl's default is 3).
	// Logs clip/frac_lower when on.
	ClipRatioC float64 `yaml:"clip_ratio_c"`
	// KLClamp bounds the k3 KL term to [−kl_clamp, kl_clamp], as verl's
	// low_var_kl does with 10; no gradient flows where it saturates. 0
	// (default) leaves k3 unbounded.
	KLClamp float64 `yaml:"kl_clamp"`
	// EmptySeqs is how seq-mean-token-mean and seq-mean-token-sum-norm
	// treat a sequence with no loss token: "count" (default, TRL: it adds
	// 0 and still counts in the number of sequences) or "exclude" (verl's
	// agg_loss: the mean runs over non-empty sequences only). token-mean
	// is the same under both.
	EmptySeqs string `yaml:"empty_seqs"`
	// DynamicSampling is DAPO's dynamic sampling (DynamicSamplingConfig),
	// off by default. When on, reward/ and rollout/ metrics cover every
	// rollout drawn, the loss only the groups trained on.
	DynamicSampling DynamicSamplingConfig `yaml:"dynamic_sampling"`
	// Overlong is DAPO's soft punishment of responses near the length
	// budget (OverlongConfig), off by default.
	Overlong OverlongConfig `yaml:"overlong"`
	// AdamW's constants (AdamConstants): defaults 0.9, 0.99, 1e-8.
	AdamBeta1 float64 `yaml:"adam_beta1"`
	AdamBeta2 float64 `yaml:"adam_beta2"`
	AdamEps   float64 `yaml:"adam_eps"`
	// AdvEps is the eps of the advantage's division by the group's std
	// (A = (R − mean) / (std + adv_eps)). Default 1e-6; > 0.
	AdvEps float64 `yaml:"adv_eps"`
	// MaxStaleness is k, how many updates older than the weights being
	// updated a step's rollouts may be sampled from (docs/ARCHITECTURE.md,
	// "Bounded staleness"). 0 (default) is the synchronous loop. With k ≥ 1
	// the next steps' rollouts are sampled while the trainer updates, step
	// s from the weights of update max(0, s−1−k), and the loss corrects for
	// the older policy with TISCap.
	MaxStaleness int `yaml:"max_staleness"`
	// TISCap is C of the truncated importance weight min(π_old/π_behav, C)
	// that multiplies each token's policy loss when max_staleness ≥ 1
	// (verl's TIS, AReaL's decoupled objective). Default 2; 0 turns the
	// correction off (the ratio is then taken against the sampling-time
	// log-probs); otherwise ≥ 1.
	TISCap float64 `yaml:"tis_cap"`
}

// EvalConfig measures the policy on the held-out split.
type EvalConfig struct {
	// Every N GRPO steps (and before and after GRPO); 0 evaluates only
	// before and after. Default 25.
	Every int `yaml:"every"`
	// Size is how many held-out tasks to use; 0 means all. Default 0.
	Size int `yaml:"size"`
	// Samples per task; accuracy is the mean over them (pass@1). Default 1.
	Samples int `yaml:"samples"`
	// Temperature of evaluation sampling; 0 (default) is greedy decoding.
	Temperature float64 `yaml:"temperature"`
	// SaveSamples is how many rollouts per eval go to samples/. Default 8.
	SaveSamples int `yaml:"save_samples"`
}

// CheckpointConfig sets checkpointing. Each checkpoint carries a
// manifest.json of its files' SHA-256, checked by checkpoint.Open.
type CheckpointConfig struct {
	// Every N GRPO steps; the last step always writes one. Default 50.
	Every int `yaml:"every"`
	// WarmStartEvery writes a warm-start checkpoint (weights and optimizer
	// state) every N warm-start steps and after the last one, so a run
	// killed during the warm start resumes there, bit-identical to an
	// uninterrupted run. 0 writes none: a killed warm start starts over.
	// Default 200.
	WarmStartEvery int `yaml:"warmstart_every"`
	// Keep the newest N checkpoints, warm-start ones counted with GRPO
	// ones (step-000000, the end of the warm start, is kept apart).
	// Default 2.
	Keep int `yaml:"keep"`
}

// DefaultConfig is the documented default run: a tiny policy that learns
// tool-using arithmetic on a CPU.
func DefaultConfig() Config {
	rc := rollout.DefaultConfig()
	return Config{
		Seed:            1,
		RunDir:          "runs/default",
		TokenizerMerges: 256,
		Model: ModelConfig{Config: policy.Config{
			HiddenSize: 64, IntermediateSize: 176, NumHiddenLayers: 2,
			NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 256,
			RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: true,
		}, LoRA: policy.DefaultLoRAConfig(), ReferenceDType: "f32", ComputeDType: backend.DTypeF32},
		Format:  format.DefaultFormat(),
		Prompt:  PromptConfig{Template: "plain", Demos: DemosConfig{K: 3, Select: "bm25"}},
		Task:    defaultTaskConfig(),
		Tool:    ToolConfig{Kind: "sandbox", Sandbox: sandbox.DefaultConfig(), Python: pysandbox.DefaultRuntime(), Library: LibraryConfig{K: 3, Atlass: DefaultAtlassConfig()}},
		Rollout: rc,
		Reward:  RewardConfig{Weights: reward.DefaultWeights()},
		WarmStart: WarmStartConfig{Steps: 1200, BatchSize: 32, LR: 5e-3, Demos: 2000, ToolFraction: 0.4,
			AdamBeta1: defaultAdam.Beta1, AdamBeta2: defaultAdam.Beta2, AdamEps: defaultAdam.Eps},
		GRPO: GRPOConfig{
			Steps: 100, BatchSize: 8, Advantage: "grpo", Loss: LossPPOClip, Epochs: 1, MiniBatches: 1,
			EpsLow: defaultEpsLow, EpsHigh: defaultEpsHigh, GSPOEpsLow: GSPOEpsLow, GSPOEpsHigh: GSPOEpsHigh, Agg: "seq-mean-token-mean", LR: 2e-4,
			WarmupSteps: 5, MaxGradNorm: 1, MaskTruncated: true, MaskToolOutput: true,
			EmptySeqs: EmptyCount, DynamicSampling: DynamicSamplingConfig{MaxDraws: 4},
			Overlong:  OverlongConfig{Mode: OverlongModeNone, Penalty: 1},
			AdamBeta1: defaultAdam.Beta1, AdamBeta2: defaultAdam.Beta2, AdamEps: defaultAdam.Eps, AdvEps: 1e-6,
			TISCap: 2, RolloutCorrection: DefaultRolloutCorrectionConfig(),
		},
		Eval:       EvalConfig{Every: 25, Samples: 1, Temperature: 0, SaveSamples: 8},
		Checkpoint: CheckpointConfig{Every: 50, WarmStartEvery: 200, Keep: 2},
	}
}
