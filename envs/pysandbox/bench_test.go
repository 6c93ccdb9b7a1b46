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
	"github.com/artist-rl/artist/envs/sandbox"
)

// benchClients is how many goroutines make calls at once, matching the two
// workers of BenchmarkPool, as in the Go sandbox's benchmarks.
const benchClients = 2

// benchProgram is the small program of the benchmarks, and what it
// prints; it is pure (pure.py). benchFresh prints the same but is not
// pure, so each call of it runs in a fresh runner.
const (
	benchProgram, benchOutput = "print(4821 * 37)", "178377\n"
	benchFresh                = "import sys\nprint(4821 * 37)"
)

// benchCalls runs b.N calls of call from benchClients goroutines and
// reports calls/s and the median and 99th-percentile latency.
func benchCalls(b *testing.B, call func() error) {
	b.ResetTimer()
	lat, elapsed, err := runClients(b.N, call)
	b.StopTimer()
	if err != nil {
		b.Error(err)
	}
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
}

// runClients makes n calls of call from benchClients goroutines and
// returns the latencies of those that succeeded, sorted, the time all
// took and the first error, after which its goroutine stops.
func runClients(n int, call func() error) ([]time.Duration, time.Duration, error) {
	var (
		next     atomic.Int64
		mu       sync.Mutex
		lat      []time.Duration
		firstErr error
		wg       sync.WaitGroup
	)
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			var mine []time.Duration
			var err error
			for next.Add(1) <= int64(n) {
				t0 := time.Now()
				if err = call(); err != nil {
					break
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	return lat, elapsed, firstErr
}

// percentile returns the p-th percentile of the sorted lat.
func percentile(lat []time.Duration, p int) time.Duration {
	return lat[min(len(lat)*p/100, len(lat)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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
	benchCalls(b, func() error { return callOutput(s.Call(context.Background(), benchProgram)) })
}

// BenchmarkSubprocess measures what Python trainers do per call: run the
// code with python3 -c in a new, unjailed process.
func BenchmarkSubprocess(b *testing.B) {
	benchCalls(b, subprocessCall)
}

func subprocessCall() error {
	out, err := exec.Command(DefaultRuntime().Interpreter, "-c", benchProgram).Output()
	if err != nil {
		return err
	}
	return checkOutput(string(out))
}

// BenchmarkVersus measures in one run, two calls at a time: the pool on
// benchProgram, which is pure, so a plain worker runs it in the runner
// its last pure call used (py); the pool on benchFresh, which is not, so
// each call runs in a fresh runner of a plain worker (py-fresh); the
// same with full workers only (py-full); python3 -c per call
// (BenchmarkSubprocess); and the Go sandbox's pool of two workers (as
// envs/sandbox's BenchmarkPool does). The five take turns, ten calls
// each, so that a change in the machine's load falls on all. It reports
// each median latency, how many times python3 -c's median each pool's is
// (x-python, x-python-fresh, x-python-full, and x-go for the Go
// sandbox's) and each one's throughput, calls a second with two callers
// that call back to back: with every core busy, a call's median latency
// is about the processor time it costs, work off its critical path (the
// next runner's fork, the last one's exit) included.
func BenchmarkVersus(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Limits.Workers = 2
	py := newSandbox(b, cfg)
	cfg.fullOnly = true
	full := newSandbox(b, cfg)
	gocfg := sandbox.DefaultConfig()
	gocfg.Workers = 2
	gosb, err := sandbox.New(gocfg)
	if err != nil {
		b.Fatal(err)
	}
	defer gosb.Close()
	p50 := versus(b, 10, []func() error{
		func() error { return callOutput(py.Call(context.Background(), benchProgram)) },
		func() error { return callOutput(py.Call(context.Background(), benchFresh)) },
		func() error { return callOutput(full.Call(context.Background(), benchFresh)) },
		subprocessCall,
		func() error { return callOutput(gosb.Call(context.Background(), "fmt.Println(4821 * 37)")) },
	}, "py", "py-fresh", "py-full", "python3-c", "go")
	b.ReportMetric(p50[3]/p50[0], "x-python")
	b.ReportMetric(p50[3]/p50[1], "x-python-fresh")
	b.ReportMetric(p50[3]/p50[2], "x-python-full")
	b.ReportMetric(p50[3]/p50[4], "x-go")
}

// BenchmarkVersusSympy measures as BenchmarkVersus does a program that
// uses sympy, which runs in a full worker, against python3 -c, which
// imports sympy for every call: x-python.
func BenchmarkVersusSympy(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Limits.Workers = 2
	py := newSandbox(b, cfg)
	const program, want = "import sympy\nx = sympy.Symbol('x')\nprint(sympy.factor(x**2 - 1))", "(x - 1)*(x + 1)\n"
	p50 := versus(b, 2, []func() error{
		func() error {
			if r := py.Call(context.Background(), program); r.Output != want {
				return fmt.Errorf("call: %+v", r)
			}
			return nil
		},
		func() error {
			out, err := exec.Command(DefaultRuntime().Interpreter, "-c", program).Output()
			if err == nil && string(out) != want {
				err = fmt.Errorf("output %q, want %q", out, want)
			}
			return err
		},
	}, "py", "python3-c")
	b.ReportMetric(p50[1]/p50[0], "x-python")
}

// versus runs b.N calls of each contender, two at a time, the contenders
// taking turns of turn calls each, and reports each one's median latency
// (NAME-p50-ms) and throughput (NAME-calls/s); it returns the medians.
func versus(b *testing.B, turn int, contenders []func() error, names ...string) []float64 {
	for _, call := range contenders { // start the workers before timing
		if _, _, err := runClients(2, call); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([][]time.Duration, len(contenders))
	busy := make([]time.Duration, len(contenders))
	b.ResetTimer()
	for done := 0; done < b.N; done += turn {
		for i, call := range contenders {
			l, elapsed, err := runClients(min(turn, b.N-done), call)
			if err != nil {
				b.Fatal(err)
			}
			lat[i] = append(lat[i], l...)
			busy[i] += elapsed
		}
	}
	b.StopTimer()
	p50 := make([]float64, len(lat))
	for i, l := range lat {
		slices.Sort(l)
		p50[i] = ms(percentile(l, 50))
		b.ReportMetric(p50[i], names[i]+"-p50-ms")
		b.ReportMetric(float64(len(l))/busy[i].Seconds(), names[i]+"-calls/s")
	}
	return p50
}

// callOutput checks a call's result against benchOutput.
func callOutput(r envs.Result) error {
	if r.Status != envs.StatusOK {
		return fmt.Errorf("call: %+v", r)
	}
	return checkOutput(r.Output)
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
