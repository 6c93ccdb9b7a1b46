package main

import (
	"context"
	"fmt"
	"io"
	"math/rand"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/internal/datadir"
)

// benchJob is one benchmark of artist eval -bench, ready to run: its data
// opened, its tool built and its tasks checked against the model.
type benchJob struct {
	name  string
	p     *benchPolicy
	b     *evalbench.Bench
	tasks []envs.Task
	gen   evalbench.Generator
}

// evalBench evaluates on benchmarks and writes the table, the per-sample
// records and the summary, with the overall score of each group of
// benchmarks (family.Grouper) of which more than one was evaluated.
//
// Every benchmark is prepared and checked (data, tool, context) before
// any runs, and the outputs are written again after each one finishes, so
// a later failure keeps the results of those done.
func evalBench(ctx context.Context, f evalFlags, names []string, stdout, stderr io.Writer) error {
	policies := map[string]*benchPolicy{} // by the config's source: the checkpoint, or a family's defaults
	defer func() {
		for _, p := range policies {
			p.close()
		}
	}()
	jobs, err := prepareBenches(ctx, f, names, policies, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "eval: %d samples per problem at temperature %g, seed %d; results in %s\n", f.n, f.temp, f.seed, f.out)
	var all []evalbench.Sample
	var sums []evalbench.Summary
	for i, j := range jobs {
		samples, sum, err := j.run(ctx, f, stderr)
		if err != nil {
			if i > 0 {
				evalbench.Table(stdout, append(sums, evalbench.Overall(sums)...))
				return fmt.Errorf("%s: %w (the results of %d finished benchmarks are in %s)", j.name, err, i, f.out)
			}
			return fmt.Errorf("%s: %w", j.name, err)
		}
		all, sums = append(all, samples...), append(sums, sum)
		if err := evalbench.WriteOutputs(f.out, all, append(sums, evalbench.Overall(sums)...)); err != nil {
			return err
		}
	}
	evalbench.Table(stdout, append(sums, evalbench.Overall(sums)...))
	return nil
}

// prepareBenches opens the policies and every benchmark of names, in order.
func prepareBenches(ctx context.Context, f evalFlags, names []string, policies map[string]*benchPolicy, stderr io.Writer) ([]*benchJob, error) {
	root, src := datadir.Dir(f.data)
	var jobs []*benchJob
	for _, name := range names {
		fam, err := family.BenchmarkFamily(name)
		if err != nil {
			return nil, err
		}
		key := fam.Name()
		if f.ckpt != "" {
			key = "" // one checkpoint, one config
		}
		p, ok := policies[key]
		if !ok {
			if p, err = openBenchPolicy(ctx, f, fam, stderr); err != nil {
				return nil, err
			}
			policies[key] = p
		}
		j, err := p.prepare(ctx, f, name, root)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, datadir.Explain(err, root, src))
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// contextChecker is a generator that can refuse tasks that do not fit
// its model before generating (evalbench.Engine).
type contextChecker interface {
	Check(ctx context.Context, tasks []envs.Task) error
}

var _ contextChecker = evalbench.Engine{}

// prepare opens benchmark name under the data root and wires its tool
// and generator.
func (p *benchPolicy) prepare(ctx context.Context, f evalFlags, name, root string) (*benchJob, error) {
	b, err := evalbench.Open(root, name, p.cfg.Task.Section, p.cfg.Format)
	if err != nil {
		return nil, err
	}
	tool, err := p.tool(b)
	if err != nil {
		return nil, err
	}
	tasks := b.Set.Heldout()
	if f.limit > 0 && f.limit < len(tasks) {
		tasks = tasks[:f.limit]
	}
	gen := p.newGen(tool)
	if p.newChat != nil {
		if gen, err = p.newChat(tool, b, b.ToolKind(p.cfg.Tool.Kind)); err != nil {
			return nil, err
		}
	}
	if c, ok := gen.(contextChecker); ok {
		if err := c.Check(ctx, tasks); err != nil {
			return nil, err
		}
	}
	return &benchJob{name: name, p: p, b: b, tasks: tasks, gen: gen}, nil
}

// run evaluates the benchmark.
func (j *benchJob) run(ctx context.Context, f evalFlags, stderr io.Writer) ([]evalbench.Sample, evalbench.Summary, error) {
	bar := newBar(stderr, len(j.tasks), j.name)
	defer bar.finish()
	opts := evalbench.Options{Bench: j.name, K: f.n, Format: j.p.cfg.Format, Progress: bar.progress, Score: j.b.Scorer.Score}
	return evalbench.Run(ctx, j.gen, j.tasks, opts, rand.New(rand.NewSource(f.seed)))
}
