package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/atlass/atlasstest"
	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
)

// scriptChat answers the phases with the replies of scripts (the
// atlasstest format), in order, and refuses a request of another phase
// than the next reply's.
type scriptChat struct {
	steps []atlasstest.Step
	sent  [][]openai.ChatMessage
}

func newScriptChat(t *testing.T, names ...string) *scriptChat {
	t.Helper()
	c := &scriptChat{}
	for _, n := range names {
		s, err := atlasstest.ReadScript(filepath.Join("testdata", "atlass", n))
		if err != nil {
			t.Fatal(err)
		}
		c.steps = append(c.steps, s...)
	}
	return c
}

func (c *scriptChat) Reply(_ context.Context, msgs []openai.ChatMessage) (string, error) {
	system, err := openai.MessageText(msgs[0].Content)
	if err != nil {
		return "", err
	}
	phase, n := atlass.PhaseOf(system), len(c.sent)
	c.sent = append(c.sent, slices.Clone(msgs))
	switch {
	case n >= len(c.steps):
		return "", fmt.Errorf("request %d (%s) is past the end of the script", n+1, phase)
	case c.steps[n].Phase != phase:
		return "", fmt.Errorf("request %d is of phase %s, the script expects %s", n+1, phase, c.steps[n].Phase)
	}
	return c.steps[n].Text, nil
}

// atlassConfig is tinyConfig with the phases on over the gcd seed library.
func atlassConfig(t *testing.T, dir string, batch int, autoApprove bool) Config {
	cfg := tinyConfig(t, dir)
	cfg.GRPO.BatchSize = batch
	a := DefaultAtlassConfig()
	a.Enabled = true
	cfg.Tool.Library = LibraryConfig{Path: seedLibrary(t), K: 2, Grow: true, AutoApprove: autoApprove, Atlass: a}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// scriptedRun is a set-up run whose phases play chat.
func scriptedRun(t *testing.T, cfg Config, log *bytes.Buffer, chat atlass.Chat) *Run {
	t.Helper()
	r, err := Setup(context.Background(), cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	r.atlass.chat = func(*rand.Rand) atlass.Chat { return chat }
	return r
}

// promptOf decodes the prompt of a trajectory.
func (r *Run) promptOf(i int, b *stepBatch) string {
	t := b.trajs[i]
	return r.Tok.Decode(t.Tokens[:t.PromptLen])
}

func readTranscript(t *testing.T, dir string, step, task int) atlass.Transcript {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "atlass", fmt.Sprintf("step-%06d", step), fmt.Sprintf("task-%02d.json", task)))
	if err != nil {
		t.Fatal(err)
	}
	var tr atlass.Transcript
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func phaseNames(tr atlass.Transcript) string {
	var out []string
	for _, p := range tr.Phases {
		out = append(out, p.Phase)
	}
	return strings.Join(out, " ")
}

const listing = "Library functions you may call:\n"

// TestAtlassBatch runs one GRPO step's rollouts with scripted phases: a
// task that needs no tool goes straight to the solver; a needed tool
// stored under another name is selected, listed and defined for the
// solver; a generated tool is stored pending and withheld, or with
// auto_approve approved and retrieved by a later task; a task whose
// phases fail is solved without tools. Every group has G trajectories,
// all trained on.
func TestAtlassBatch(t *testing.T) {
	cases := []struct {
		name    string
		scripts []string
		auto    bool
		metrics Metrics
		phases  string // of the transcript of task 0
		check   func(t *testing.T, r *Run, b *stepBatch)
	}{
		{name: "no tool", scripts: []string{"no_tool.txt"}, phases: "analyze plan solve",
			metrics: Metrics{"atlass/needs_tools": 0, "atlass/selected": 0, "atlass/generated": 0, "atlass/phase_failed": 0, "atlass/solver_tools": 0, "atlass/replies": 2},
			check: func(t *testing.T, r *Run, b *stepBatch) {
				if p := r.promptOf(0, b); strings.Contains(p, listing) {
					t.Errorf("a task without tools lists some:\n%s", p)
				}
			}},
		{name: "selected under another name", scripts: []string{"selected.txt"}, phases: "analyze plan select solve",
			metrics: Metrics{"atlass/needs_tools": 1, "atlass/selected": 1, "atlass/generated": 0, "atlass/solver_tools": 1, "atlass/awaiting_approval": 0},
			check: func(t *testing.T, r *Run, b *stepBatch) {
				if p := r.promptOf(0, b); !strings.Contains(p, listing+"func gcd(a, b int) int") {
					t.Errorf("the solver's prompt does not list gcd:\n%s", p)
				}
				gcd, err := r.lib.Lib.Get(context.Background(), 1)
				if err != nil {
					t.Fatal(err)
				}
				e, fit := r.solverEngine(context.Background(), b.trajs[0].Task, []toollib.Tool{gcd.Tool})
				res := e.Tool.(envs.SessionTool).OpenSession(b.trajs[0].Task).Call(context.Background(), "fmt.Println(gcd(84, 36))")
				if !fit || res.Status != envs.StatusOK || res.Output != "12\n" {
					t.Errorf("the solver's snippet calling gcd: fit %v, %+v", fit, res)
				}
			}},
		{name: "generated stays pending", scripts: []string{"generated.txt"}, phases: "analyze plan select generate solve",
			metrics: Metrics{"atlass/generated": 1, "atlass/gen_attempts": 2, "atlass/awaiting_approval": 1, "atlass/solver_tools": 0},
			check: func(t *testing.T, r *Run, b *stepBatch) {
				rec, err := r.lib.Lib.ByName(context.Background(), "triple")
				if err != nil || rec.State != toollib.Pending || rec.Provenance.Source != "atlass" || rec.Provenance.Task != b.trajs[0].Task.ID {
					t.Errorf("triple: %+v, %v; want it pending from atlass on the task", rec, err)
				}
				if p := r.promptOf(0, b); strings.Contains(p, "triple") {
					t.Errorf("the solver got the pending tool:\n%s", p)
				}
				if got := r.lib.Retrieved(envs.Task{Prompt: "triple the number 5"}); len(got) > 0 && got[0].Name == "triple" {
					t.Error("evaluation retrieves the pending tool")
				}
			}},
		{name: "auto-approved and reused", scripts: []string{"generated.txt", "reuse.txt"}, auto: true, phases: "analyze plan select generate solve",
			metrics: Metrics{"atlass/generated": 0.5, "atlass/selected": 0.5, "atlass/awaiting_approval": 0, "atlass/solver_tools": 1},
			check: func(t *testing.T, r *Run, b *stepBatch) {
				rec, err := r.lib.Lib.ByName(context.Background(), "triple")
				if err != nil || rec.State != toollib.Approved || rec.ID != 2 || rec.Decider == "" {
					t.Errorf("triple: %+v, %v; want it approved as tool 2 with its decider", rec, err)
				}
				G := r.Cfg.Rollout.GroupSize
				for _, i := range []int{0, G} {
					if p := r.promptOf(i, b); !strings.Contains(p, listing+"func triple(n int) int") {
						t.Errorf("group of trajectory %d does not list triple:\n%s", i, p)
					}
				}
				if tr := readTranscript(t, r.Cfg.RunDir, 1, 1); len(tr.Tools) != 1 || tr.Tools[0].ID != 2 || tr.Tools[0].How != "selected" {
					t.Errorf("the later task's tools: %+v, want triple selected", tr.Tools)
				}
				if got := r.lib.Retrieved(envs.Task{Prompt: "triple the number 5"}); len(got) == 0 || got[0].Name != "triple" {
					t.Errorf("evaluation retrieves %v, want triple first", got)
				}
			}},
		{name: "phases fail", scripts: []string{"malformed.txt"}, phases: "analyze solve",
			metrics: Metrics{"atlass/phase_failed": 1, "atlass/phase_failed/analyze": 1, "atlass/replies": 3, "atlass/solver_tools": 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := atlassConfig(t, t.TempDir(), len(c.scripts), c.auto)
			var log bytes.Buffer
			chat := newScriptChat(t, c.scripts...)
			r := scriptedRun(t, cfg, &log, chat)
			if want := map[bool]string{false: "stored pending", true: "auto-approved"}[c.auto]; !strings.Contains(log.String(), "atlass: the policy runs the phases") || !strings.Contains(log.String(), want) {
				t.Errorf("the log does not say the phases run and generated tools are %s:\n%s", want, log.String())
			}
			m := Metrics{}
			b, err := r.atlassBatch(context.Background(), 1, m)
			if err != nil {
				t.Fatal(err)
			}
			if len(chat.sent) != len(chat.steps) {
				t.Errorf("the phases sent %d requests, the script holds %d", len(chat.sent), len(chat.steps))
			}
			G := cfg.Rollout.GroupSize
			if n := len(c.scripts) * G; len(b.trajs) != n || len(b.train) != n || m["atlass/trajectories"] != float64(n) {
				t.Fatalf("%d trajectories, %d trained on, metric %v; want %d", len(b.trajs), len(b.train), m["atlass/trajectories"], n)
			}
			for i, tr := range b.trajs {
				if err := tr.Validate(); err != nil || tr.Group != i/G {
					t.Errorf("trajectory %d: group %d, %v", i, tr.Group, err)
				}
			}
			for k, want := range c.metrics {
				if got, ok := m[k]; !ok || got != want {
					t.Errorf("%s = %v (recorded %v), want %v", k, got, ok, want)
				}
			}
			tr := readTranscript(t, cfg.RunDir, 1, 0)
			if got := phaseNames(tr); got != c.phases {
				t.Errorf("transcript phases %q, want %q", got, c.phases)
			}
			if c.check != nil {
				c.check(t, r, b)
			}
		})
	}
}

// TestAtlassGRPOTrains: a whole run with scripted phases trains on the
// solver's trajectories: every step records its G trajectories per task,
// the phases' counts and the update's loss, and the weights move.
func TestAtlassGRPOTrains(t *testing.T) {
	dir := t.TempDir()
	cfg := atlassConfig(t, dir, 2, false)
	var scripts []string
	for range cfg.GRPO.Steps {
		scripts = append(scripts, "no_tool.txt", "selected.txt")
	}
	chat := newScriptChat(t, scripts...)
	r := scriptedRun(t, cfg, &bytes.Buffer{}, chat)
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(chat.sent) != len(chat.steps) {
		t.Errorf("the phases sent %d requests, the script holds %d", len(chat.sent), len(chat.steps))
	}
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != cfg.GRPO.Steps+1 {
		t.Fatalf("%d metric records, want step 0 and %d steps", len(recs), cfg.GRPO.Steps)
	}
	n := float64(2 * cfg.Rollout.GroupSize)
	for _, m := range recs[1:] {
		for k, want := range map[string]float64{"atlass/trajectories": n, "atlass/needs_tools": 0.5, "atlass/selected": 0.5, "atlass/solver_tools": 0.5} {
			if m[k] != want {
				t.Errorf("step %v: %s = %v, want %v", m["step"], k, m[k], want)
			}
		}
		for _, k := range []string{"loss/policy", "grad/norm", "reward/mean", "timing/atlass_s"} {
			if _, ok := m[k]; !ok {
				t.Errorf("step %v records no %s", m["step"], k)
			}
		}
	}
	before, err := policyAt(dir, checkpoint.StepDir(0))
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for i, p := range r.Model.Params {
		moved = moved || !slices.Equal(p.Data, before.Params[i].Data)
	}
	if !moved {
		t.Error("GRPO on the solver's trajectories left every weight as the warm start left it")
	}
}

// TestAtlassResumeIsExact runs the phases with the tiny policy itself (no
// script): a run stopped after its step-2 checkpoint and resumed ends
// with the weights, metrics, transcripts and tool database of the run
// that never stopped.
func TestAtlassResumeIsExact(t *testing.T) {
	whole, split := t.TempDir(), t.TempDir()
	seed := seedLibrary(t)
	conf := func(dir string, steps int) Config {
		cfg := atlassConfig(t, dir, 2, true)
		cfg.Tool.Library.Path, cfg.GRPO.Steps = seed, steps
		cfg.Tool.Library.Atlass.MaxReplyTokens = 48
		cfg.Tool.Library.Atlass.WarmFraction = 0 // no demonstrated reply is that short
		return cfg
	}
	trainedRun(t, conf(whole, 4))
	trainedRun(t, conf(split, 2))
	trainedRun(t, conf(split, 4))
	a, err := policyAt(whole, checkpoint.StepDir(4))
	if err != nil {
		t.Fatal(err)
	}
	b, err := policyAt(split, checkpoint.StepDir(4))
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
	if len(ra) != 5 || len(rb) != 5 {
		t.Fatalf("metrics: %d records uninterrupted, %d resumed; want 5", len(ra), len(rb))
	}
	for i := 1; i < len(ra); i++ {
		if _, ok := ra[i]["atlass/phase_failed"]; !ok {
			t.Errorf("record %d has no atlass metrics", i)
		}
		for k, v := range ra[i] {
			if strings.HasPrefix(k, "atlass/") || k == "reward/mean" || k == "loss/policy" {
				if rb[i][k] != v {
					t.Errorf("record %d %s: uninterrupted %v, resumed %v", i, k, v, rb[i][k])
				}
			}
		}
	}
	for _, step := range []int{3, 4} {
		for task := range 2 {
			f := filepath.Join("atlass", fmt.Sprintf("step-%06d", step), fmt.Sprintf("task-%02d.json", task))
			x, errA := os.ReadFile(filepath.Join(whole, f))
			y, errB := os.ReadFile(filepath.Join(split, f))
			if errA != nil || errB != nil || !bytes.Equal(x, y) {
				t.Errorf("%s differs between the runs (%v, %v)", f, errA, errB)
			}
		}
	}
}

// policyAt loads the model of a run's checkpoint.
func policyAt(run, name string) (*policy.Model, error) {
	return policy.LoadModel(filepath.Join(run, "checkpoints", name))
}

// TestAtlassConfig: each key that cannot run is named with its fix, and
// the defaults leave the phases off.
func TestAtlassConfig(t *testing.T) {
	if d := DefaultConfig().Tool.Library.Atlass; d.Enabled || d != DefaultAtlassConfig() {
		t.Errorf("default tool.library.atlass = %+v, want DefaultAtlassConfig, off", d)
	}
	cases := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"no library", func(c *Config) { c.Tool.Library.Path = "" }, "tool.library.path is empty"},
		{"no grow", func(c *Config) { c.Tool.Library.Grow, c.Tool.Library.AutoApprove = false, false }, "set tool.library.grow: true"},
		{"not the sandbox", func(c *Config) { c.Tool.Kind = "disabled"; c.Tool.Library.Path = "" }, "use tool.kind: sandbox"},
		{"dynamic sampling", func(c *Config) { c.GRPO.DynamicSampling.Enabled = true }, "grpo.dynamic_sampling"},
		{"retries", func(c *Config) { c.Tool.Library.Atlass.Retries = -1 }, "atlass.retries must be >= 0"},
		{"attempts", func(c *Config) { c.Tool.Library.Atlass.MaxAttempts = 0 }, "atlass.max_attempts must be >= 1"},
		{"reply tokens", func(c *Config) { c.Tool.Library.Atlass.MaxReplyTokens = 256 }, "max_reply_tokens 256 leaves no room"},
		{"temperature", func(c *Config) { c.Tool.Library.Atlass.Temperature = -1 }, "atlass.temperature must be"},
		{"transcripts", func(c *Config) { c.Tool.Library.Atlass.Transcripts = -2 }, "atlass.transcripts must be >= 0"},
		{"warm fraction", func(c *Config) { c.Tool.Library.Atlass.WarmFraction = 1 }, "atlass.warm_fraction must be in [0, 1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := tinyConfig(t, t.TempDir())
			cfg.Tool.Library = LibraryConfig{Path: "seed.db", K: 2, Grow: true, Atlass: DefaultAtlassConfig()}
			cfg.Tool.Library.Atlass.Enabled = true
			if err := cfg.Validate(); err != nil {
				t.Fatalf("the base config: %v", err)
			}
			c.edit(&cfg)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate: %v, want %q", err, c.want)
			}
		})
	}
}

// TestAtlassConfigYAML: the block decodes strictly from a file and from
// -set, keeping the defaults of the keys not given.
func TestAtlassConfigYAML(t *testing.T) {
	doc := "tool:\n  library:\n    path: seed.db\n    grow: true\n    atlass:\n      enabled: true\n      retries: 0\n"
	cfg, err := Parse([]byte(doc), "atlass.yaml", []string{"tool.library.atlass.max_attempts=5"})
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultAtlassConfig()
	want.Enabled, want.Retries, want.MaxAttempts = true, 0, 5
	if got := cfg.Tool.Library.Atlass; got != want {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	if _, err := Parse([]byte(strings.Replace(doc, "enabled", "enable", 1)), "atlass.yaml", nil); err == nil || !strings.Contains(err.Error(), "enable") {
		t.Errorf("an unknown key: %v, want it named", err)
	}
}

// TestAtlassRenderChat: the phases' conversations are role-labelled lines
// for a plain prompt and the chat template for prompt.template chat, each
// ending where the policy writes its reply.
func TestAtlassRenderChat(t *testing.T) {
	msgs := []openai.ChatMessage{{Role: "system", Content: openai.Text("S")}, {Role: "user", Content: openai.Text("U")}}
	cases := []struct {
		template, want string
	}{
		{"plain", "system: S\nuser: U\nassistant: "},
		{"chat", "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"},
	}
	for _, c := range cases {
		ch, err := OpenChat(PromptConfig{Template: c.template}, "", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := &Run{Cfg: Config{Prompt: PromptConfig{Template: c.template}}, Chat: ch}
		if got, err := r.renderChat(msgs); err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.template, got, err, c.want)
		}
	}
}
