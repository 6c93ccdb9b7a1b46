package trainer

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

func TestStaleSchedule(t *testing.T) {
	cases := []struct {
		k, first, lag, last int
		want                []int // versionFor(first+1..last)
	}{
		{1, 0, 0, 5, []int{0, 0, 1, 2, 3}},
		{2, 0, 0, 5, []int{0, 0, 0, 1, 2}},
		{1, 3, 0, 6, []int{3, 3, 4}}, // resumed at step 3: no older weights exist
		{1, 0, 1, 5, []int{0, 0, 0, 1, 2}},
	}
	for i, c := range cases {
		p := &staleRollouts{k: c.k, first: c.first, lag: c.lag, last: c.last}
		for j, w := range c.want {
			if got := p.versionFor(c.first + 1 + j); got != w {
				t.Errorf("case %d: versionFor(%d) = %d, want %d", i, c.first+1+j, got, w)
			}
		}
		last := c.want[len(c.want)-1]
		if !p.needed(last) || p.needed(last+1) {
			t.Errorf("case %d: needed(%d) = %v, needed(%d) = %v; want true, false", i, last, p.needed(last), last+1, p.needed(last+1))
		}
	}
}

func TestTISWeightScalesPolicyTerm(t *testing.T) {
	cfg := DefaultLossConfig()
	cfg.Beta = 0.1
	base := SeqInput{
		LogP: []float32{-1, -0.5, -2}, OldLogP: []float32{-1.1, -0.4, -2}, RefLogP: []float32{-1, -1, -1},
		Mask: []uint8{1, 1, 0}, Adv: 0.7,
	}
	plain := PolicyLoss(cfg, []SeqInput{base})
	ones := base
	ones.ISWeight = []float32{1, 1, 1}
	if got := PolicyLoss(cfg, []SeqInput{ones}); got.Loss != plain.Loss || got.Coef[0][0] != plain.Coef[0][0] || got.Coef[0][1] != plain.Coef[0][1] {
		t.Errorf("weights of 1 changed the loss: %v, without %v", got, plain)
	}
	noKL := cfg
	noKL.Beta = 0
	half := base
	half.ISWeight = []float32{0.5, 2, 9}
	a, b := PolicyLoss(noKL, []SeqInput{base}), PolicyLoss(noKL, []SeqInput{half})
	// seq-mean-token-mean over 2 tokens: each token's term is scaled by its weight.
	for k, w := range []float64{0.5, 2} {
		if got, want := float64(b.Coef[0][k]), w*float64(a.Coef[0][k]); math.Abs(got-want) > 1e-6 {
			t.Errorf("token %d: coef %g, want %g", k, got, want)
		}
	}
	if b.Coef[0][2] != 0 {
		t.Errorf("masked token has coef %g", b.Coef[0][2])
	}
	// The KL term is not weighted: with KL on, the difference is the policy term's alone.
	c := PolicyLoss(cfg, []SeqInput{half})
	if got, want := c.Loss-c.PolicyLoss, plain.Loss-plain.PolicyLoss; math.Abs(got-want) > 1e-12 {
		t.Errorf("KL part %g with weights, %g without", got, want)
	}
}

func TestStaleConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		sets []string
		want string
	}{
		{"negative", []string{"grpo.max_staleness=-1"}, "grpo.max_staleness must be >= 0"},
		{"cap below 1", []string{"grpo.tis_cap=0.5"}, "grpo.tis_cap"},
		{"grow", []string{"grpo.max_staleness=1", "tool.library.path=x.db", "tool.library.grow=true"}, "tool.library.grow"},
		{"embed", []string{"grpo.max_staleness=1", "prompt.demos.select=embed"}, "prompt.demos.select"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(nil, "test.yaml", c.sets)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %q", err, c.want)
			}
		})
	}
}

// staleRun trains tinyConfig with max_staleness k (and the producer
// lagging lag versions) and returns its step records.
func staleRun(t *testing.T, k, lag int) []Metrics {
	t.Helper()
	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	cfg.GRPO.MaxStaleness = k
	r, err := Setup(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.staleLag = lag
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return recs[1:] // GRPO steps
}

// TestStaleRunRepeats: a max_staleness 1 run is the same twice (what a
// step trains on does not depend on when the producer ran), its step
// records the scheduled staleness, and its first step, sampled from the
// same weights as the synchronous run's, draws the same rollouts.
func TestStaleRunRepeats(t *testing.T) {
	a, b2 := staleRun(t, 1, 0), staleRun(t, 1, 0)
	if len(a) != 4 || len(b2) != 4 {
		t.Fatalf("%d and %d step records, want 4", len(a), len(b2))
	}
	for i := range a {
		for key, v := range a[i] {
			if strings.HasPrefix(key, "timing/") || strings.HasSuffix(key, "per_s") || strings.HasPrefix(key, "sys/") {
				continue
			}
			if w := b2[i][key]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Errorf("step %d: %s = %v, then %v", i+1, key, v, w)
			}
		}
		want := math.Min(float64(i), 1)
		if a[i]["rollout/staleness/mean"] != want || a[i]["rollout/dropped_stale"] != 0 {
			t.Errorf("step %d: staleness %v dropped %v, want %v and 0", i+1, a[i]["rollout/staleness/mean"], a[i]["rollout/dropped_stale"], want)
		}
		if _, ok := a[i]["timing/wait_rollout_s"]; !ok {
			t.Errorf("step %d: no timing/wait_rollout_s", i+1)
		}
		if w := a[i]["rollout/tis_weight/mean"]; !(w > 0 && w <= 2) {
			t.Errorf("step %d: rollout/tis_weight/mean %v, want in (0, 2]", i+1, w)
		}
	}
	// Step 1 is sampled from the weights the synchronous run samples it
	// from; the weights are then exactly 1 up to the two paths' rounding.
	if d := a[0]["rollout/logprob_diff/mean"]; !(d < 1e-4) {
		t.Errorf("step 1: rollout/logprob_diff/mean %v, want the rounding of a fresh rollout", d)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "golden_run.json")) // the synchronous run (TestShortRunMatchesGolden)
	if err != nil {
		t.Fatal(err)
	}
	var sync golden
	if err := json.Unmarshal(b, &sync); err != nil {
		t.Fatal(err)
	}
	if math.Abs(a[0]["reward/mean"]-sync.Reward[0]) > 1e-9 {
		t.Errorf("step 1 reward %v, synchronous %v", a[0]["reward/mean"], sync.Reward[0])
	}
}

// TestStaleDropsOld: a producer forced one version behind the schedule
// hands over rollouts two updates old, past max_staleness 1: they are
// dropped and counted, and those steps make no update.
func TestStaleDropsOld(t *testing.T) {
	recs := staleRun(t, 1, 1)
	const perStep = 2 * 4 // batch_size x group_size
	wantStale := []float64{0, 1, 2, 2}
	for i, m := range recs {
		dropped := wantStale[i] > 1
		if m["rollout/staleness/mean"] != wantStale[i] {
			t.Errorf("step %d: staleness %v, want %v", i+1, m["rollout/staleness/mean"], wantStale[i])
		}
		_, updated := m["loss/policy"]
		switch {
		case dropped && (m["rollout/dropped_stale"] != perStep || updated):
			t.Errorf("step %d: dropped %v (want %d), update ran %v", i+1, m["rollout/dropped_stale"], perStep, updated)
		case !dropped && (m["rollout/dropped_stale"] != 0 || !updated):
			t.Errorf("step %d: dropped %v, update ran %v; want 0 and true", i+1, m["rollout/dropped_stale"], updated)
		}
	}
}

// TestStaleResume: a run resumed at a checkpoint has no older weights, so
// its first step after it samples from the checkpoint's (staleness 0) and
// the schedule goes on from there.
func TestStaleResume(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	cfg.GRPO.MaxStaleness = 1
	cfg.GRPO.Steps = 2
	if _, err := Train(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	cfg.GRPO.Steps = 4
	if _, err := Train(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 0, 1} // steps 1-2, then resumed at 2
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	for i, m := range recs[1:] {
		if m["rollout/staleness/mean"] != want[i] {
			t.Errorf("step %d: staleness %v, want %v", i+1, m["rollout/staleness/mean"], want[i])
		}
	}
}

// TestOverlapThreads: while a producer drives servers, the scheduler has
// one more thread and the kernels keep theirs; restoring undoes both.
func TestOverlapThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	restore := overlapThreads()
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("GOMAXPROCS %d while overlapping from 2, want 3", got)
	}
	if got := backend.Threads(); got != 2 {
		t.Errorf("kernels on %d threads while overlapping, want the 2 they had", got)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("GOMAXPROCS %d after restore, want 2", got)
	}
	runtime.GOMAXPROCS(4)
	if got := backend.Threads(); got != 4 {
		t.Errorf("kernels on %d threads after restore with GOMAXPROCS 4: still pinned", got)
	}
}
