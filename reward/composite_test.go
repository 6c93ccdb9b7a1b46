package reward

import (
	"math"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func TestLookup(t *testing.T) {
	f := format.DefaultFormat()
	for _, name := range []string{"answer", "format_relaxed", "format_strict", "tool_success"} {
		t.Run(name, func(t *testing.T) {
			fn, err := Lookup(name, Env{Format: f})
			if err != nil || fn == nil {
				t.Fatalf("Lookup(%q) = %v, %v", name, fn, err)
			}
		})
	}
	t.Run("unknown lists valid names", func(t *testing.T) {
		_, err := Lookup("answr", Env{Format: f})
		if err == nil {
			t.Fatal("want an error")
		}
		for _, name := range Names() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not list %q", err, name)
			}
		}
	})
	t.Run("invalid format", func(t *testing.T) {
		if _, err := Lookup("answer", Env{Format: format.Format{Think: "t"}}); err == nil {
			t.Error("want an error for an incomplete format")
		}
	})
}

func TestNewCompositeErrors(t *testing.T) {
	f := format.DefaultFormat()
	cases := []struct {
		name    string
		weights map[string]float64
		want    string
	}{
		{"empty", map[string]float64{}, "no components"},
		{"unknown", map[string]float64{"answer": 1, "style": 1}, `unknown component "style"`},
		{"nan", map[string]float64{"answer": math.NaN()}, "finite"},
		{"inf", map[string]float64{"answer": math.Inf(1)}, "finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewComposite(c.weights, Env{Format: f})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "reward: ") {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestCompositeScore(t *testing.T) {
	f := format.DefaultFormat()
	full := &rollout.Trajectory{Response: full, Calls: []rollout.Call{ok()}}
	direct := &rollout.Trajectory{Response: direct}
	cases := []struct {
		name    string
		weights map[string]float64
		tr      *rollout.Trajectory
		task    envs.Task
		total   float64
		parts   map[string]float64
	}{
		{"paper max", DefaultWeights(), full, task("42"), 4,
			map[string]float64{"answer": 2, "format_relaxed": 0.5, "format_strict": 0.5, "tool_success": 1}},
		{"direct answer", DefaultWeights(), direct, task("42"), 2.25,
			map[string]float64{"answer": 2, "format_relaxed": 0.25, "format_strict": 0, "tool_success": 0}},
		{"zero weight logged, not added", map[string]float64{"answer": 1, "tool_success": 0}, full, task("42"), 2,
			map[string]float64{"answer": 2, "tool_success": 1}},
		{"weights scale", map[string]float64{"answer": 0.5, "format_strict": 2}, full, task("42"), 2,
			map[string]float64{"answer": 2, "format_strict": 0.5}},
		{"not applying is absent", DefaultWeights(), full, task(""), 2,
			map[string]float64{"format_relaxed": 0.5, "format_strict": 0.5, "tool_success": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			comp, err := NewComposite(c.weights, Env{Format: f})
			if err != nil {
				t.Fatal(err)
			}
			total, parts := comp.Score(c.tr, c.task)
			if total != c.total {
				t.Errorf("total = %v, want %v", total, c.total)
			}
			if len(parts) != len(c.parts) {
				t.Errorf("parts = %v, want %v", parts, c.parts)
			}
			for k, v := range c.parts {
				if got, ok := parts[k]; !ok || got != v {
					t.Errorf("parts[%q] = %v, %v; want %v", k, got, ok, v)
				}
			}
		})
	}
}

func TestCompositeSorted(t *testing.T) {
	comp, err := NewComposite(DefaultWeights(), Env{Format: format.DefaultFormat()})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"answer", "format_relaxed", "format_strict", "tool_success"}
	if len(comp) != len(want) {
		t.Fatalf("got %d components, want %d", len(comp), len(want))
	}
	for i, c := range comp {
		if c.Name != want[i] || c.Weight != 1 {
			t.Errorf("component %d = %s (weight %v), want %s (weight 1)", i, c.Name, c.Weight, want[i])
		}
	}
}

func TestRegisterDuplicatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering a duplicate name must panic")
		}
	}()
	Register("answer", func(e Env) (Func, error) { return Answer(e.Format), nil })
}

func BenchmarkCompositeScore(b *testing.B) {
	comp, err := NewComposite(DefaultWeights(), Env{Format: format.DefaultFormat()})
	if err != nil {
		b.Fatal(err)
	}
	tr := &rollout.Trajectory{Response: strings.Repeat(" ", 4000) + full, Calls: []rollout.Call{ok()}}
	for b.Loop() {
		comp.Score(tr, task("42"))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "responses/s")
}
