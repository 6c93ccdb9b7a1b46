package pysandbox

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// benchClients is how many goroutines make calls at once, matching the two
// workers of BenchmarkPool, as in the Go sandbox's benchmarks.
const benchClients = 2

// benchProgram is the small program of the benchmarks, and what it prints.
const benchProgram, benchOutput = "print(4821 * 37)", "178377\n"

// benchCalls runs b.N calls of call from benchClients goroutines and
// reports calls/s and the median and 99th-percentile latency.
func benchCalls(b *testing.B, call func() error) {
	var (
		next atomic.Int64
		mu   sync.Mutex
		lat  []time.Duration
		wg   sync.WaitGroup
	)
	b.ResetTimer()
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			var mine []time.Duration
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				if err := call(); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[min(len(lat)*99/100, len(lat)-1)]), "p99-ms")
}

func checkOutput(got string) error {
	if got != benchOutput {
		return fmt.Errorf("output %q, want %q", got, benchOutput)
	}
	return nil
}

// BenchmarkPool measures a warm pool of two jailed workers, each call in
// a fresh runner, against BenchmarkSubprocess.
func BenchmarkPool(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Limits.Workers = 2
	benchPool(b, cfg)
}

// BenchmarkPoolReuse measures the pool with Runtime.Reuse: stateless
// calls share a runner, with fresh globals each.
func BenchmarkPoolReuse(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Limits.Workers = 2
	cfg.Runtime.Reuse = true
	benchPool(b, cfg)
}

func benchPool(b *testing.B, cfg Config) {
	s := newSandbox(b, cfg)
	var wg sync.WaitGroup
	for range 2 { // start both workers before timing
		wg.Go(func() { s.Call(context.Background(), benchProgram) })
	}
	wg.Wait()
	benchCalls(b, func() error {
		r := s.Call(context.Background(), benchProgram)
		if r.Status != envs.StatusOK {
			return fmt.Errorf("call: %+v", r)
		}
		return checkOutput(r.Output)
	})
}

// BenchmarkSubprocess measures what Python trainers do per call: run the
// code with python3 -c in a new, unjailed process.
func BenchmarkSubprocess(b *testing.B) {
	python := DefaultRuntime().Interpreter
	benchCalls(b, func() error {
		out, err := exec.Command(python, "-c", benchProgram).Output()
		if err != nil {
			return err
		}
		return checkOutput(string(out))
	})
}

// BenchmarkSession measures one stateful session's calls, which reuse
// their runner.
func BenchmarkSession(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Limits.Stateful = true
	s := newSandbox(b, cfg)
	ss := s.Session()
	defer ss.Close()
	ss.Call(context.Background(), benchProgram)
	for b.Loop() {
		if r := ss.Call(context.Background(), benchProgram); r.Status != envs.StatusOK {
			b.Fatalf("Call = %+v", r)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
