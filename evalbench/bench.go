package evalbench

import (
	"fmt"
	"slices"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout/format"
)

// Bench is one benchmark, opened by the task family that registered it.
type Bench struct {
	Name   string
	Family family.Bencher
	// Set holds the problems (Set.Heldout), judges them and opens the
	// family's tools.
	Set family.Set
	// Scorer grades the benchmark's rollouts (Options.Score).
	Scorer Scorer
}

// Open loads benchmark name from dataDir through its family.
// section(familyName) is the family's config section (a run's
// Config.Task.Section); f names the tags of the rollout text.
func Open(dataDir, name string, section func(familyName string) any, f format.Format) (*Bench, error) {
	fam, err := family.BenchmarkFamily(name)
	if err != nil {
		return nil, fmt.Errorf("evalbench: %w", err)
	}
	sec := section(fam.Name())
	if sec == nil {
		sec = fam.DefaultConfig()
	}
	set, err := fam.OpenBenchmark(dataDir, name, sec, f)
	if err != nil {
		return nil, fmt.Errorf("evalbench: %w", err)
	}
	b := &Bench{Name: name, Family: fam, Set: set, Scorer: Scorer{Bench: name, Judge: set}}
	if names := fam.BenchmarkRewards(); len(names) > 0 {
		env := reward.Env{Format: f, Supplies: set.Supplies(), Components: names}
		if b.Scorer.Parts, err = reward.Unit(env); err != nil {
			return nil, fmt.Errorf("evalbench: %s: %w", name, err)
		}
	}
	return b, nil
}

// ToolKind is the tool kind a policy configured with kind uses on the
// benchmark: "disabled" stays the ablation, a kind of the family is kept
// (Python code, family.PythonTool, wherever the family runs Go code in
// the sandbox), and any other becomes the family's preferred kind (a
// checkpoint of another family still makes the calls this one
// understands).
func (b *Bench) ToolKind(kind string) string {
	kinds := b.Family.ToolKinds()
	if kind == family.PythonTool && slices.Contains(kinds, family.SandboxTool) {
		return kind
	}
	if kind == "disabled" || slices.Contains(kinds, kind) {
		return kind
	}
	return kinds[0]
}

// Overall returns the overall scores of the groups (family.Grouper) with
// more than one member among sums: the unweighted mean over the members
// of pass@1 (the leaderboard's overall score), pass@k, tool use, response
// length, truncation and reward components; Problems and Seconds are
// totals.
func Overall(sums []Summary) []Summary {
	var order []string
	members := map[string][]Summary{}
	for _, s := range sums {
		fam, err := family.BenchmarkFamily(s.Bench)
		if err != nil {
			continue
		}
		g, ok := fam.(family.Grouper)
		if !ok {
			continue
		}
		name, ok := g.Group(s.Bench)
		if !ok {
			continue
		}
		if _, seen := members[name]; !seen {
			order = append(order, name)
		}
		members[name] = append(members[name], s)
	}
	var out []Summary
	for _, name := range order {
		if ms := members[name]; len(ms) > 1 {
			out = append(out, mean(name, ms))
		}
	}
	return out
}

// mean is the overall summary of a group's members.
func mean(name string, ms []Summary) Summary {
	out := Summary{Bench: name, Rewards: map[string]float64{}, noVote: true}
	for _, s := range ms {
		out.Problems += s.Problems
		out.K = s.K
		out.Seconds += s.Seconds
		out.Pass1 += s.Pass1
		out.PassK += s.PassK
		out.PassHatK += s.PassHatK
		out.ToolCalls += s.ToolCalls
		out.ToolFailFrac += s.ToolFailFrac
		out.ResponseLen += s.ResponseLen
		out.TruncatedFrac += s.TruncatedFrac
		out.noVote = out.noVote && s.noVote
		for k, v := range s.Rewards {
			out.Rewards[k] += v
		}
	}
	n := float64(len(ms))
	out.Pass1 /= n
	out.PassK /= n
	out.PassHatK /= n
	out.ToolCalls /= n
	out.ToolFailFrac /= n
	out.ResponseLen /= n
	out.TruncatedFrac /= n
	for k := range out.Rewards {
		out.Rewards[k] /= n
	}
	return out
}
