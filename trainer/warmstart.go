package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/rollout"
)

// Demo is one ART-style demonstration (rollout.Demo): a worked solution
// of a task, with the tool result produced by really running the tool.
type Demo = rollout.Demo

// Segment is a piece of a demonstration's response (rollout.Segment).
type Segment = rollout.Segment

// demos has the task family write the warm-start library, once. The
// family draws from the run's "demos" streams, so a resumed run writes
// the same library.
func (r *Run) demos(ctx context.Context) ([]Demo, error) {
	if r.demoLib != nil {
		return r.demoLib, nil
	}
	w := r.Cfg.WarmStart
	if w.Library != "" {
		demos, err := r.libraryDemos()
		r.demoLib = demos
		return demos, err
	}
	eos := eosToken // the built-in tokenizer's, while it is being learned
	if r.Tok != nil {
		eos = r.Tok.Decode([]int{r.Tok.EOS()})
	}
	turn, turnErr := r.renderTurn(eos)
	req := family.DemoRequest{
		Format: r.Cfg.Format, Size: w.Demos, ToolFraction: w.ToolFraction,
		Sample:   func(n int) []envs.Task { return r.Train.Sample(r.taskRNG("demos", 0), n) },
		RNG:      stepRNG(r.Cfg.Seed, "demos", 0),
		ToolKind: r.Cfg.Tool.Kind, Python: r.Cfg.Tool.Python,
		UserTurn: turn, EOS: eos,
	}
	bar := r.bar(w.Demos, "building the demonstration library")
	req.Progress = bar.Report
	demos, err := r.Tasks.Demonstrations(ctx, req)
	bar.Clear()
	if err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if err := turnErr(); err != nil {
		return nil, err
	}
	r.demoLib = demos
	return demos, nil
}

// demoLibrary returns the library and saves it as demos.jsonl in the run
// folder.
func (r *Run) demoLibrary(ctx context.Context) ([]Demo, error) {
	demos, err := r.demos(ctx)
	if err != nil || !r.lead() {
		return demos, err
	}
	var b strings.Builder
	for _, d := range demos {
		line, _ := json.Marshal(d)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := atomicfile.WriteFile(filepath.Join(r.Cfg.RunDir, "demos.jsonl"), []byte(b.String()), 0o644); err != nil {
		return nil, fmt.Errorf("trainer: demonstrations: %w", err)
	}
	return demos, nil
}

// encodeDemo returns the tokens of prompt + response and the loss mask:
// 1 on the policy's text, 0 on the prompt and on tool output. The error
// is the chat template's, when it raises on the demonstration's text.
func (r *Run) encodeDemo(ctx context.Context, d Demo) ([]int, []uint8, error) {
	var t rollout.Trajectory
	prompt, err := r.renderPrompt(ctx, d.Task)
	if err != nil {
		return nil, nil, err
	}
	t.Append(r.Tok.Encode(prompt), rollout.KindPrompt, nil)
	for _, s := range d.Segments {
		k := rollout.KindModel
		if s.Tool { // a tool result or a later user turn: neither is trained on
			k = rollout.KindToolResult
		}
		text, err := r.chatSegment(s)
		if err != nil {
			return nil, nil, fmt.Errorf("trainer: task %s: %w", d.Task.ID, err)
		}
		t.Append(r.Tok.Encode(text), k, nil)
	}
	return t.Tokens, t.Mask, nil
}

// sftCoef returns dLoss/dlogp for the token-mean negative log-likelihood
// over all mask-1 tokens of the batch: -1/n on them, 0 elsewhere.
func sftCoef(masks [][]uint8) [][]float32 {
	n := 0
	for _, m := range masks {
		for _, v := range m {
			n += int(v)
		}
	}
	coef := make([][]float32, len(masks))
	for i, m := range masks {
		coef[i] = make([]float32, len(m))
		for t, v := range m {
			if v == 1 && n > 0 {
				coef[i][t] = -1 / float32(n)
			}
		}
	}
	return coef
}

// warmStart fine-tunes on the demonstration library, evaluates the result
// and checkpoints it as step 0 (the frozen reference of the KL term). from
// is the state of a warm-start checkpoint to go on from, or nil to start.
func (r *Run) warmStart(ctx context.Context, from *trainerState) (*trainerState, error) {
	if err := r.Model.MergeAdapters(); err != nil { // an init with adapters warm-starts from its merged weights
		return nil, err
	}
	if r.Cfg.WarmStart.Steps > 0 {
		if err := r.warmStartSteps(ctx, from); err != nil {
			return nil, err
		}
	}
	ev, err := r.evalAndRecord(ctx, "warmstart", 0)
	if err != nil {
		return nil, err
	}
	name := "warmstart eval"
	if r.Cfg.WarmStart.Steps == 0 {
		name = "initial eval" // there was no warm start
	}
	fmt.Fprintf(r.out, "%s: accuracy %.3f tool calls %.2f (%d rollouts)\n", name, ev.Accuracy, ev.ToolCalls, ev.N)
	st := &trainerState{Seed: r.Cfg.Seed, WarmStart: &ev, WallS: r.wall()}
	if err := r.saveCheckpoint(st, nil); err != nil {
		return nil, err
	}
	return st, nil
}

// warmStartSteps runs the supervised steps after from.WarmStep (all of
// them when from is nil). Every checkpoint.warmstart_every steps, and after
// the last one, it writes a warm-start checkpoint holding the weights and
// the optimizer state; since each step draws its batch from (seed, step)
// and the learning rate is a function of the step, a run resumed from one
// takes exactly the steps the uninterrupted run takes.
func (r *Run) warmStartSteps(ctx context.Context, from *trainerState) error {
	w := r.Cfg.WarmStart
	r.Model.SetTemperature(1) // supervised log-likelihood of the plain softmax
	demos, err := r.demoLibrary(ctx)
	if err != nil {
		return err
	}
	phases, err := r.phaseLibrary(ctx) // tool.library.atlass.warm_fraction
	if err != nil {
		return err
	}
	opt := r.red.optimizer(NewModelAdamW(r.Model, r.Model.Params, r.Cfg.WarmStart.adam().adamW(0, 1)), r.Model)
	first := 1
	if from != nil {
		if from.Optim == nil {
			return fmt.Errorf("trainer: resume warm start: the checkpoint at warm-start step %d has no optimizer state", from.WarmStep)
		}
		if err := opt.SetState(*from.Optim); err != nil {
			return fmt.Errorf("trainer: resume warm start: %w", err)
		}
		first = from.WarmStep + 1
	}
	warm := max(1, w.Steps/20)
	every := r.Cfg.Checkpoint.WarmStartEvery
	bar := r.bar(w.Steps, "warm start (steps)")
	defer bar.Clear()
	for step := first; step <= w.Steps; step++ {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		rng := stepRNG(r.Cfg.Seed, "warmstart", step)
		seqs := make([][]int, w.BatchSize)
		masks := make([][]uint8, w.BatchSize)
		for i := range seqs {
			if seqs[i], masks[i], err = r.warmSequence(ctx, demos, phases, rng); err != nil {
				return fmt.Errorf("trainer: warm start step %d: %w", step, err)
			}
		}
		coef := sftCoef(masks)
		if err := r.Model.ZeroGrad(); err != nil {
			return fmt.Errorf("trainer: warm start step %d: %w", step, err)
		}
		loss, err := r.sftBackward(seqs, coef, w.MicroBatch)
		if err != nil {
			return fmt.Errorf("trainer: warm start step %d: %w", step, err)
		}
		if _, err := opt.Step(CosineLR(step, warm, w.Steps, w.LR, 0.1)); err != nil {
			return fmt.Errorf("trainer: warm start step %d: %w", step, err)
		}
		bar.Report(step, w.Steps)
		if step%25 == 0 || step == w.Steps {
			bar.Hide()
			fmt.Fprintf(r.out, "warmstart %d/%d loss %.4f elapsed %s\n", step, w.Steps, loss, r.elapsed())
		}
		if every > 0 && (step%every == 0 || step == w.Steps) {
			st := &trainerState{Phase: phaseWarmStart, WarmStep: step, Seed: r.Cfg.Seed, WallS: r.wall()}
			if err := r.saveCheckpoint(st, opt); err != nil {
				return err
			}
		}
		if r.afterWarmStep != nil {
			r.afterWarmStep(step)
		}
	}
	return nil
}

// sftBackward is the warm start's backward pass over a batch: this
// process takes its share of the sequences (reducer.share: all of them
// on one process) and the loss Σ coef·logp is summed over the
// processes; the optimizer's step sums the gradients.
func (r *Run) sftBackward(seqs [][]int, coef [][]float32, micro int) (float64, error) {
	r.Model.SetRecompute(r.Cfg.Model.Recompute)
	lo, hi := r.red.share(len(seqs))
	loss := []float64{0}
	if lo < hi {
		logp, err := backward(r.Model, seqs[lo:hi], coef[lo:hi], micro)
		if err != nil {
			return 0, err
		}
		loss[0] = weightedSum(coef[lo:hi], logp)
	}
	if err := r.red.sum(loss); err != nil {
		return 0, fmt.Errorf("trainer: warm-start loss: %w", err)
	}
	return loss[0], nil
}

// weightedSum is Σ coef·logp: the loss whose gradient Backward computed.
func weightedSum(coef, logp [][]float32) float64 {
	s := 0.0
	for i := range coef {
		for t := range coef[i] {
			s += float64(coef[i][t]) * float64(logp[i][t])
		}
	}
	return s
}
