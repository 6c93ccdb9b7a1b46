package collective

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/collective/mpitest"
)

func TestSingle(t *testing.T) {
	var c Collective = Single{}
	buf := []float32{1, 2}
	if err := c.AllReduceFloat32(buf); err != nil || buf[0] != 1 || buf[1] != 2 {
		t.Errorf("AllReduceFloat32 = %v, %v", buf, err)
	}
	parts, err := c.Gather([]byte("x"), 0)
	if err != nil || len(parts) != 1 || string(parts[0]) != "x" {
		t.Errorf("Gather = %q, %v", parts, err)
	}
	if err := c.Broadcast(nil, 1); !errors.Is(err, ErrRoot) {
		t.Errorf("Broadcast root 1 of 1: %v, want ErrRoot", err)
	}
}

// runLocal runs f on each of n local ranks and returns their errors.
func runLocal(n int, f func(c Collective) error) []error {
	cs := NewLocal(n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f(c) }()
	}
	wg.Wait()
	return errs
}

// exercise makes the calls of a job and checks their results on one rank;
// the local and the MPI tests share it.
func exercise(c Collective) error {
	r, n := c.Rank(), c.Size()
	f32 := make([]float32, 1000)
	f64 := make([]float64, 3)
	for i := range f32 {
		f32[i] = float32(r*1000 + i)
	}
	for i := range f64 {
		f64[i] = float64(r+1) * 0.1
	}
	if err := c.AllReduceFloat32(f32); err != nil {
		return err
	}
	if err := c.AllReduceFloat64(f64); err != nil {
		return err
	}
	for i, v := range f32 {
		want := float32(1000*n*(n-1)/2 + n*i)
		if v != want {
			return fmt.Errorf("rank %d: f32[%d] = %v, want %v", r, i, v, want)
		}
	}
	want64 := 0.0
	for k := range n {
		want64 += float64(k+1) * 0.1
	}
	if math.Abs(f64[0]-want64) > 1e-12 {
		return fmt.Errorf("rank %d: f64 = %v, want %v", r, f64[0], want64)
	}
	b := []byte("....")
	if r == n-1 {
		copy(b, "root")
	}
	if err := c.Broadcast(b, n-1); err != nil {
		return err
	}
	if string(b) != "root" {
		return fmt.Errorf("rank %d: Broadcast gave %q", r, b)
	}
	parts, err := AllGather(c, bytes.Repeat([]byte{byte('a' + r)}, r)) // rank 0 sends nothing
	if err != nil {
		return err
	}
	for k, p := range parts {
		if string(p) != strings.Repeat(string(rune('a'+k)), k) {
			return fmt.Errorf("rank %d: AllGather part %d = %q", r, k, p)
		}
	}
	return c.Barrier()
}

func TestLocal(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		for i, err := range runLocal(n, exercise) {
			if err != nil {
				t.Errorf("n=%d rank %d: %v", n, i, err)
			}
		}
	}
}

func TestLocalSumsInRankOrder(t *testing.T) {
	// 1e8 + 1 - 1e8 in float32 depends on the order: rank order gives 0.
	vals := []float32{1e8, 1, -1e8}
	var got [3]float32
	runLocal(3, func(c Collective) error {
		b := []float32{vals[c.Rank()]}
		err := c.AllReduceFloat32(b)
		got[c.Rank()] = b[0]
		return err
	})
	if got != [3]float32{0, 0, 0} {
		t.Errorf("sums %v, want (1e8+1)-1e8 = 0 on every rank", got)
	}
}

func TestOpenErrors(t *testing.T) {
	cases := []struct {
		name, collective, lib string
		want                  []string
	}{
		{"unknown", "nccl2", "", []string{"ARTIST_COLLECTIVE", "nccl2", "single or mpi"}},
		{"missing library", "mpi", "/nonexistent/libmpi.so.40", []string{"/nonexistent/libmpi.so.40", "ARTIST_MPI_LIB", "openmpi-bin"}},
		{"not Open MPI", "mpi", "libc.so.6", []string{"libc.so.6", "not Open MPI", "ARTIST_MPI_LIB"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvCollective, tc.collective)
			t.Setenv(EnvMPILib, tc.lib)
			_, err := Open()
			if err == nil {
				t.Fatal("Open succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

func TestOpenDefaultsToSingle(t *testing.T) {
	for _, v := range launcherVars {
		if _, ok := os.LookupEnv(v); ok {
			t.Skipf("%s is set: running under a launcher", v)
		}
	}
	t.Setenv(EnvCollective, "")
	c, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(Single); !ok {
		t.Errorf("Open without a launcher = %T, want Single", c)
	}
}

// TestMPIJob runs TestMPIRank as the ranks of mpirun -np 2 and -np 3.
func TestMPIJob(t *testing.T) {
	for _, np := range []int{2, 3} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		out, err := mpitest.Command(t, ctx, np, "TestMPIRank", "ARTIST_MPI_RANK_TEST=1").CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("mpirun -np %d: %v\n%s", np, err, out)
		}
	}
}

// TestMPIRank is one rank of TestMPIJob: the calls of exercise, then
// an all-reduce of random float32s twice, which must give the same bits
// on every rank and in both runs.
func TestMPIRank(t *testing.T) {
	if os.Getenv("ARTIST_MPI_RANK_TEST") != "1" {
		t.Skip("a rank of TestMPIJob")
	}
	c, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*MPI); !ok || c.Size() < 2 {
		t.Fatalf("Open under mpirun = %T of size %d, want MPI", c, c.Size())
	}
	if err := exercise(c); err != nil {
		t.Fatal(err)
	}
	if !nilPanics() {
		t.Error("a nil dereference after MPI_Init did not panic")
	}
	if err := underGC(c); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(int64(c.Rank())))
	x := make([]float32, 1<<16)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	sums := [2][]float32{}
	for k := range sums {
		sums[k] = append([]float32(nil), x...)
		if err := c.AllReduceFloat32(sums[k]); err != nil {
			t.Fatal(err)
		}
	}
	h := sha256.Sum256(f32bytes(sums[0]))
	if h != sha256.Sum256(f32bytes(sums[1])) {
		t.Errorf("rank %d: two all-reduces of the same buffers differ", c.Rank())
	}
	parts, err := AllGather(c, h[:])
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range parts {
		if !bytes.Equal(p, h[:]) {
			t.Errorf("rank %d's sum differs from rank %d's", k, c.Rank())
		}
	}
}

// underGC makes many small calls while the collector runs without pause:
// memory MPI reads or writes must not move (a parked goroutine's stack
// does) during a call.
func underGC(c Collective) error {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	for i := range 100 {
		growStack(200) // a large stack, mostly unused: the collector shrinks it
		parts, err := AllGather(c, []byte(fmt.Sprintf("%d/%d", c.Rank(), i)))
		if err != nil {
			return err
		}
		for k, p := range parts {
			if string(p) != fmt.Sprintf("%d/%d", k, i) {
				return fmt.Errorf("rank %d, call %d: part %d is %q", c.Rank(), i, k, p)
			}
		}
		x := []float64{float64(c.Rank() + i)}
		if err := c.AllReduceFloat64(x); err != nil {
			return err
		}
		if want := float64(c.Size()*i + c.Size()*(c.Size()-1)/2); x[0] != want {
			return fmt.Errorf("rank %d, call %d: sum %v, want %v", c.Rank(), i, x[0], want)
		}
	}
	return nil
}

// growStack grows the goroutine's stack by about depth KiB.
func growStack(depth int) byte {
	var pad [1024]byte
	if depth == 0 {
		return pad[0]
	}
	pad[depth%1024] = byte(depth)
	return growStack(depth-1) + pad[(depth*7)%1024]
}

// nilPanics reports whether a nil dereference is still a Go panic: MPI
// must leave the runtime's SIGSEGV handler in place.
func nilPanics() (ok bool) {
	defer func() { ok = recover() != nil }()
	var p *int
	_ = *p
	return false
}

func f32bytes(x []float32) []byte {
	b := make([]byte, 0, 4*len(x))
	for _, v := range x {
		u := math.Float32bits(v)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return b
}

// TestMPIAbort: a rank that aborts ends the whole job, quickly, with its
// message.
func TestMPIAbort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	out, err := mpitest.Command(t, ctx, 2, "TestMPIAbortRank", "ARTIST_MPI_RANK_TEST=1").CombinedOutput()
	if err == nil {
		t.Fatalf("job with an aborting rank succeeded:\n%s", out)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("job took %v to end", d)
	}
	if !strings.Contains(string(out), "rank 1: giving up") {
		t.Errorf("output lacks rank 1's message:\n%s", out)
	}
}

// TestMPIAbortRank: rank 1 aborts while rank 0 waits in a barrier.
func TestMPIAbortRank(t *testing.T) {
	if os.Getenv("ARTIST_MPI_RANK_TEST") != "1" {
		t.Skip("a rank of TestMPIAbort")
	}
	c, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank() == 1 {
		c.Abort(3, "giving up")
	}
	c.Barrier()
	t.Fatal("the barrier returned though rank 1 aborted")
}
