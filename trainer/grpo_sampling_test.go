package trainer

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// tenth is a variable so that tenth + 2*tenth is rounded as float64, not
// computed exactly as a constant.
var tenth = 0.1

func TestPickGroups(t *testing.T) {
	tests := []struct {
		name    string
		rewards []float64
		lo      int
		want    int
		have    []int
		train   []int
		dropped int
	}{
		{"keeps groups with spread", []float64{1, 1, 0, 1, 2, 3}, 0, 3, nil, []int{2, 3, 4, 5}, 1},
		// The third group has spread but the batch is full: neither
		// trained on nor counted as dropped.
		{"stops at want", []float64{0, 1, 1, 1, 2, 3}, 0, 1, nil, []int{0, 1}, 1},
		{"continues a batch", []float64{5, 5, 0, 2, 7, 7}, 2, 2, []int{0, 1}, []int{0, 1, 2, 3}, 1},
		{"all dropped", []float64{0, 0, 0.1, 0.1}, 0, 2, nil, nil, 2},
		// 0.1 + 0.2 ≠ 0.3 in float64: a spread, however small, is kept.
		{"tiny spread kept", []float64{tenth + 2*tenth, 0.3}, 0, 1, nil, []int{0, 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped := pickGroups(tc.rewards, 2, tc.lo, tc.want, slices.Clone(tc.have))
			if !slices.Equal(got, tc.train) || dropped != tc.dropped {
				t.Errorf("train %v dropped %d, want %v %d", got, dropped, tc.train, tc.dropped)
			}
		})
	}
}

func TestGRPOVariantKeysValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want string // "" for valid
	}{
		{"all on", "grpo:\n  clip_ratio_c: 3\n  kl_clamp: 10\n  empty_seqs: exclude\n  dynamic_sampling: {enabled: true, max_draws: 2}\n  overlong: {mode: penalty, buffer: 16, penalty: 1}\n", ""},
		{"dual clip 1", "grpo:\n  clip_ratio_c: 1\n", "clip_ratio_c"},
		{"kl clamp negative", "grpo:\n  kl_clamp: -10\n", "kl_clamp"},
		{"unknown empty", "grpo:\n  empty_seqs: skip\n", "empty_seqs"},
		{"max draws 0", "grpo:\n  dynamic_sampling: {enabled: true, max_draws: 0}\n", "grpo.dynamic_sampling.max_draws"},
		{"unknown dynamic key", "grpo:\n  dynamic_sampling: {max_batches: 3}\n", "max_draws"},
		{"mask mode", "grpo:\n  overlong: {mode: mask}\n", "grpo.mask_truncated"},
		{"unknown mode", "grpo:\n  overlong: {mode: cut}\n", "none or penalty"},
		{"penalty without buffer", "grpo:\n  overlong: {mode: penalty}\n", "grpo.overlong.buffer"},
		{"buffer past budget", "rollout:\n  max_response_tokens: 40\ngrpo:\n  overlong: {mode: penalty, buffer: 41}\n", "max_response_tokens = 40"},
		{"zero penalty", "grpo:\n  overlong: {mode: penalty, buffer: 8, penalty: 0}\n", "grpo.overlong.penalty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "test.yaml", nil)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestGRPOVariantKeysSet(t *testing.T) {
	cfg, err := Parse(nil, "test.yaml", []string{"grpo.dynamic_sampling.enabled=true", "grpo.dynamic_sampling.max_draws=2",
		"grpo.overlong.mode=penalty", "grpo.overlong.buffer=8", "grpo.clip_ratio_c=3", "grpo.kl_clamp=10", "grpo.empty_seqs=exclude"})
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.GRPO
	want := GRPOConfig{ClipRatioC: 3, KLClamp: 10, EmptySeqs: EmptyExclude,
		DynamicSampling: DynamicSamplingConfig{Enabled: true, MaxDraws: 2}, Overlong: OverlongConfig{Mode: OverlongModePenalty, Buffer: 8, Penalty: 1}}
	if g.ClipRatioC != want.ClipRatioC || g.KLClamp != want.KLClamp || g.EmptySeqs != want.EmptySeqs ||
		g.DynamicSampling != want.DynamicSampling || g.Overlong != want.Overlong {
		t.Errorf("got %+v", g)
	}
	if lc := g.lossConfig(40); lc.ClipRatioC != 3 || lc.KLClamp != 10 || lc.EmptySeqs != EmptyExclude {
		t.Errorf("loss config %+v does not carry the keys", lc)
	}
	d := DefaultConfig().GRPO
	if d.ClipRatioC != 0 || d.KLClamp != 0 || d.EmptySeqs != EmptyCount || d.DynamicSampling.Enabled || d.Overlong.Mode != OverlongModeNone || !d.MaskTruncated {
		t.Errorf("defaults %+v are not today's behaviour", d)
	}
}

// variantConfig is tinyConfig with every GRPO variant on. The tiny
// policy never answers right, so with the answer as the only reward
// component and a one-token overlong buffer the total reward of a rollout
// is −0.5 when it hits the length budget and 0 otherwise: in groups of 2,
// about half the groups have no spread, and dynamic sampling has some to
// drop. A second epoch moves the ratios off 1 so that a dual clip just
// above 1 acts; the KL to the warm start is clamped, and empty sequences
// follow verl's convention.
func variantConfig(t *testing.T, dir string) Config {
	t.Helper()
	cfg := tinyConfig(t, dir)
	cfg.Reward.Weights = map[string]float64{"answer": 1}
	cfg.Rollout.GroupSize = 2
	g := &cfg.GRPO
	g.BatchSize, g.Epochs = 3, 2
	g.DynamicSampling = DynamicSamplingConfig{Enabled: true, MaxDraws: 3}
	g.Overlong = OverlongConfig{Mode: OverlongModePenalty, Buffer: 1, Penalty: 0.5}
	g.ClipRatioC, g.Beta, g.KLClamp, g.EmptySeqs = 1.001, 0.05, 10, EmptyExclude
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestDynamicSamplingRun trains with every variant on and checks what
// metrics.jsonl says of the draws and the penalty.
func TestDynamicSamplingRun(t *testing.T) {
	dir := t.TempDir()
	cfg := variantConfig(t, dir)
	if _, err := Train(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	extra, dropped, penalised, lower := 0, 0, 0, 0.0
	for _, m := range recs {
		if m["step"] == 0 {
			continue
		}
		draws, drawn, drop, trained := m["grpo/draws"], m["grpo/groups_drawn"], m["grpo/groups_dropped"], m["grpo/groups_trained"]
		where := fmt.Sprintf("step %v: draws %v drawn %v dropped %v trained %v", m["step"], draws, drawn, drop, trained)
		B := float64(cfg.GRPO.BatchSize)
		switch {
		case draws < 1 || draws > float64(cfg.GRPO.DynamicSampling.MaxDraws):
			t.Errorf("%s: draws outside [1, max_draws]", where)
		case drawn != draws*B:
			t.Errorf("%s: each draw takes batch_size groups", where)
		case trained > B || drop+trained > drawn:
			t.Errorf("%s: more groups trained than possible", where)
		case trained < B && draws < float64(cfg.GRPO.DynamicSampling.MaxDraws):
			t.Errorf("%s: stopped short before max_draws", where)
		case !grpoClose(m["reward/frac_zero_std"], drop/drawn, 1e-12):
			t.Errorf("%s: frac_zero_std %v, want dropped/drawn", where, m["reward/frac_zero_std"])
		}
		if _, ok := m["clip/frac_lower"]; !ok && trained > 0 {
			t.Errorf("step %v: no clip/frac_lower with clip_ratio_c on", m["step"])
		}
		if p, ok := m["reward/overlong/mean"]; !ok || p > 0 || p < -0.5 {
			t.Errorf("step %v: reward/overlong/mean = %v (present %v), want in [-0.5, 0]", m["step"], p, ok)
		} else if p < 0 {
			penalised++
		}
		if draws > 1 {
			extra++
		}
		dropped += int(drop)
		lower = max(lower, m["clip/frac_lower"])
	}
	if extra == 0 || dropped == 0 {
		t.Errorf("no step drew again (%d) or dropped a group (%d): the test exercised nothing", extra, dropped)
	}
	if lower == 0 {
		t.Error("the dual clip never acted: clip/frac_lower is 0 at every step")
	}
	if penalised == 0 {
		t.Error("no rollout came near the length budget: the overlong penalty was never exercised")
	}
}

// TestDynamicSamplingResumeIsExact stops a run with every variant on
// after 2 steps, resumes it, and requires the weights of a run that never
// stopped: the extra draws come from streams of (seed, step).
func TestDynamicSamplingResumeIsExact(t *testing.T) {
	whole := t.TempDir()
	if _, err := Train(context.Background(), variantConfig(t, whole), nil); err != nil {
		t.Fatal(err)
	}
	split := t.TempDir()
	first := variantConfig(t, split)
	first.GRPO.Steps = 2
	if _, err := Train(context.Background(), first, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), variantConfig(t, split), nil); err != nil {
		t.Fatal(err)
	}
	a, err := policy.LoadModel(filepath.Join(whole, "checkpoints", "step-000004"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := policy.LoadModel(filepath.Join(split, "checkpoints", "step-000004"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range a.Params {
		if !slices.Equal(p.Data, b.Params[i].Data) {
			t.Fatalf("%s: resumed weights differ from the uninterrupted run's", p.Name)
		}
	}
	ra, _ := ReadMetrics(filepath.Join(whole, "metrics.jsonl"))
	rb, _ := ReadMetrics(filepath.Join(split, "metrics.jsonl"))
	if len(ra) != len(rb) {
		t.Fatalf("metrics: %d records uninterrupted, %d resumed", len(ra), len(rb))
	}
	for i := range ra {
		for _, k := range []string{"reward/mean", "grpo/groups_drawn", "grpo/groups_dropped", "loss/policy"} {
			if ra[i][k] != rb[i][k] {
				t.Errorf("record %d %s: uninterrupted %v, resumed %v", i, k, ra[i][k], rb[i][k])
			}
		}
	}
}
