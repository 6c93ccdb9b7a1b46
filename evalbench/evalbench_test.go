package evalbench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/reward/mathgrade"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func TestPassAtK(t *testing.T) {
	cases := []struct {
		name    string
		n, c, k int
		want    float64
	}{
		{"none correct", 5, 0, 1, 0},
		{"pass@1 is c/n", 5, 2, 1, 0.4},
		{"1 - C(3,2)/C(5,2)", 5, 2, 2, 0.7},
		{"1 - C(7,5)/C(10,5)", 10, 3, 5, 1 - 21.0/252},
		{"too few wrong to fill k", 4, 3, 2, 1},
		{"all correct", 5, 5, 5, 1},
		{"k = n, one correct", 3, 1, 3, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PassAtK(c.n, c.c, c.k); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", c.n, c.c, c.k, got, c.want)
			}
		})
	}
	t.Run("bad arguments panic", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("PassAtK(3, 4, 1) did not panic")
			}
		}()
		PassAtK(3, 4, 1)
	})
}

func TestMajority(t *testing.T) {
	cases := []struct {
		name    string
		answers []string
		want    string
		votes   int
	}{
		{"equivalent forms vote together", []string{"3", "1/2", "0.5", "", "3", `\frac12`}, "1/2", 3},
		{"tie goes to the first group", []string{"5", "4"}, "5", 1},
		{"empty answers do not vote", []string{"", "", "7"}, "7", 1},
		{"no votes", []string{"", ""}, "", 0},
		{"nothing", nil, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, votes := Majority(c.answers, mathgrade.Equal)
			if got != c.want || votes != c.votes {
				t.Errorf("Majority(%q) = %q, %d; want %q, %d", c.answers, got, votes, c.want, c.votes)
			}
		})
	}
}

func TestParseNames(t *testing.T) {
	cases := []struct {
		in, want, err string
	}{
		{"math500,aime24", "math500 aime24", ""},
		{" amc23 , olympiad,amc23", "amc23 olympiad", ""},
		{"aime25,gsm8k", "", "gsm8k"},
		{",", "", "no benchmark"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseNames(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %v, %v; want an error mentioning %q", got, err, c.err)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// roll builds a rollout by hand.
func roll(resp string, stop rollout.StopReason, tokens int, calls ...envs.Status) Rollout {
	t := &rollout.Trajectory{Response: resp, Stop: stop}
	for _, s := range calls {
		t.Calls = append(t.Calls, rollout.Call{Input: "x", Result: envs.Result{Status: s}})
	}
	return Rollout{Traj: t, Tokens: tokens}
}

// scoreFixture is two problems with two samples each; the comments give
// the hand-computed scores.
func scoreFixture() ([]envs.Task, []Rollout) {
	tasks := []envs.Task{{ID: "a", Prompt: "2+2?", Answer: "4"}, {ID: "b", Prompt: "half?", Answer: "1/2"}}
	rolls := []Rollout{
		roll("<answer>5</answer>", rollout.StopAnswer, 10, envs.StatusOK), // wrong; wins the 1-1 majority tie
		roll("<answer>4</answer>", rollout.StopLength, 20),                // right, truncated
		roll("<answer>0.5</answer>", rollout.StopAnswer, 5, envs.StatusError),
		roll(`so \boxed{\frac{1}{2}}`, rollout.StopEOS, 5),
	}
	return tasks, rolls
}

func TestScore(t *testing.T) {
	tasks, rolls := scoreFixture()
	samples, got := Score("toy", tasks, rolls, 2, format.DefaultFormat())
	want := Summary{
		Bench: "toy", Problems: 2, K: 2,
		Pass1:         (0.5 + 1) / 2,
		PassK:         1,   // each problem has a right sample among its 2
		MajK:          0.5, // problem a votes "5"
		PassHatK:      0.5, // only problem b has both samples right
		ToolCalls:     0.5, // 2 calls in 4 rollouts
		ToolFailFrac:  0.5,
		ResponseLen:   10, // (10+20+5+5)/4
		TruncatedFrac: 0.25,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary\n got %+v\nwant %+v", got, want)
	}
	wantSamples := []struct {
		extracted string
		correct   bool
	}{{"5", false}, {"4", true}, {"0.5", true}, {`\frac{1}{2}`, true}}
	for i, w := range wantSamples {
		s := samples[i]
		if s.Extracted != w.extracted || s.Correct != w.correct || s.ID != tasks[i/2].ID || s.Index != i%2 || s.Gold != tasks[i/2].Answer {
			t.Errorf("sample %d: %+v, want extracted %q correct %v", i, s, w.extracted, w.correct)
		}
	}
}

// fixed is a Generator that answers each task with its gold answer in
// the first sample and "0" in the others, counting its calls.
type fixed struct{ calls int }

func (f *fixed) Generate(_ context.Context, tasks []envs.Task, k int, _ *rand.Rand) ([]Rollout, error) {
	f.calls++
	var out []Rollout
	for _, task := range tasks {
		for g := range k {
			ans := "0"
			if g == 0 {
				ans = task.Answer
			}
			out = append(out, roll("<answer>"+ans+"</answer>", rollout.StopAnswer, 3))
		}
	}
	return out, nil
}

func TestRunChunksAndWrites(t *testing.T) {
	var tasks []envs.Task
	for i := range 5 {
		tasks = append(tasks, envs.Task{ID: string(rune('a' + i)), Prompt: "q", Answer: string(rune('1' + i))})
	}
	gen := &fixed{}
	var progress []int
	opts := Options{Bench: "toy", K: 3, Format: format.DefaultFormat(), Chunk: 2,
		Progress: func(done, total int, _ time.Duration) { progress = append(progress, done, total) }}
	samples, sum, err := Run(context.Background(), gen, tasks, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gen.calls != 3 || len(samples) != 15 {
		t.Fatalf("%d chunks and %d samples, want 3 and 15", gen.calls, len(samples))
	}
	if got := progress; len(got) != 6 || got[0] != 2 || got[2] != 4 || got[4] != 5 || got[5] != 5 {
		t.Errorf("progress %v", got)
	}
	if math.Abs(sum.Pass1-1.0/3) > 1e-12 || sum.PassK != 1 || sum.MajK != 0 {
		t.Errorf("summary %+v: want pass@1 1/3, pass@k 1, maj@k 0 (\"0\" wins 2-1)", sum)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteOutputs(dir, samples, []Summary{sum}); err != nil {
		t.Fatal(err)
	}
	lines, _ := os.ReadFile(filepath.Join(dir, "samples.jsonl"))
	if n := strings.Count(string(lines), "\n"); n != 15 {
		t.Errorf("samples.jsonl has %d lines, want 15", n)
	}
	var back map[string]Summary
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(b, &back); err != nil || back["toy"].Problems != 5 {
		t.Errorf("summary.json: %v, %s", err, b)
	}
}

func TestProgressLine(t *testing.T) {
	cases := []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{0, 4, 0, "m [....................] 0/4 ETA ?"},
		{1, 4, 10 * time.Second, "m [#####...............] 1/4 ETA 30s"},
		{4, 4, time.Minute, "m [####################] 4/4 ETA 0s"},
	}
	for _, c := range cases {
		if got := ProgressLine("m", c.done, c.total, c.elapsed); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// roots are the data folders the loading tests read: the hand-made files
// in the benchmarks' formats (testdata at the module root), and the real
// benchmark files when present.
var roots = []struct {
	name string
	// root returns the folder after checking that it holds rel (a skip,
	// or a failure, when the benchmark files are absent).
	root   func(t testing.TB, rel string) string
	counts map[string]int // problems per benchmark
}{
	{"fixture", func(testing.TB, string) string { return filepath.Join("..", "testdata") }, map[string]int{
		"math500": 6, "aime24": 4, "aime25": 4, "amc23": 4, "olympiad": 4,
		"bfcl_v3_base": 6, "bfcl_v3_miss_func": 4, "bfcl_v3_miss_param": 4, "bfcl_v3_long_context": 4,
		"taubench_airline": 3, "taubench_retail": 4}},
	{"benchmark", benchRoot, map[string]int{
		"math500": 500, "aime24": 30, "aime25": 30, "amc23": 40, "olympiad": 675,
		"bfcl_v3_base": 200, "bfcl_v3_miss_func": 200, "bfcl_v3_miss_param": 200, "bfcl_v3_long_context": 200,
		"taubench_airline": 50, "taubench_retail": 115}},
}

// benchRoot returns the benchmark data folder when it holds rel.
func benchRoot(t testing.TB, rel string) string {
	t.Helper()
	datadir.Require(t, rel)
	root, _ := datadir.Root()
	return root
}

// TestLoadBenchmarks reads every benchmark by name.
func TestLoadBenchmarks(t *testing.T) {
	for _, r := range roots {
		for _, name := range Names() {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				rel := strings.TrimPrefix(name, "olympiad") // the folder the benchmark reads
				if rel == "" {
					rel = "olympiadbench"
				}
				if _, ok := bfcl.BenchmarkCategory(name); ok {
					rel = "bfcl_v3"
				}
				if env, ok := strings.CutPrefix(name, taubench.BenchmarkPrefix); ok {
					rel = "tau_bench/" + env
				}
				b, err := Open(r.root(t, rel), name, func(string) any { return nil }, format.DefaultFormat())
				if err != nil {
					t.Fatal(err)
				}
				tasks := b.Set.Heldout()
				if n := r.counts[name]; len(tasks) != n {
					t.Errorf("%d problems, want %d", len(tasks), n)
				}
			})
		}
	}
}

// BenchmarkScore grades rollouts whose answers need the grader's
// equivalence rules (fractions, LaTeX, decimals).
func BenchmarkScore(b *testing.B) {
	for _, n := range []int{8, 64, 512} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			forms := []string{`\frac{1}{2}`, "0.5", "1/2", `\dfrac12`, "2", `x = \frac{2}{4}`}
			tasks := make([]envs.Task, n)
			var rolls []Rollout
			for i := range tasks {
				tasks[i] = envs.Task{ID: fmt.Sprint(i), Prompt: "q", Answer: "1/2"}
				for g := range 4 {
					rolls = append(rolls, roll(`<answer>\boxed{`+forms[(i+g)%len(forms)]+`}</answer>`, rollout.StopAnswer, 9))
				}
			}
			b.ResetTimer()
			for b.Loop() {
				Score("bench", tasks, rolls, 4, format.DefaultFormat())
			}
			b.ReportMetric(float64(len(rolls)*b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
