package trainer

import (
	"context"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/collective"
	"github.com/artist-rl/artist/rollout"
)

// distConfig is the run of the data-parallel tests: tinyConfig with a
// short warm start, 20 GRPO steps of 4 groups and a checkpoint every 5.
func distConfig(t *testing.T, dir string, sets ...string) Config {
	t.Helper()
	cfg := tinyConfig(t, dir)
	base := []string{"warmstart.steps=10", "grpo.steps=20", "grpo.batch_size=4", "rollout.group_size=2",
		"rollout.max_response_tokens=24", "eval.every=0", "eval.samples=1", "checkpoint.every=5", "checkpoint.keep=5"}
	for _, s := range append(base, sets...) {
		if err := applySet(&cfg, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestShard(t *testing.T) {
	cases := []struct{ n, size int }{{4, 2}, {5, 2}, {3, 4}, {7, 3}, {0, 2}}
	for i, c := range cases {
		next := 0
		for rank := range c.size {
			lo, hi := shard(c.n, rank, c.size)
			if lo != next || hi < lo || hi-lo > c.n/c.size+1 {
				t.Errorf("case %d: rank %d of %d takes [%d, %d) of %d", i, rank, c.size, lo, hi, c.n)
			}
			next = hi
		}
		if next != c.n {
			t.Errorf("case %d: the shards cover %d of %d", i, next, c.n)
		}
	}
}

// onRanks runs f on n in-process ranks and returns their errors.
func onRanks(n int, f func(c collective.Collective) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range collective.NewLocal(n) {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f(c) }()
	}
	wg.Wait()
	return errs
}

// gradCheck compares, on one rank, the gradient of one batch summed over
// the ranks of c with the gradient this rank computes of the whole batch
// alone, for the warm start's split (sftBackward) and GRPO's
// (backwardOwn), each followed by the gradient sum of the optimizer's
// step, and returns the larger relative difference.
func gradCheck(ctx context.Context, c collective.Collective, cfg Config) (float64, error) {
	r, err := Setup(ctx, cfg, nil)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	demos, err := r.demos(ctx)
	if err != nil {
		return 0, err
	}
	seqs := make([][]int, 7) // odd: the ranks' shares differ
	masks := make([][]uint8, len(seqs))
	for i := range seqs {
		if seqs[i], masks[i], err = r.encodeDemo(ctx, demos[i%len(demos)]); err != nil {
			return 0, err
		}
	}
	rng := rand.New(rand.NewSource(5))
	coefs := [][][]float32{sftCoef(masks), make([][]float32, len(seqs))}
	for i, s := range seqs {
		coefs[1][i] = make([]float32, len(s))
		for k := range s {
			coefs[1][i][k] = float32(rng.NormFloat64()) / 50
		}
	}
	trajs := make([]*rollout.Trajectory, len(seqs))
	for i := range trajs {
		trajs[i] = &rollout.Trajectory{}
	}
	worst := 0.0
	for k, coef := range coefs {
		r.red = solo{}
		r.Model.ZeroGrad()
		if _, err := backward(r.Model, seqs, coef, 2); err != nil {
			return 0, err
		}
		want := gradVector(r)
		d := newDist(c)
		r.red = d
		r.Model.ZeroGrad()
		if k == 0 {
			_, err = r.sftBackward(seqs, coef, 2)
		} else {
			lo, hi := shard(len(seqs), c.Rank(), c.Size())
			for _, tr := range trajs[lo:hi] {
				d.mine[tr] = true
			}
			_, err = r.backwardOwn(trajs, seqs, coef, 2)
		}
		if err == nil {
			err = d.allReduceGrads(r.Model) // what the wrapped optimizer's Step does first
		}
		if err != nil {
			return 0, err
		}
		worst = max(worst, relDiff(gradVector(r), want))
	}
	return worst, nil
}

func gradVector(r *Run) []float64 {
	var v []float64
	for _, p := range r.Model.Params {
		for _, g := range p.Grad {
			v = append(v, float64(g))
		}
	}
	return v
}

// relDiff is ‖a−b‖/‖b‖.
func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range b {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	if len(a) != len(b) || n == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(d / n)
}

// TestDistGradientLocal is test (a) on in-process ranks: the all-reduced
// gradient of a batch split over 2 and 3 ranks equals the one-process
// gradient within 1e-6 relative.
func TestDistGradientLocal(t *testing.T) {
	cfg := distConfig(t, t.TempDir(), "tool.kind=disabled", "rollout.max_tool_calls=0")
	for _, n := range []int{2, 3} {
		var mu sync.Mutex
		worst := 0.0
		errs := onRanks(n, func(c collective.Collective) error {
			d, err := gradCheck(context.Background(), c, cfg)
			mu.Lock()
			worst = max(worst, d)
			mu.Unlock()
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("n=%d rank %d: %v", n, i, err)
			}
		}
		t.Logf("%d ranks: gradient relative difference %.2e", n, worst)
		if worst > 1e-6 {
			t.Errorf("%d ranks: all-reduced gradient differs from one process's by %.2e relative, want <= 1e-6", n, worst)
		}
	}
}

// TestDistRefusesDifferentConfigs is test (d) on in-process ranks: every
// rank refuses to start and names the key.
func TestDistRefusesDifferentConfigs(t *testing.T) {
	dir := t.TempDir()
	errs := onRanks(2, func(c collective.Collective) error {
		lr := "grpo.lr=0.01"
		if c.Rank() == 1 {
			lr = "grpo.lr=0.02"
		}
		_, err := TrainOn(context.Background(), distConfig(t, dir, lr), c, nil)
		return err
	})
	for rank, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "grpo.lr is 0.02 on rank 1 and 0.01 on rank 0") {
			t.Errorf("rank %d: %v, want a refusal naming grpo.lr", rank, err)
		}
	}
}

func TestConfigDiff(t *testing.T) {
	cases := []struct{ a, b, key string }{
		{"a: 1\nb: {c: 2}\n", "a: 1\nb: {c: 2}\n", ""},
		{"a: 1\nb: {c: 2}\n", "a: 1\nb: {c: 3}\n", "b.c"},
		{"a: 1\n", "a: 1\nz: x\n", "z"},
		{"a: [1, 2]\n", "a: [1, 3]\n", "a"},
	}
	for i, c := range cases {
		if key, _, _ := configDiff([]byte(c.a), []byte(c.b)); key != c.key {
			t.Errorf("case %d: key %q, want %q", i, key, c.key)
		}
	}
}

// TestDistRunLocal trains on 1 and 2 in-process ranks: the ranks end
// with the same weights (checkWeights fails the run otherwise), and those
// of 2 ranks are those of 1 within 1e-4 relative.
func TestDistRunLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two runs")
	}
	train := func(n int) []float64 {
		dir := t.TempDir()
		errs := onRanks(n, func(c collective.Collective) error {
			_, err := TrainOn(context.Background(), distConfig(t, dir, "grpo.steps=6"), c, nil)
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%d ranks, rank %d: %v", n, i, err)
			}
		}
		return checkpointWeights(t, filepath.Join(dir, "checkpoints", "step-000006"))
	}
	d := relDiff(train(2), train(1))
	t.Logf("weights after 6 steps: 2 ranks vs 1 differ by %.2e relative", d)
	if d > 1e-4 {
		t.Errorf("2-rank weights differ from 1-rank by %.2e relative, want <= 1e-4", d)
	}
}

// checkpointWeights loads a checkpoint's weights as one vector.
func checkpointWeights(t *testing.T, dir string) []float64 {
	t.Helper()
	m, _, err := checkpoint.LoadModel(dir, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	var v []float64
	for _, p := range m.Params {
		for _, x := range p.Data {
			v = append(v, float64(x))
		}
	}
	return v
}

// TestDistResumeOtherRanks: a run of 2 ranks resumed on 1, and without a
// launcher (Train), goes on, saying so, and ends within rounding of the
// 2-rank run.
func TestDistResumeOtherRanks(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three runs")
	}
	dir := t.TempDir()
	sets := []string{"grpo.steps=6", "checkpoint.every=3"}
	train := func(n int, out io.Writer) {
		errs := onRanks(n, func(c collective.Collective) error {
			_, err := TrainOn(context.Background(), distConfig(t, dir, sets...), c, out)
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%d ranks, rank %d: %v", n, i, err)
			}
		}
	}
	last := filepath.Join(dir, "checkpoints", "step-000006")
	train(2, nil)
	want := checkpointWeights(t, last)
	if err := os.RemoveAll(last); err != nil {
		t.Fatal(err)
	}
	var solo strings.Builder
	if _, err := Train(context.Background(), distConfig(t, dir, sets...), &solo); err != nil {
		t.Fatalf("Train on a 2-rank run: %v", err)
	}
	if !strings.Contains(solo.String(), "resuming a run of 2 ranks in one process") {
		t.Errorf("output lacks the message on the launcher:\n%s", solo.String())
	}
	if d := relDiff(checkpointWeights(t, last), want); d > 1e-4 {
		t.Errorf("resumed without a launcher: weights differ from the 2-rank run by %.2e relative, want <= 1e-4", d)
	}
	if err := os.RemoveAll(last); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	train(1, &out)
	if !strings.Contains(out.String(), "resuming a run of 2 ranks on 1") {
		t.Errorf("output lacks the message on the changed number of ranks:\n%s", out.String())
	}
	if d := relDiff(checkpointWeights(t, last), want); d > 1e-4 {
		t.Errorf("resumed on 1 rank: weights differ from the 2-rank run by %.2e relative, want <= 1e-4", d)
	}
}
