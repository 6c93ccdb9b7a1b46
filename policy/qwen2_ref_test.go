package policy

import (
	"encoding/json"
	"fmt"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The checkpoints under testdata/qwen2-ref are small random Qwen2 models in
// HuggingFace layout, written by scripts/make_reference.py together with
// the logits of a PyTorch forward written from the Qwen2 architecture.
// Variants: untied F32 (3 layers, 4 heads over 2 key/value heads, rope
// theta 5e5), tied BF16 (1 key/value head, theta 1e6) and untied F16 in two
// shards with an index (6 heads over 2, rms_norm_eps 1e-5). All have
// non-zero q/k/v biases.

// refTolerance bounds the relative error ‖got − want‖∞ / ‖want‖∞ of every
// compared row set against the float64 reference.
const refTolerance = 1e-4

type hfReference struct {
	Sequences [][]int `json:"sequences"`
	Greedy    []struct {
		Prompt []int   `json:"prompt"`
		Tokens []int   `json:"tokens"`
		MinGap float64 `json:"min_gap"`
	} `json:"greedy"`
}

type hfCase struct {
	name   string
	theta  float64
	tied   bool
	heads  [2]int // H, K
	model  *Model
	ref    hfReference
	logits [][]float32 // per sequence, [T, V] row-major
}

func loadHFCase(t *testing.T, name string, theta float64, tied bool, H, K int) *hfCase {
	t.Helper()
	dir := filepath.Join("testdata", "qwen2-ref", name)
	m, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := &hfCase{name: name, theta: theta, tied: tied, heads: [2]int{H, K}, model: m}
	data, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &c.ref); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadSafetensors(filepath.Join(dir, "reference.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range c.ref.Sequences {
		lg, ok := ts[fmt.Sprintf("logits.%d", i)]
		if !ok || !slices.Equal(lg.Shape, []int{len(s), m.Config.VocabSize}) {
			t.Fatalf("reference logits.%d missing or shaped %v", i, lg.Shape)
		}
		c.logits = append(c.logits, lg.Data)
	}
	return c
}

func hfCases(t *testing.T) []*hfCase {
	return []*hfCase{
		loadHFCase(t, "untied-f32", 5e5, false, 4, 2),
		loadHFCase(t, "tied-bf16", 1e6, true, 4, 1),
		loadHFCase(t, "sharded-f16", 1e4, false, 6, 2),
	}
}

// relErr is ‖got − want‖∞ / ‖want‖∞.
func relErr(got, want []float32) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var diff, scale float64
	for i := range want {
		diff = max(diff, math.Abs(float64(got[i])-float64(want[i])))
		scale = max(scale, math.Abs(float64(want[i])))
	}
	return diff / scale
}

// fullLogits runs the plain-Go full forward (the computation behind
// LogProbs) over seq and returns the logits after every token, [T, V].
func fullLogits(m *Model, seq []int) []float32 {
	g := geometryOf(m.Config)
	x, err := m.finalHidden(seq)
	if err != nil {
		panic(err)
	}
	out := make([]float32, len(seq)*g.V)
	if err := linear(m.be, host(out), host(x), len(seq), g.C, host(m.Head.Data), backend.Tensor{}, g.V); err != nil {
		panic(err)
	}
	return out
}

// refTokenLogProbs returns log-softmax(logits)[t-1][seq[t]] for t ≥ 1 (0 at t = 0).
func refTokenLogProbs(logits []float32, seq []int, V int) []float32 {
	out := make([]float32, len(seq))
	for t := 1; t < len(seq); t++ {
		out[t] = float32(float64(logits[(t-1)*V+seq[t]]) - cpu.LogSumExp(logits[(t-1)*V:t*V]))
	}
	return out
}

func TestHFCheckpointConfig(t *testing.T) {
	for _, c := range hfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.model.Config
			if cfg.RopeTheta != c.theta || cfg.TieWordEmbeddings != c.tied || cfg.NumAttentionHeads != c.heads[0] || cfg.NumKeyValueHeads != c.heads[1] {
				t.Errorf("config = %+v, want rope_theta %g, tied %v, heads %v", cfg, c.theta, c.tied, c.heads)
			}
			if (c.model.Head == c.model.Embed) != c.tied {
				t.Errorf("head shares the embedding: %v, want %v", c.model.Head == c.model.Embed, c.tied)
			}
			if b := c.model.Layers[0].KB.Data; slices.Max(b) == 0 && slices.Min(b) == 0 {
				t.Error("k_proj bias loaded as zeros")
			}
		})
	}
}

func TestHFFullForwardMatchesReference(t *testing.T) {
	for _, c := range hfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var worstLogits, worstLogp float64
			for i, seq := range c.ref.Sequences {
				e := relErr(fullLogits(c.model, seq), c.logits[i])
				if worstLogits = max(worstLogits, e); e > refTolerance {
					t.Errorf("sequence %d (%d tokens): relative error %.2e", i, len(seq), e)
				}
			}
			V := c.model.Config.VocabSize
			got := logProbs(t, c.model, c.ref.Sequences)
			for i, seq := range c.ref.Sequences {
				if len(seq) < 2 {
					continue // no token has a log-prob
				}
				e := relErr(got[i], refTokenLogProbs(c.logits[i], seq, V))
				if worstLogp = max(worstLogp, e); e > refTolerance {
					t.Errorf("LogProbs of sequence %d: relative error %.2e", i, e)
				}
			}
			t.Logf("largest relative error: logits %.2e, LogProbs %.2e", worstLogits, worstLogp)
		})
	}
}

// TestHFSessionMatchesReference feeds all sequences through one Session in
// uneven chunks (5 tokens, then 1, 2, 3, ...) and compares the logits
// after every chunk with the reference row of its last token.
func TestHFSessionMatchesReference(t *testing.T) {
	for _, c := range hfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			seqs, V := c.ref.Sequences, c.model.Config.VocabSize
			s := c.model.NewSession(len(seqs), 64)
			worst := 0.0
			for step, chunk := 0, 5; ; step, chunk = step+1, step%3+1 {
				feed := make([][]int, len(seqs))
				done := true
				for i, seq := range seqs {
					at := s.Len(i)
					feed[i] = seq[at:min(at+chunk, len(seq))]
					done = done && len(feed[i]) == 0
				}
				if done {
					break
				}
				for i, row := range mustStep(t, s, feed) {
					if row == nil {
						continue
					}
					last := s.Len(i) - 1
					e := relErr(row, c.logits[i][last*V:(last+1)*V])
					if worst = max(worst, e); e > refTolerance {
						t.Errorf("sequence %d position %d: relative error %.2e", i, last, e)
					}
				}
			}
			t.Logf("largest relative error %.2e", worst)
		})
	}
}

func TestHFBackwardMatchesReference(t *testing.T) {
	for _, c := range hfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			seqs, V := c.ref.Sequences, c.model.Config.VocabSize
			coef := make([][]float32, len(seqs))
			for i, s := range seqs {
				coef[i] = make([]float32, len(s))
			}
			logp, err := c.model.Backward(seqs, coef)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, seq := range seqs {
				if len(seq) < 2 {
					continue
				}
				e := relErr(logp[i], refTokenLogProbs(c.logits[i], seq, V))
				if worst = max(worst, e); e > refTolerance {
					t.Errorf("sequence %d: relative error %.2e", i, e)
				}
			}
			t.Logf("largest relative error %.2e", worst)
		})
	}
}

// greedyCached decodes n tokens greedily, one Step per token on a cache.
func greedyCached(t *testing.T, m *Model, prompt []int, n int) []int {
	s := m.NewSession(1, len(prompt)+n)
	row := mustStep(t, s, [][]int{prompt})[0]
	var out []int
	for len(out) < n {
		out = append(out, argmax(row))
		row = mustStep(t, s, [][]int{{out[len(out)-1]}})[0]
	}
	return out
}

// greedyRecompute decodes n tokens greedily, recomputing the whole
// sequence from scratch for every token.
func greedyRecompute(m *Model, prompt []int, n int) []int {
	seq := slices.Clone(prompt)
	V := m.Config.VocabSize
	for range n {
		lg := fullLogits(m, seq)
		seq = append(seq, argmax(lg[len(lg)-V:]))
	}
	return seq[len(prompt):]
}

func TestHFGreedyGeneration(t *testing.T) {
	for _, c := range hfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, g := range c.ref.Greedy {
				cached := greedyCached(t, c.model, g.Prompt, len(g.Tokens))
				full := greedyRecompute(c.model, g.Prompt, len(g.Tokens))
				if !slices.Equal(cached, full) {
					t.Errorf("prompt %v: KV cache %v, full recompute %v", g.Prompt, cached, full)
				}
				if !slices.Equal(cached, g.Tokens) {
					t.Errorf("prompt %v: got %v, PyTorch %v (smallest logit gap %.3g)", g.Prompt, cached, g.Tokens, g.MinGap)
				}
			}
		})
	}
}

func TestLoadModelRejectsUnsupportedConfig(t *testing.T) {
	tests := []struct {
		name, key string
		value     any
		want      string
	}{
		{"qwen3", "model_type", "qwen3", `model_type "qwen3"`},
		{"yarn", "rope_scaling", map[string]any{"type": "yarn", "factor": 4}, "rope_scaling"},
		{"sliding window", "use_sliding_window", true, "use_sliding_window"},
		{"gelu", "hidden_act", "gelu", "hidden_act"},
	}
	src := filepath.Join("testdata", "qwen2-ref", "tied-bf16")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"config.json", "model.safetensors"} {
				data, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "config.json" {
					var cfg map[string]any
					if err := json.Unmarshal(data, &cfg); err != nil {
						t.Fatal(err)
					}
					cfg[tc.key] = tc.value
					data, _ = json.Marshal(cfg)
				}
				if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadModel(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %s", err, tc.want)
			}
		})
	}
}
