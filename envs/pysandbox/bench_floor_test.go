package pysandbox

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// forkFloorScript imports what every worker imports, freezes the
// collector as the driver does, then times fork, exit and reap of a
// child that does nothing, n times, two at a time (one per core, as
// BenchmarkVersus runs two calls at once), and prints the median
// milliseconds of a fork-exit-reap.
const forkFloorScript = `
import gc, os, sys, time, threading
for m in ("numpy", "sympy", "mpmath"):
    try:
        __import__(m)
    except ImportError:
        pass
gc.collect(); gc.freeze()
n = int(sys.argv[1]); lat = []; lock = threading.Lock()
def one():
    for _ in range(n // 2):
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        with lock:
            lat.append(time.perf_counter() - t)
ts = [threading.Thread(target=one) for _ in range(2)]
[t.start() for t in ts]; [t.join() for t in ts]
lat.sort(); print(lat[len(lat) // 2] * 1000)
`

// BenchmarkForkFloor measures the floor under a fresh-runner call: a
// fork of an interpreter holding the workers' libraries and the exit
// and reap of the child, with no jail and no code run, two at a time.
// Each stateless call pays at least this (its runner is forked from the
// driver and killed after), so python3 -c's median over it bounds how
// many times faster than python3 -c such a call can be: it reports the
// floor and that bound, x-bound.
func BenchmarkForkFloor(b *testing.B) {
	py := DefaultRuntime().Interpreter
	var floor, pyc []float64
	for b.Loop() {
		out, err := exec.Command(py, "-c", forkFloorScript, "100").Output()
		if err != nil {
			b.Fatal(err)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
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

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
