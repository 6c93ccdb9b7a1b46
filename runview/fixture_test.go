package runview

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/runlog"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// wordTok is a tokenizer for fixtures: words, numbers, tags and single
// other characters are tokens.
type wordTok struct {
	toks []string
	ids  map[string]int
}

var wordRE = regexp.MustCompile(`</?[a-z_]+>|[A-Za-z]+|[0-9]|\s|.`)

func (w *wordTok) Encode(s string) []int {
	var out []int
	for _, t := range wordRE.FindAllString(s, -1) {
		id, ok := w.ids[t]
		if !ok {
			id = len(w.toks)
			w.toks = append(w.toks, t)
			w.ids[t] = id
		}
		out = append(out, id)
	}
	return out
}

func (w *wordTok) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(w.toks[id])
	}
	return b.String()
}

// fixture describes a synthetic run folder in the formats artist train
// writes.
type fixture struct {
	steps     int     // GRPO steps in metrics.jsonl
	evalEvery int     // eval/* keys every this many steps (and at step 0)
	lr        float64 // config key that differs between runs
	seed      int64
	summary   bool // write summary.json
}

// evalSteps are the steps whose records hold eval/* keys.
func (f fixture) evalSteps() int { return f.steps/f.evalEvery + 1 }

// groups are the metric groups every fixture run has.
var groups = []string{"reward", "eval", "rollout", "mismatch", "loss", "clip", "grad", "timing", "throughput", "tools"}

// writeRun writes the run folder and returns its path.
func writeRun(t testing.TB, dir string, f fixture) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "samples"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`seed: %d
run_dir: runs/demo
model:
    hidden_size: 16
    num_hidden_layers: 1
task:
    name: arith
grpo:
    steps: %d
    lr: %g
    beta: 0
rollout:
    group_size: 8
    max_response_tokens: 48
eval:
    every: %d
`, f.seed, f.steps, f.lr, f.evalEvery)
	write(t, filepath.Join(dir, "config.yaml"), cfg)
	write(t, filepath.Join(dir, "metrics.jsonl"), metricsLines(f, 0, f.steps))
	if f.summary {
		write(t, filepath.Join(dir, "summary.json"), `{
  "warmstart": {"accuracy": 0.125, "tool_calls": 0.17, "reward": 0.61, "n": 200},
  "final": {"accuracy": 0.57, "tool_calls": 1, "reward": 1.83, "n": 200},
  "wall_s": 411.2,
  "steps": `+fmt.Sprint(f.steps)+`,
  "seed": `+fmt.Sprint(f.seed)+`,
  "tool": "sandbox",
  "backend": "go"
}
`)
	}
	tok := &wordTok{ids: map[string]int{}}
	for _, tag := range []string{"warmstart", "final"} {
		var recs []runlog.Sample
		for i, tr := range trajectories(tok) {
			fam, f := "arith", format.DefaultFormat()
			if strings.HasPrefix(tr.Task.ID, "bfcl") {
				fam, f = "bfcl", format.Format{Think: "reasoning", Code: "tool", Output: "tool_result", Answer: "answer"}
			}
			correct := i%2 == 0
			answer := map[bool]float64{true: 1}[correct]
			verdict := fmt.Sprintf("gold %s, correct %v", tr.Task.Answer, correct)
			if fam == "bfcl" {
				verdict = "correct: the checker passes every turn"
				if !correct {
					verdict = "incorrect: state_mismatch: turn 1: the file system differs from the ground truth's"
				}
			}
			recs = append(recs, runlog.NewSample(tr, tok, f, runlog.Meta{Eval: tag, Family: fam, Correct: correct,
				Verdict: verdict, Reward: answer + 0.25, Rewards: map[string]float64{"answer": answer, "format_strict": 0.25}}))
		}
		if err := runlog.WriteSamples(filepath.Join(dir, "samples", tag+".jsonl"), recs); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "samples", tag+".txt"), "# "+tag+"\n")
	}
	return dir
}

func write(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// metricsLines returns the records of steps from..to (inclusive) as the
// trainer writes them: step 0 holds the warm start's eval/* keys only.
func metricsLines(f fixture, from, to int) string {
	rng := rand.New(rand.NewSource(f.seed))
	var b strings.Builder
	for s := from; s <= to; s++ {
		m := map[string]any{"step": s}
		x := float64(s) / float64(max(f.steps, 1))
		if s > 0 {
			noise := func(a float64) float64 { return a * (rng.Float64() - 0.5) }
			m["reward/mean"] = 0.6 + 1.2*(1-math.Exp(-4*x)) + noise(0.5)
			m["reward/answer/mean"] = 0.1 + 0.5*(1-math.Exp(-3*x)) + noise(0.3)
			m["reward/format_strict/mean"] = 0.2 + noise(0.05)
			m["reward/frac_zero_std"] = 0.3 * math.Exp(-2*x)
			m["rollout/tool_calls/mean"] = 0.2 + 0.8*(1-math.Exp(-6*x)) + noise(0.1)
			m["rollout/tool_fail_frac"] = 0.4*math.Exp(-3*x) + noise(0.05)
			m["rollout/response_len/mean"] = 30 + 10*x + noise(6)
			m["rollout/truncated_frac"] = 0.1 * math.Exp(-x)
			m["mismatch/kl_k3"] = 1e-4 * (1 + noise(0.5))
			m["mismatch/max_ratio"] = 1.2 + noise(0.2)
			m["loss/policy"] = noise(0.4)
			m["loss/kl"] = 0.01 * x
			m["clip/frac"] = 0.02 + noise(0.01)
			m["grad/norm"] = 1.5 + noise(1)
			m["lr"] = f.lr
			m["timing/rollout_s"] = 1.2 + noise(0.2)
			m["timing/update_s"] = 0.8 + noise(0.1)
			m["timing/step_s"] = 2.1 + noise(0.3)
			m["throughput/tokens_per_s"] = 4900 + noise(400)
			m["tools/library_size"] = float64(12 + s/50)
			m["tools/grown"] = float64(s % 3 / 2)
			if s == 3 {
				m["grad/norm"] = nil // a NaN the trainer wrote as null
			}
		}
		if s%f.evalEvery == 0 {
			m["eval/arith/pass@1"] = 0.125 + 0.45*(1-math.Exp(-3*x))
			m["eval/arith/tool_calls"] = 0.17 + 0.83*x
			m["eval/arith/reward/answer"] = 0.1 + 0.4*x
		}
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// trajectories builds rollouts with the engine's token layout: a tool
// call and its masked result, a conversation with a masked user turn, a
// rollout cut at the length budget and one without tools.
func trajectories(tok *wordTok) []*rollout.Trajectory {
	type part struct {
		text string
		mask uint8
	}
	mk := func(task envs.Task, stop rollout.StopReason, calls []rollout.Call, prompt string, parts ...part) *rollout.Trajectory {
		t := &rollout.Trajectory{Task: task, Stop: stop, Calls: calls, Turns: 1}
		p := tok.Encode(prompt)
		t.PromptLen = len(p)
		t.Append(p, rollout.KindPrompt, nil)
		for _, q := range parts {
			t.Append(tok.Encode(q.text), maskKind(q.mask), nil)
		}
		return t
	}
	ok := func(out string) rollout.Call {
		return rollout.Call{Result: envs.Result{Output: out, Status: envs.StatusOK}}
	}
	return []*rollout.Trajectory{
		mk(envs.Task{ID: "arith-mul-37-4821", Answer: "178377"}, rollout.StopAnswer, []rollout.Call{ok("178377")},
			"37 boxes hold 4821 nails each. How many nails?\n",
			part{"<think>multiply the boxes by the nails</think><code>fmt.Println(37 * 4821)</code>", 1},
			part{"<output>178377\n</output>\n", 0},
			part{"<answer>178377</answer>", 1}),
		mk(envs.Task{ID: "arith-div-91744-94", Answer: "976"}, rollout.StopAnswer, nil,
			"91744 eggs fill 94 equal bags. How many per bag?\n",
			part{"<think>divide in my head</think><answer>966</answer>", 1}),
		mk(envs.Task{ID: "bfcl-base-12", Turns: []string{"now cd into docs"}}, rollout.StopEOS,
			[]rollout.Call{ok("['docs', 'notes.txt']"), ok("None")},
			"List the files, then go into docs.\n",
			part{"<reasoning>list first</reasoning><tool>[ls()]</tool>", 1},
			part{"<tool_result>['docs', 'notes.txt']</tool_result>\n", 0},
			part{"done<eos>", 1},
			part{"\nnow cd into docs\n", 0},
			part{"<tool>[cd(folder='docs')]</tool>", 1},
			part{"<tool_result>None</tool_result>\n", 0},
			part{"in docs<eos>", 1}),
		mk(envs.Task{ID: "arith-mod-74432-57", Answer: "47"}, rollout.StopLength,
			[]rollout.Call{{Result: envs.Result{Output: "1:1: expected operand", Status: envs.StatusError}}},
			"74432 nails in rows of 57. How many spare?\n",
			part{"<think>modulo</think><code>fmt.Println(74432 % )</code>", 1},
			part{"<output>1:1: expected operand</output>\n", 0},
			part{"<think>again</think><code>for {", 1}),
	}
}

// maskKind is the kind of a run of tokens with loss mask m: sampled by the
// policy (1) or written by the engine (0).
func maskKind(m uint8) rollout.Kind {
	if m == 1 {
		return rollout.KindModel
	}
	return rollout.KindToolResult
}
