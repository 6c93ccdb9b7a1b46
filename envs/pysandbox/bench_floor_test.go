package pysandbox

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// forkFloorScript imports what every worker imports, freezes the
// collector as the driver does, then times fork, exit and reap of a
// child that does nothing, n times in a row, and prints the median
// milliseconds of one.
const forkFloorScript = `
import gc, os, sys, time
for m in ("numpy", "sympy", "mpmath"):
    try:
        __import__(m)
    except ImportError:
        pass
gc.collect(); gc.freeze()
lat = []
for _ in range(int(sys.argv[1])):
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    lat.append(time.perf_counter() - t)
lat.sort(); print(lat[len(lat) // 2] * 1000)
`

// BenchmarkForkFloor measures the floor under a fresh-runner call: a
// fork of an interpreter holding the workers' libraries, and the exit
// and reap of the child, with no jail and no code run, in two processes
// at once (one per core, as BenchmarkVersus runs two calls at once).
// Each stateless call pays at least this (its runner is forked from the
// driver and killed after), so python3 -c's median over it bounds how
// many times faster than python3 -c such a call can be: it reports the
// floor and that bound, x-bound.
func BenchmarkForkFloor(b *testing.B) {
	var floor, pyc []float64
	for b.Loop() {
		f, err := forkFloor(50)
		if err != nil {
			b.Fatal(err)
		}
		floor = append(floor, f)
		lat, _, err := runClients(20, subprocessCall)
		if err != nil {
			b.Fatal(err)
		}
		pyc = append(pyc, ms(percentile(lat, 50)))
	}
	f, p := median(floor), median(pyc)
	b.ReportMetric(f, "fork-exit-ms")
	b.ReportMetric(p, "python3-c-p50-ms")
	b.ReportMetric(p/f, "x-bound")
}

// forkFloor runs forkFloorScript with n forks in benchClients processes
// at once and returns the mean of their medians.
func forkFloor(n int) (float64, error) {
	out := make([]float64, benchClients)
	errs := make([]error, benchClients)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			b, err := exec.Command(DefaultRuntime().Interpreter, "-c", forkFloorScript, strconv.Itoa(n)).Output()
			if err == nil {
				out[i], err = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	sum := 0.0
	for i, v := range out {
		if errs[i] != nil {
			return 0, errs[i]
		}
		sum += v
	}
	return sum / float64(len(out)), nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
