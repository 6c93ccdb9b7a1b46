package rollout

import (
	"context"
	"math/rand"
	"reflect"
	"sync/atomic"
	"testing"
)

// hostDrawing is a session that "samples on the device" with the
// engine's own host sampler: the device path then gives trajectories bit
// for bit those of the host path, which proves that it draws each row's
// uniforms in the same order and feeds the same tokens.
type hostDrawing struct {
	Rows
	s     sampler
	draws *atomic.Int32 // StepSample calls
}

func (h hostDrawing) CanSampleOnDevice() bool { return true }

func (h hostDrawing) StepSample(feed [][]int, us []float64, temperature, topP float64) ([]int, []float32, []float32, error) {
	if temperature != h.s.temperature || topP != h.s.topP {
		panic("StepSample at another temperature or top_p than the engine's")
	}
	h.draws.Add(1)
	logits, err := h.Rows.Step(feed)
	if err != nil {
		return nil, nil, nil, err
	}
	toks, lps, nucs := make([]int, len(feed)), make([]float32, len(feed)), make([]float32, len(feed))
	for i, l := range logits {
		toks[i] = -1
		if l == nil {
			continue
		}
		u := 0.0
		if temperature != 0 {
			u = us[i]
		}
		if toks[i], lps[i], nucs[i], err = h.s.draw(l, u); err != nil {
			return nil, nil, nil, err
		}
	}
	return toks, lps, nucs, nil
}

var _ DeviceSession = hostDrawing{}

// drawingPolicy makes every session of Policy a hostDrawing.
type drawingPolicy struct {
	Policy
	s     sampler
	draws *atomic.Int32
}

func (p drawingPolicy) NewSession(n, maxLen int) Session {
	return hostDrawing{p.Policy.NewSession(n, maxLen).(Rows), p.s, p.draws}
}

// TestRunDeviceSessionMatchesHost runs the noisy scripted model, with
// tool calls that pause rows while others decode, at several sampling
// settings through the host path and through the device path (sampling
// on the host behind DeviceSession): the trajectories are identical.
func TestRunDeviceSessionMatchesHost(t *testing.T) {
	for _, c := range []struct {
		name       string
		temp, topP float64
	}{{"greedy", 0, 1}, {"temperature 1", 1, 1}, {"top_p 0.8", 1, 0.8}} {
		t.Run(c.name, func(t *testing.T) {
			edit := func(cfg *Config) { cfg.Temperature, cfg.TopP = c.temp, c.topP }
			e, p := noisy(taggedTok(), 9, edit)
			want := run(t, e, p, twoTasks, 7)
			e, p = noisy(taggedTok(), 9, edit)
			var draws atomic.Int32
			e.Policy = drawingPolicy{p, sampler{c.temp, c.topP}, &draws}
			got, err := e.Run(context.Background(), twoTasks, rand.New(rand.NewSource(7)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatal("the device path gave other trajectories than the host path")
			}
			if draws.Load() == 0 {
				t.Fatal("no step drew on the device")
			}
			calls := 0
			for _, tr := range got {
				calls += len(tr.Calls)
			}
			if calls == 0 {
				t.Fatal("no tool calls: the test would not pause rows")
			}
		})
	}
}
