package family

import (
	"context"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// stub is a family with benchmarks, for the registry's tests.
type stub struct {
	name    string
	benches []string
}

func (s stub) Name() string                       { return s.name }
func (stub) DefaultConfig() any                   { return &struct{}{} }
func (stub) Validate(any) error                   { return nil }
func (stub) ToolKinds() []string                  { return []string{SandboxTool} }
func (stub) Rewards() []string                    { return nil }
func (stub) WritesDemos() bool                    { return false }
func (stub) Open(any, format.Format) (Set, error) { return nil, nil }
func (s stub) Benchmarks() []string               { return s.benches }
func (stub) BenchmarkRewards() []string           { return nil }
func (stub) BenchmarkDefaults() string            { return "" }
func (stub) OpenBenchmark(string, string, any, format.Format) (Set, error) {
	return nil, nil
}

var _ Bencher = stub{}

// withRegistry runs f on an empty registry and restores the old one.
func withRegistry(t *testing.T, f func()) {
	t.Helper()
	mu.Lock()
	old := families
	families = nil
	mu.Unlock()
	defer func() { mu.Lock(); families = old; mu.Unlock() }()
	f()
}

func TestRegistry(t *testing.T) {
	withRegistry(t, func() {
		Register(stub{name: "b", benches: []string{"b1", "b2"}})
		Register(stub{name: "a", benches: []string{"a1"}})
		if got := strings.Join(Names(), ","); got != "a,b" {
			t.Errorf("Names = %s, want a,b (sorted)", got)
		}
		if got := strings.Join(Benchmarks(), ","); got != "b1,b2,a1" {
			t.Errorf("Benchmarks = %s, want registration order", got)
		}
		if f, err := BenchmarkFamily("a1"); err != nil || f.Name() != "a" {
			t.Errorf("BenchmarkFamily(a1) = %v, %v", f, err)
		}
		cases := []struct {
			name string
			err  func() error
			want string
		}{
			{"unknown family", func() error { _, err := Lookup("c"); return err }, "a, b"},
			{"unknown benchmark", func() error { _, err := BenchmarkFamily("c1"); return err }, "b1, b2, a1"},
		}
		for _, c := range cases {
			if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "family: ") {
				t.Errorf("%s: %v, want an error listing %s", c.name, err, c.want)
			}
		}
		for _, dup := range []Family{stub{name: "a"}, stub{name: "c", benches: []string{"b2"}}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("registering %+v did not panic", dup)
					}
				}()
				Register(dup)
			}()
		}
	})
}

// The compile-time shape of a Set, as a family writes one.
type emptySet struct{}

func (emptySet) Train() envs.Sampler               { return envs.List{} }
func (emptySet) Heldout() []envs.Task              { return nil }
func (emptySet) TaskSeed() int64                   { return 0 }
func (emptySet) Tool(string) (envs.Tool, error)    { return envs.Disabled{}, nil }
func (emptySet) Supplies() []any                   { return nil }
func (emptySet) Judge(*rollout.Trajectory) Verdict { return Verdict{} }
func (emptySet) Demonstrations(context.Context, DemoRequest) ([]rollout.Demo, error) {
	return nil, nil
}

var _ Set = emptySet{}
