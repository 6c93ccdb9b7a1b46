package evalbench

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
)

// BFCLPrefix starts the names of the BFCL v3 multi-turn benchmarks:
// bfcl_v3_base, bfcl_v3_miss_func, bfcl_v3_miss_param,
// bfcl_v3_long_context.
const BFCLPrefix = "bfcl_v3_"

// BFCLOverall names the unweighted mean of the BFCL categories evaluated.
const BFCLOverall = BFCLPrefix + "overall"

// BFCLCategory returns the category of a BFCL benchmark name.
func BFCLCategory(name string) (string, bool) {
	c, ok := strings.CutPrefix(name, BFCLPrefix)
	if !ok {
		return "", false
	}
	for _, k := range bfcl.Categories {
		if k == c {
			return c, true
		}
	}
	return "", false
}

// BFCL is one BFCL v3 multi-turn benchmark: its entries as multi-turn
// tasks, the tool that runs their calls, and the official checker.
type BFCL struct {
	Name  string
	Tasks envs.List
	Tool  *bfcl.Tool
	fc    *reward.FC
	parts reward.Composite
}

// LoadBFCL reads the benchmark's category from dataDir/bfcl_v3. docs is
// how prompts list the functions (bfcl.TaskOptions); f names the tags the
// function-calling format reward reads.
func LoadBFCL(dataDir, name, docs string, f reward.FCFormat) (*BFCL, error) {
	cat, ok := BFCLCategory(name)
	if !ok {
		return nil, fmt.Errorf("evalbench: %q is not a BFCL benchmark: use %s<category>", name, BFCLPrefix)
	}
	d, err := bfcl.Load(filepath.Join(dataDir, "bfcl_v3"))
	if err != nil {
		return nil, fmt.Errorf("evalbench: %s: %w (fetch it with scripts/fetch-data.sh)", name, err)
	}
	entries, err := d.Entries(cat)
	if err != nil {
		return nil, fmt.Errorf("evalbench: %s: %w", name, err)
	}
	tasks, err := bfcl.Tasks(d, entries, bfcl.TaskOptions{Docs: docs})
	if err != nil {
		return nil, fmt.Errorf("evalbench: %s: %w", name, err)
	}
	fc, err := reward.NewFC(d, cat, f)
	if err != nil {
		return nil, fmt.Errorf("evalbench: %s: %w", name, err)
	}
	return &BFCL{Name: name, Tasks: tasks, Tool: bfcl.NewTool(d, entries), fc: fc, parts: fc.Components()}, nil
}

// Score grades conversations, k per task grouped contiguously, with the
// official checker: a sample is correct when its verdict is valid, and
// pass@1 is the category's accuracy. It records the reward components of
// each sample and their means. It panics when len(rolls) != k*len(tasks).
func (b *BFCL) Score(tasks []envs.Task, rolls []Rollout, k int) ([]Sample, Summary) {
	if k < 1 || len(rolls) != k*len(tasks) {
		panic(fmt.Sprintf("evalbench: BFCL.Score got %d rollouts for %d tasks × %d samples", len(rolls), len(tasks), k))
	}
	samples := make([]Sample, len(rolls))
	var t tally
	for j, task := range tasks {
		for g := range k {
			samples[j*k+g] = b.grade(task, g, rolls[j*k+g])
		}
		t.problem(samples[j*k : (j+1)*k])
	}
	return samples, t.summary(b.Name, len(tasks), k)
}

func (b *BFCL) grade(task envs.Task, g int, r Rollout) Sample {
	t := r.Traj
	v := b.fc.Check(t)
	_, parts := b.parts.Score(t, task)
	s := Sample{
		Bench: b.Name, ID: task.ID, Index: g, Question: task.Prompt, Response: t.Response,
		Correct: v.Valid, Verdict: &v, Rewards: parts, Stop: t.Stop, Calls: t.Calls, Tokens: r.Tokens,
	}
	if s.Calls == nil {
		s.Calls = []rollout.Call{}
	}
	return s
}

// BFCLOverallSummary is the unweighted mean over the BFCL summaries among
// sums of pass@1 (the leaderboard's overall score), pass@k, tool use,
// response length, truncation and reward components; Problems and Seconds
// are totals. ok is false when there is no BFCL summary.
func BFCLOverallSummary(sums []Summary) (Summary, bool) {
	acc, accK := map[string]float64{}, map[string]float64{}
	out := Summary{Bench: BFCLOverall, Rewards: map[string]float64{}}
	n := 0.0
	for _, s := range sums {
		if _, ok := BFCLCategory(s.Bench); ok {
			acc[s.Bench], accK[s.Bench] = s.Pass1, s.PassK
			out.Problems += s.Problems
			out.K = s.K
			out.Seconds += s.Seconds
			out.ToolCalls += s.ToolCalls
			out.ToolFailFrac += s.ToolFailFrac
			out.ResponseLen += s.ResponseLen
			out.TruncatedFrac += s.TruncatedFrac
			for k, v := range s.Rewards {
				out.Rewards[k] += v
			}
			n++
		}
	}
	if n == 0 {
		return Summary{}, false
	}
	out.Pass1, out.PassK = bfcl.OverallAccuracy(acc), bfcl.OverallAccuracy(accK)
	out.ToolCalls /= n
	out.ToolFailFrac /= n
	out.ResponseLen /= n
	out.TruncatedFrac /= n
	for k := range out.Rewards {
		out.Rewards[k] /= n
	}
	return out, true
}
