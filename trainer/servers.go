package trainer

// Training rollouts on rollout servers (rollout.servers): the fleet, the
// weights pushed to it before each step's rollouts, and the engine that
// samples through it.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/fleet"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// rolloutServers is the run's fleet and what it was sent.
type rolloutServers struct {
	fleet    *fleet.Fleet
	modelDir string // rollout.vllm_model_dir, absolute, with weight_sync vllm-reload; "" otherwise
	pushed   int    // the step whose weights the servers hold; -1 before the first push
	checked  bool   // the servers' tokenizers were checked
}

// newRolloutServers is nil without servers (rc.Servers).
func newRolloutServers(rc rollout.Config, tok *policy.Tokenizer) (*rolloutServers, error) {
	if len(rc.Servers) == 0 {
		return nil, nil
	}
	f, err := fleet.New(rc.Servers, tok)
	if err != nil {
		return nil, fmt.Errorf("trainer: rollout.servers: %w", err)
	}
	s := &rolloutServers{fleet: f, pushed: -1}
	if rc.WeightSync == rollout.SyncVLLMReload {
		f.Sync = fleet.VLLMReload
		if s.modelDir, err = filepath.Abs(rc.VLLMModelDir); err != nil {
			return nil, fmt.Errorf("trainer: rollout.vllm_model_dir: %w", err)
		}
	}
	return s, nil
}

// weightsDir is where the weights of a step are written for the servers.
func (r *Run) weightsDir(step int) (string, error) {
	return filepath.Abs(filepath.Join(r.Cfg.RunDir, "rollout-weights", fmt.Sprintf("step-%06d", step)))
}

// syncServers gives the servers r.Model's weights as weight_version step
// (the step whose rollouts they sample in the synchronous loop), unless
// they hold them already: by a new folder each server loads
// (pushFolder), or, with weight_sync vllm-reload, over the files of the
// folder the servers were started on, which each re-reads
// (reloadFolder). Nothing happens without servers.
func (r *Run) syncServers(ctx context.Context, step int, m Metrics) error {
	s := r.servers
	if s == nil || s.pushed == step {
		return nil
	}
	t0 := time.Now()
	push := r.pushFolder
	if s.modelDir != "" {
		push = r.reloadFolder
	}
	if err := push(ctx, step); err != nil {
		return err
	}
	s.pushed = step
	m["timing/weight_sync_s"] = time.Since(t0).Seconds()
	return nil
}

// pushFolder writes the weights in the checkpoint layout (WriteWeights;
// the tokenizer files are links to the last push's) and has every server
// load them (fleet.Push), then removes the folder of the version before.
// The first time, it refuses a server with another tokenizer
// (fleet.Check); Push refuses one that reports other weights than those
// written.
func (r *Run) pushFolder(ctx context.Context, step int) error {
	s := r.servers
	dir, err := r.weightsDir(step)
	if err != nil {
		return fmt.Errorf("trainer: rollout weights: %w", err)
	}
	prev := ""
	if s.pushed >= 0 {
		prev, _ = r.weightsDir(s.pushed)
	}
	if err := checkpoint.WriteWeightsAfter(dir, r.Model, r.Tok, prev); err != nil {
		return fmt.Errorf("trainer: rollout weights: %w", err)
	}
	if !s.checked {
		sha, err := checkpoint.FileSHA256(dir, policy.TokenizerJSONFile)
		if err != nil {
			return err
		}
		if err := s.fleet.Check(ctx, sha); err != nil {
			return err
		}
		s.checked = true
	}
	sha, err := checkpoint.FileSHA256(dir, "model.safetensors")
	if err != nil {
		return err
	}
	if err := r.push(ctx, dir, step, sha); err != nil {
		return err
	}
	if s.pushed >= 0 {
		if old, err := r.weightsDir(s.pushed); err == nil {
			os.RemoveAll(old)
		}
	}
	return nil
}

// reloadFolder checks the servers' tokenizers the first time
// (fleet.Check), writes the weights over the model files of
// rollout.vllm_model_dir (checkpoint.WriteModelFiles) and has every server re-read
// that folder (fleet.Push with fleet.VLLMReload). Nothing checks that a
// server serves the new weights after the reload (vLLM reports no
// version); one left on old weights shows in rollout/logprob_diff/mean.
func (r *Run) reloadFolder(ctx context.Context, step int) error {
	s := r.servers
	if !s.checked {
		if err := s.fleet.Check(ctx, ""); err != nil {
			return err
		}
		s.checked = true
	}
	if err := checkpoint.WriteModelFiles(s.modelDir, r.Model); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("trainer: rollout.vllm_model_dir: %w: set it to the folder every vLLM server was started on (vllm serve DIR)", err)
		}
		return fmt.Errorf("trainer: rollout.vllm_model_dir: %w", err)
	}
	return r.push(ctx, s.modelDir, step, "")
}

// push is fleet.Push, naming the servers it dropped.
func (r *Run) push(ctx context.Context, dir string, step int, sha string) error {
	dropped, err := r.servers.fleet.Push(ctx, dir, strconv.Itoa(step), sha)
	for _, url := range dropped {
		fmt.Fprintf(r.out, "trainer: rollout server %s does not answer; the other servers take its requests\n", url)
	}
	return err
}

// rolloutEngine is the engine of the training rollouts: r.Engine, through
// the servers when the run has them, else on the engine's continuous
// batcher over r.Model. Both sample the same trajectories from the same
// streams (rollout.Streams).
func (r *Run) rolloutEngine(rc rollout.Config) *rollout.Engine {
	e := r.Engine(rc)
	e.Progress = r.stepBar.hook() // nil off a terminal
	if r.servers != nil {
		e.Completer = r.servers.fleet
	}
	return e
}

// logprobDiffOf is the mean absolute difference, over the model tokens
// of trajs, between the log-probs the rollouts were sampled with (the
// servers') and the trainer's, logp[i] those of trajs[i].Tokens
// (rollout/logprob_diff/mean): the mismatch between the decoding and
// training paths; 0 when there is no model token.
func logprobDiffOf(trajs []*rollout.Trajectory, logp [][]float32) float64 {
	sum, n := 0.0, 0
	for i, cur := range logp {
		t := trajs[i]
		for k, kind := range t.Kinds {
			if kind.Sampled() {
				sum += math.Abs(float64(cur[k]) - float64(t.LogProbs[k]))
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
