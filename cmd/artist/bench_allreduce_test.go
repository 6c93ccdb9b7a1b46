package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/collective/mpitest"
)

// TestBenchAllReduce runs artist bench -allreduce as the ranks of mpirun
// -np 2 (TestBenchAllReduceRank) and checks its report.
func TestBenchAllReduce(t *testing.T) {
	config, _ := benchFixtures(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := mpitest.Command(t, ctx, 2, "TestBenchAllReduceRank", "ARTIST_BENCH_RANK="+config).Output()
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	var rep allReduceReport
	line := out[bytes.IndexByte(out, '{'):]
	if err := json.Unmarshal(line[:bytes.IndexByte(line, '\n')], &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Ranks != 2 || rep.Floats != 2800 || rep.Bytes != 11200 || !(rep.AllReduceS > 0) || !(rep.MemcpyS > 0) {
		t.Errorf("report %+v; want 2 ranks, the fixture model's 2800 weights, positive times", rep)
	}
}

// TestBenchAllReduceRank is one rank of TestBenchAllReduce.
func TestBenchAllReduceRank(t *testing.T) {
	config := os.Getenv("ARTIST_BENCH_RANK")
	if config == "" {
		t.Skip("a rank of TestBenchAllReduce")
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"bench", "-allreduce", "-model-config", config, "-steps", "5"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	os.Stdout.Write(stdout.Bytes())
}

func TestBenchAllReduceNeedsRanks(t *testing.T) {
	t.Setenv("ARTIST_COLLECTIVE", "single")
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"bench", "-allreduce", "-floats", "10"}, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "mpirun -np 2") {
		t.Errorf("stderr %q does not say to run under mpirun", stderr.String())
	}
}

// TestTrainLaunchedWithoutMPI: launched by mpirun (as its variables say)
// where libmpi cannot be loaded, artist train stops at start naming the
// library and ARTIST_MPI_LIB, instead of training alone.
func TestTrainLaunchedWithoutMPI(t *testing.T) {
	t.Setenv("OMPI_COMM_WORLD_SIZE", "2")
	t.Setenv("ARTIST_COLLECTIVE", "")
	t.Setenv("ARTIST_MPI_LIB", "/nonexistent/libmpi.so.40")
	code, _, stderr := runCLI("train", "-config", "../../configs/tiny-tool-arith.yaml", "-set", "run_dir="+t.TempDir())
	if code != 1 || !strings.Contains(stderr, "/nonexistent/libmpi.so.40") || !strings.Contains(stderr, "ARTIST_MPI_LIB") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
