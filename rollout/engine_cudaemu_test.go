package rollout

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	_ "github.com/artist-rl/artist/policy/backend/cuda" // registers cudaemu
	"github.com/artist-rl/artist/rollout/format"
)

// modelPolicy is a policy.Model as a Policy: its sessions sample on the
// device where the backend can.
type modelPolicy struct{ m *policy.Model }

func (p modelPolicy) NewSession(n, maxLen int) Session { return p.m.NewSession(n, maxLen) }
func (p modelPolicy) Context() int                     { return p.m.Context() }

// hostPolicy is modelPolicy with sessions that only Step: the engine
// samples on the host from the logits the backend computed.
type hostPolicy struct{ modelPolicy }

type stepOnly struct{ s *policy.Session }

func (s stepOnly) Step(feed [][]int) ([][]float32, error) { return s.s.Step(feed) }
func (s stepOnly) Close()                                 { s.s.Close() }
func (s stepOnly) Add() int                               { return s.s.Add() }
func (s stepOnly) Reset(i int)                            { s.s.Reset(i) }
func (s stepOnly) Size() int                              { return s.s.Size() }

func (p hostPolicy) NewSession(n, maxLen int) Session { return stepOnly{p.m.NewSession(n, maxLen)} }

// emulatedEngine is an engine over a random model on the emulated CUDA
// device, without tools; it skips the test where cudaemu does not open.
func emulatedEngine(t *testing.T, temp, topP float64) (*Engine, modelPolicy) {
	t.Helper()
	be, err := backend.Open("cudaemu")
	if err != nil {
		if os.Getenv(backend.EnvVar) == "cudaemu" {
			t.Fatalf("%s=cudaemu but: %v", backend.EnvVar, err)
		}
		t.Skipf("cudaemu: %v", err)
	}
	tok := taggedTok()
	m, err := policy.New(policy.Config{VocabSize: len(tok.vocab), HiddenSize: 32, IntermediateSize: 48, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 256, RopeTheta: 10000, RMSNormEps: 1e-6}, rand.New(rand.NewSource(5)))
	if err != nil {
		t.Fatal(err)
	}
	m.UseBackend(be)
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.MaxResponseTokens, cfg.MaxToolCalls = 4, 40, 0
	cfg.Temperature, cfg.TopP = temp, topP
	e := &Engine{Policy: modelPolicy{m}, Tokenizer: tok, Format: format.DefaultFormat(), Config: cfg}
	return e, modelPolicy{m}
}

var emulatedTasks = []envs.Task{{ID: "a", Prompt: "Add 2 and 3."}, {ID: "b", Prompt: "B"}, {ID: "c", Prompt: "Count: 1 2 3"}, {ID: "d", Prompt: "?"}}

func runSeed(t *testing.T, e *Engine, seed int64) []*Trajectory {
	t.Helper()
	trajs, err := e.Run(context.Background(), emulatedTasks, rand.New(rand.NewSource(seed)))
	if err != nil {
		t.Fatal(err)
	}
	return trajs
}

// agreement compares the model tokens of got and want position by
// position up to each trajectory's first difference (after it the
// prefixes differ): the positions compared and those that agree. It
// requires the log-probs of agreeing tokens to match within tol.
func agreement(t *testing.T, got, want []*Trajectory, tol float64) (compared, agreed int) {
	t.Helper()
	for i := range want {
		g, w := got[i], want[i]
		for k := w.PromptLen; k < min(len(g.Tokens), len(w.Tokens)); k++ {
			compared++
			if g.Tokens[k] != w.Tokens[k] {
				break
			}
			agreed++
			if d := math.Abs(float64(g.LogProbs[k] - w.LogProbs[k])); d > tol {
				t.Errorf("trajectory %d token %d: log-prob %v, want %v", i, k, g.LogProbs[k], w.LogProbs[k])
			}
			if len(w.NucleusLogProbs) > 0 && math.Abs(float64(g.NucleusLogProbs[k]-w.NucleusLogProbs[k])) > tol {
				t.Errorf("trajectory %d token %d: nucleus log-prob %v, want %v", i, k, g.NucleusLogProbs[k], w.NucleusLogProbs[k])
			}
		}
	}
	return compared, agreed
}

// TestRunSamplesOnEmulatedDevice decodes through the engine on cudaemu,
// sampling on the device and on the host from the device's logits. A
// greedy run gives the same tokens, and log-probs to float32 rounding; at
// temperature 1 and top_p 0.9 the same seed gives the same trajectories
// twice, and the device's tokens are the host's (at the same uniforms)
// on at least 99% of positions: they differ only where a boundary of the
// inversion lies within float32 rounding of u.
func TestRunSamplesOnEmulatedDevice(t *testing.T) {
	for _, c := range []struct {
		temp, topP float64
	}{{0, 1}, {1, 0.9}} {
		t.Run(fmt.Sprintf("temperature %g top_p %g", c.temp, c.topP), func(t *testing.T) {
			e, p := emulatedEngine(t, c.temp, c.topP)
			dev := runSeed(t, e, 3)
			if !reflect.DeepEqual(runSeed(t, e, 3), dev) {
				t.Fatal("the same seed gave other trajectories on a second run")
			}
			e.Policy = hostPolicy{p}
			host := runSeed(t, e, 3)
			compared, agreed := agreement(t, dev, host, 2e-5)
			t.Logf("%d of %d tokens agree", agreed, compared)
			if c.temp == 0 && agreed != compared || float64(agreed) < 0.99*float64(compared) || compared < 200 {
				t.Errorf("%d of %d tokens agree between device and host sampling", agreed, compared)
			}
		})
	}
}
