package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// benchClients is how many goroutines make calls at once in the
// throughput benchmarks, matching the two workers of BenchmarkPool.
const benchClients = 2

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

// benchProgram is the small program of the throughput benchmarks, and
// what it prints.
const benchProgram, benchOutput = "fmt.Println(4821 * 37)", "178377\n"

func checkOutput(got string) error {
	if got != benchOutput {
		return fmt.Errorf("output %q, want %q", got, benchOutput)
	}
	return nil
}

// BenchmarkPool measures a warm pool of two workers, each call in a fresh
// interpreter.
func BenchmarkPool(b *testing.B) {
	s := newSandbox(b, Config{Timeout: 2 * time.Second, MaxOutput: 4096, Workers: 2})
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

// BenchmarkFreshProcess measures a new worker process per call, the
// subprocess-per-call design the pool avoids.
func BenchmarkFreshProcess(b *testing.B) {
	h := hello{MaxOutput: 4096, Memory: defaultMemory}
	benchCalls(b, func() error {
		p, err := startProc(context.Background(), h)
		if err != nil {
			return err
		}
		defer p.Kill()
		var rep reply
		if err := p.Exchange(context.Background(), &request{Code: benchProgram, Timeout: 2 * time.Second}, &rep, time.Now().Add(5*time.Second)); err != nil {
			return err
		}
		return checkOutput(rep.Stdout)
	})
}

// BenchmarkPythonSubprocess measures what Python trainers do per call: run
// the code with python3 -c in a new process.
func BenchmarkPythonSubprocess(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 is not installed")
	}
	// Start the interpreter itself, as a Python trainer does with
	// sys.executable, not a version manager's wrapper script.
	exe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Fatal(err)
	}
	python := strings.TrimSpace(string(exe))
	benchCalls(b, func() error {
		out, err := exec.Command(python, "-c", "print(4821*37)").Output()
		if err != nil {
			return err
		}
		return checkOutput(string(out))
	})
}

// BenchmarkCall measures one caller at a time on a warm worker.
func BenchmarkCall(b *testing.B) {
	s := newSandbox(b, DefaultConfig())
	s.Call(context.Background(), benchProgram)
	for b.Loop() {
		if r := s.Call(context.Background(), benchProgram); r.Status != envs.StatusOK {
			b.Fatalf("Call = %+v", r)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
