package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
)

// Summary is what summary.json holds: held-out results before and after
// GRPO and the wall time of the whole run.
type Summary struct {
	WarmStart EvalResult `json:"warmstart"`
	Final     EvalResult `json:"final"`
	WallS     float64    `json:"wall_s"`
	Steps     int        `json:"steps"`
	Seed      int64      `json:"seed"`
	Tool      string     `json:"tool"`
	// Backend is the compute backend of the run's last process: name,
	// threads, the library's kernel type.
	Backend backend.Info `json:"backend"`
	// PeakRSSMiB is the highest peak resident memory of the processes
	// that ran the run (a resumed run keeps the earlier processes' peak
	// when it is higher than its own; rank 0's under a launcher), sandbox
	// workers not counted.
	PeakRSSMiB float64 `json:"peak_rss_mib"`
	// ReferenceBytes is the memory of the KL reference's weights as they
	// are stored (model.reference_dtype) when the run holds a copy of its
	// own (grpo.beta > 0 without LoRA); absent otherwise.
	ReferenceBytes int64 `json:"reference_bytes,omitempty"`
	// ToolLibraries is what the policy's code could import with tool.kind
	// python: the interpreter and its version first, then each preloaded
	// library with its version; absent for other tools.
	ToolLibraries []string `json:"tool_libraries,omitempty"`
}

// stepOutput is what one GRPO step measured.
type stepOutput struct {
	metrics  Metrics
	tokens   int // tokens processed (rollout + update)
	accuracy float64
}

// grpo runs GRPO steps from st.Step to the configured total.
func (r *Run) grpo(ctx context.Context, st *trainerState) (*Summary, error) {
	opt, ref, err := r.grpoModels(st)
	if err != nil {
		return nil, err
	}
	mlog, err := r.grpoMetrics(st)
	if err != nil {
		return nil, err
	}
	defer mlog.Close()
	src, err := r.startBatches(ctx, st.Step)
	if err != nil {
		return nil, err
	}
	defer src.close()
	var final *EvalResult
	if _, ahead := src.(*staleRollouts); !ahead || r.servers == nil {
		final, err = r.grpoSteps(ctx, st, src, opt, ref, mlog)
	} else {
		// The rollouts' share of the processor comes first: the steps
		// run on a thread of their own at a lower priority, so the
		// producer's requests and tool calls (on other threads) never
		// wait for the update's time slice (see overlapThreads).
		done := make(chan struct{})
		go func() {
			defer close(done)
			lowerThreadPriority()
			final, err = r.grpoSteps(ctx, st, src, opt, ref, mlog)
		}()
		<-done
	}
	if err != nil {
		return nil, err
	}
	return r.finish(ctx, st, final)
}

// grpoSteps runs the GRPO steps after st.Step, logging each to mlog, and
// returns the evaluation after the last one, if it ran.
func (r *Run) grpoSteps(ctx context.Context, st *trainerState, src batchSource, opt optimizer, ref *policy.Model, mlog *metricsLog) (*EvalResult, error) {
	g := r.Cfg.GRPO
	var final *EvalResult
	first, loopStart := st.Step, time.Now()
	for step := st.Step + 1; step <= g.Steps; step++ {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		t0 := time.Now()
		sp := r.startStep(step, g.Steps)
		r.seedDropout(step)
		out, err := r.grpoStep(ctx, step, src, opt, ref)
		sp.Stop()
		if err != nil {
			return nil, err
		}
		m := out.metrics
		if final, err = r.evalAfterStep(ctx, step, m); err != nil {
			return nil, err
		}
		st.Step = step
		if err := r.checkpointAfterStep(st, opt, m); err != nil {
			return nil, err
		}
		m["timing/step_s"] = time.Since(t0).Seconds()
		if err := mlog.write(step, m); err != nil {
			return nil, err
		}
		r.progress(step, first, g.Steps, loopStart, m, out)
	}
	return final, nil
}

// grpoModels prepares what GRPO updates and measures against: the LoRA
// adapters when configured, the optimizer (resumed from st), and the KL
// reference (nil when grpo.beta is 0).
func (r *Run) grpoModels(st *trainerState) (optimizer, *policy.Model, error) {
	if err := r.prepareLoRA(); err != nil {
		return nil, nil, err
	}
	opt := r.red.optimizer(r.newOptimizer(), r.Model)
	if st.Optim != nil {
		if err := opt.SetState(*st.Optim); err != nil {
			return nil, nil, fmt.Errorf("trainer: resume optimizer: %w", err)
		}
		st.Optim = nil // in the optimizer now; the checkpoints take it from there
	}
	if r.Cfg.GRPO.Beta == 0 {
		return opt, nil, nil
	}
	ref, err := r.reference()
	if err != nil {
		return nil, nil, err
	}
	if r.Model.LoRA() == nil { // a copy of its own, not the base
		r.refBytes = ref.WeightBytes()
		fmt.Fprintf(r.out, "trainer: KL reference: %s weights, %.1f MiB\n", r.Cfg.Model.ReferenceDType, float64(r.refBytes)/(1<<20))
	}
	return opt, ref, nil
}

// grpoMetrics opens metrics.jsonl keeping the records up to st.Step;
// a run that starts GRPO writes the warm start's evaluation as step 0.
func (r *Run) grpoMetrics(st *trainerState) (*metricsLog, error) {
	keep := st.Step
	if keep == 0 {
		keep = -1 // the step-0 record is written again below
	}
	mlog, err := r.openMetrics(keep)
	if err != nil {
		return nil, err
	}
	if st.Step == 0 && st.WarmStart != nil {
		m := Metrics{}
		r.putEval(m, *st.WarmStart)
		if err := mlog.write(0, m); err != nil {
			mlog.Close()
			return nil, err
		}
	}
	return mlog, nil
}

// evalAfterStep evaluates after step when eval.every says so and after
// the last step, adding the results and their time to m. It returns the
// last step's result, nil after any other.
func (r *Run) evalAfterStep(ctx context.Context, step int, m Metrics) (*EvalResult, error) {
	last := step == r.Cfg.GRPO.Steps
	if !last && (r.Cfg.Eval.Every <= 0 || step%r.Cfg.Eval.Every != 0) {
		return nil, nil
	}
	te := time.Now()
	tag := fmt.Sprintf("step-%06d", step)
	if last {
		tag = "final"
	}
	ev, err := r.evalAndRecord(ctx, tag, step)
	if err != nil {
		return nil, err
	}
	r.putEval(m, ev)
	m["timing/eval_s"] = time.Since(te).Seconds()
	if !last {
		return nil, nil
	}
	return &ev, nil
}

// checkpointAfterStep saves a checkpoint of st after the last step and
// when checkpoint.every says so, adding its time to m.
func (r *Run) checkpointAfterStep(st *trainerState, opt optimizer, m Metrics) error {
	step := st.Step
	if step != r.Cfg.GRPO.Steps && (r.Cfg.Checkpoint.Every <= 0 || step%r.Cfg.Checkpoint.Every != 0) {
		return nil
	}
	tc := time.Now()
	st.WallS = r.wall()
	if err := r.saveCheckpoint(st, opt); err != nil {
		return err
	}
	m["timing/checkpoint_s"] = time.Since(tc).Seconds()
	return nil
}

// progress prints the one line per step.
func (r *Run) progress(step, first, total int, loopStart time.Time, m Metrics, out stepOutput) {
	el := r.elapsed()
	done := step - first
	eta := time.Duration(float64(time.Since(loopStart)) / float64(done) * float64(total-step)).Round(time.Second)
	fmt.Fprintf(r.out, "step %d/%d reward %.3f acc %.3f tools %.2f tok/s %.0f elapsed %s eta %s\n",
		step, total, m["reward/mean"], out.accuracy, m["rollout/tool_calls/mean"], m["throughput/tokens_per_s"], el, eta)
}

// elapsed is the wall time of the run, earlier processes of a resumed run
// included.
func (r *Run) elapsed() time.Duration {
	return time.Duration(r.wall() * float64(time.Second)).Round(time.Second)
}

// wall is elapsed in seconds.
func (r *Run) wall() float64 { return r.priorWall + time.Since(r.start).Seconds() }

// putEval records a held-out evaluation as eval/<task>/...: pass@1, tool
// calls, total reward, each reward component and response length.
func (r *Run) putEval(m Metrics, ev EvalResult) {
	pre := "eval/" + r.Cfg.Task.Name + "/"
	m[pre+"pass@1"] = ev.Accuracy
	m[pre+"tool_calls"] = ev.ToolCalls
	m[pre+"reward"] = ev.Reward
	m[pre+"response_len"] = ev.ResponseLen
	for k, v := range ev.Parts {
		m[pre+"reward/"+k] = v
	}
	putGroups(m, pre, ev.Groups)
}

// finish evaluates the final policy and writes summary.json and the plots.
// final is the evaluation of the last step, nil when this call ran none.
func (r *Run) finish(ctx context.Context, st *trainerState, final *EvalResult) (*Summary, error) {
	if final == nil {
		ev, err := r.evalAndRecord(ctx, "final", r.Cfg.GRPO.Steps)
		if err != nil {
			return nil, err
		}
		final = &ev
	}
	if err := r.red.checkWeights(r.Model, r.out, "at the end"); err != nil {
		return nil, err
	}
	ev := *final
	sum := &Summary{Final: ev, Steps: st.Step, Seed: r.Cfg.Seed, Tool: r.Cfg.Tool.Kind,
		WallS: math.Round(r.wall()*10) / 10, Backend: r.Model.Backend().Info(),
		PeakRSSMiB: math.Round(r.peakRSS()), ReferenceBytes: r.refBytes, ToolLibraries: r.toolLibraries()}
	if st.WarmStart != nil {
		sum.WarmStart = *st.WarmStart
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	if !r.lead() {
		return sum, nil // rank 0 writes the run folder
	}
	if err := atomicfile.WriteFile(r.summaryPath(), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("trainer: summary: %w", err)
	}
	if err := PlotRun(r.Cfg.RunDir, r.Reward.Names()); err != nil {
		return nil, err
	}
	before := "warm start"
	if r.Cfg.WarmStart.Steps == 0 {
		before = "initial"
	}
	fmt.Fprintf(r.out, "final eval: accuracy %.3f tool calls %.2f (%s %.3f, %.2f) wall %.0fs\n",
		ev.Accuracy, ev.ToolCalls, before, sum.WarmStart.Accuracy, sum.WarmStart.ToolCalls, sum.WallS)
	return sum, nil
}

func (r *Run) newOptimizer() *AdamW {
	g := r.Cfg.GRPO
	return NewModelAdamW(r.Model, r.Model.TrainParams(), g.adam().adamW(g.WeightDecay, g.MaxGradNorm))
}

// lr is the GRPO learning rate at a step: linear warmup, then constant.
func (r *Run) lr(step int) float64 {
	g := r.Cfg.GRPO
	if step <= g.WarmupSteps {
		return g.LR * float64(step) / float64(g.WarmupSteps+1)
	}
	return g.LR
}

// maxTokens bounds a response (model and tool tokens), the Dr. GRPO norm.
func (r *Run) maxTokens() int { return r.Cfg.Rollout.MaxResponseTokens }
