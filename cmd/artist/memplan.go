package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/artist-rl/artist/internal/memplan"
	"github.com/artist-rl/artist/internal/sysmem"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/trainer"
)

// promptAllowance is the prompt tokens a trajectory is planned with: the
// tasks are not read before the plan.
const promptAllowance = 256

// trainPlan is the memory plan of a training run, from the config alone
// (an error when the model's config.json or tokenizer cannot be read;
// the caller leaves those to the trainer, whose errors say how to fix
// them):
// the init folder's config.json (no weight is read) or the fresh model's
// shape, the largest backward pass of the warm start and of GRPO, and the
// KV cache of one step's rollouts, each sequence at the longest a
// trajectory may grow (promptAllowance, the response budget and every tool
// result with its tags), at most the model's context.
func trainPlan(cfg trainer.Config) (memplan.Plan, error) {
	mc := cfg.Model.Config
	if cfg.Init != "" {
		var err error
		if mc, err = policy.ReadConfig(cfg.Init); err != nil {
			return memplan.Plan{}, err
		}
	} else if mc.VocabSize == 0 {
		mc.VocabSize = 256 + cfg.TokenizerMerges + 32 // bytes, merges and the format's tags
		if cfg.Tokenizer != "" {
			tok, err := policy.LoadTokenizer(cfg.Tokenizer)
			if err != nil {
				return memplan.Plan{}, err
			}
			mc.VocabSize = tok.VocabSize()
		}
	}
	rc := cfg.Rollout
	T := min(mc.MaxPositionEmbeddings, promptAllowance+rc.MaxResponseTokens+rc.MaxToolCalls*(rc.MaxResultTokens+16))
	seqs := 0
	if cfg.WarmStart.Steps > 0 {
		seqs = capSeqs(cfg.WarmStart.BatchSize, cfg.WarmStart.MicroBatch)
	}
	rollouts := cfg.GRPO.BatchSize * cfg.Rollout.GroupSize
	grpoSeqs := 0
	if cfg.GRPO.Steps > 0 {
		mini := rollouts / max(cfg.GRPO.MiniBatches, 1)
		grpoSeqs = capSeqs(mini, cfg.GRPO.MicroBatch)
	}
	run := memplan.Run{
		Train: true, Reference: cfg.GRPO.Beta > 0 && cfg.GRPO.Steps > 0,
		GraphSeqs: max(seqs, grpoSeqs), GraphLen: T, DecodeSeqs: rollouts, DecodeLen: T,
		Recompute: cfg.Model.Recompute, Reference16: cfg.Model.ReferenceDType == "bf16",
	}
	if !cfg.Model.LoRA.Enabled() || cfg.GRPO.Steps == 0 {
		return memplan.Estimate(mc, run), nil
	}
	// LoRA trains adapters in GRPO; the warm start, when it runs, trains
	// the full weights: the plan is the larger of the two phases'.
	lora := run
	lora.LoRA, lora.GraphSeqs = cfg.Model.LoRA, grpoSeqs
	plan := memplan.Estimate(mc, lora)
	if seqs > 0 {
		warm := memplan.Estimate(mc, memplan.Run{Train: true, GraphSeqs: seqs, GraphLen: T, DecodeSeqs: rollouts, DecodeLen: T})
		if warm.Total() > plan.Total() {
			return warm, nil
		}
	}
	return plan, nil
}

// capSeqs is the sequences of one backward pass of a batch of n under a
// micro-batch bound (0: none).
func capSeqs(n, micro int) int {
	if micro > 0 && micro < n {
		return micro
	}
	return n
}

// checkPlan prints plan on w with the memory available and refuses a plan
// that exceeds it, unless force. A plan that runs (see heapLimit) also
// bounds the Go heap.
func checkPlan(w io.Writer, plan memplan.Plan, force bool) error {
	if err := checkPlanFits(w, plan, force); err != nil {
		return err
	}
	if limit := heapLimit(plan); limit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
		fmt.Fprintf(w, "  %-32s %10s  (GOMEMLIMIT overrides)\n", "Go heap limit", memplan.MiB(limit))
	}
	return nil
}

// heapLimit is the soft limit of the Go heap for plan: the plan's terms
// that live on the heap (all but the training graph's activations, which
// are kept outside it) and a tenth more, at least 256 MiB more; 0 (none)
// under 1 GiB. Without it the collector lets garbage grow as large as
// the live heap, which with a model's weights, gradients and moments on
// it is gigabytes beyond the plan.
func heapLimit(plan memplan.Plan) int64 {
	var heap int64
	for _, t := range plan.Terms {
		if !strings.HasPrefix(t.Name, "activations") {
			heap += t.Bytes
		}
	}
	if heap < 1<<30 {
		return 0
	}
	return heap + max(heap/10, 256<<20)
}

// checkPlanFits prints and checks plan against the device of this
// process's backend (planDevice) or, for a backend that computes on the
// host, the host's available memory; with force a plan that does not
// fit is a note.
func checkPlanFits(w io.Writer, plan memplan.Plan, force bool) error {
	err := checkPlanOn(w, plan, planDevice())
	if err != nil && force {
		fmt.Fprintf(w, "%v\n-force: running anyway\n", err)
		return nil
	}
	return err
}

// checkHostPlan prints plan with the host's available memory and
// refuses it when it exceeds that.
func checkHostPlan(w io.Writer, plan memplan.Plan) error {
	avail, source, err := sysmem.Available()
	if err != nil {
		fmt.Fprintf(w, "memory plan: %v; not checked\n", err)
		avail = 0
	}
	plan.Write(w, avail, source)
	return plan.Check(avail, source)
}

// checkInferencePlan prints and checks the plan of a command that only
// decodes with the checkpoint in dir (eval, serve): the weights and the
// KV cache of seqs sequences at the full context. A config.json that
// cannot be read plans nothing: loading the checkpoint reports it.
func checkInferencePlan(w io.Writer, dir string, seqs int, force bool) error {
	mc, err := policy.ReadConfig(dir)
	if err != nil {
		return nil
	}
	run := memplan.Run{DecodeSeqs: seqs, DecodeLen: mc.MaxPositionEmbeddings}
	return checkPlan(w, memplan.Estimate(mc, run), force)
}
