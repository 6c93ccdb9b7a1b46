package trainer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/collective"
	"github.com/artist-rl/artist/collective/mpitest"
)

// The tests below run this test binary as the ranks of mpirun jobs
// (TestMPIRankTrain is one rank); they skip where mpirun is missing,
// unless ARTIST_REQUIRE_MPI=1.

const (
	envRankTest  = "ARTIST_DIST_TEST"       // "train": run TestMPIRankTrain as a rank
	envRankDir   = "ARTIST_DIST_DIR"        // the run folder
	envRankSets  = "ARTIST_DIST_SETS"       // config overrides, ';'-separated
	envRank1Sets = "ARTIST_DIST_RANK1_SETS" // overrides rank 1 adds
	envRankPIDs  = "ARTIST_DIST_PIDS"       // folder where each rank writes rank-N.pid
	envRankGrad  = "ARTIST_DIST_GRAD_CHECK" // "1": run gradCheck instead of training
)

// TestMPIRankTrain is one rank of an mpirun job: it trains distConfig
// as artist train does (an error ends the whole job).
func TestMPIRankTrain(t *testing.T) {
	if os.Getenv(envRankTest) != "train" {
		t.Skip("a rank of the MPI tests")
	}
	c, err := collective.Open()
	if err != nil {
		t.Fatal(err)
	}
	if d := os.Getenv(envRankPIDs); d != "" {
		os.WriteFile(filepath.Join(d, fmt.Sprintf("rank-%d.pid", c.Rank())), []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	sets := strings.Split(os.Getenv(envRankSets), ";")
	if c.Rank() == 1 {
		sets = append(sets, strings.Split(os.Getenv(envRank1Sets), ";")...)
	}
	sets = slicesNonEmpty(sets)
	cfg := distConfig(t, os.Getenv(envRankDir), sets...)
	if os.Getenv(envRankGrad) == "1" {
		d, err := gradCheck(context.Background(), c, cfg)
		if err != nil {
			c.Abort(1, err.Error())
		}
		fmt.Printf("rank %d: gradient relative difference %.3e\n", c.Rank(), d)
		c.Close()
		return
	}
	if _, err := TrainOn(context.Background(), cfg, c, os.Stdout); err != nil {
		c.Abort(1, err.Error())
	}
	c.Close()
}

func slicesNonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mpiTrain starts np ranks of TestMPIRankTrain on dir.
func mpiTrain(t *testing.T, ctx context.Context, np int, dir string, env ...string) *exec.Cmd {
	t.Helper()
	env = append([]string{envRankTest + "=train", envRankDir + "=" + dir}, env...)
	cmd := mpitest.Command(t, ctx, np, "TestMPIRankTrain", env...)
	return cmd
}

func runMPI(t *testing.T, np int, dir string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := mpiTrain(t, ctx, np, dir, env...).CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun -np %d: %v\n%s", np, err, out)
	}
	return string(out)
}

// TestMPIGradient is test (a): one batch's gradient all-reduced at -np 2
// equals the one-process gradient within 1e-6 relative, on each rank.
func TestMPIGradient(t *testing.T) {
	out := runMPI(t, 2, t.TempDir(), envRankGrad+"=1", envRankSets+"=tool.kind=disabled;rollout.max_tool_calls=0")
	n := 0
	for _, line := range strings.Split(out, "\n") {
		var rank int
		var d float64
		if _, err := fmt.Sscanf(line, "rank %d: gradient relative difference %g", &rank, &d); err != nil {
			continue
		}
		n++
		t.Logf("rank %d: %.2e", rank, d)
		if d > 1e-6 {
			t.Errorf("rank %d: all-reduced gradient differs by %.2e relative, want <= 1e-6", rank, d)
		}
	}
	if n != 2 {
		t.Errorf("%d ranks reported, want 2:\n%s", n, out)
	}
}

// TestMPIRefusesDifferentConfigs is test (d) under mpirun.
func TestMPIRefusesDifferentConfigs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := mpiTrain(t, ctx, 2, t.TempDir(), envRank1Sets+"=rollout.temperature=0.7").CombinedOutput()
	if err == nil {
		t.Fatalf("ranks with different configs trained:\n%s", out)
	}
	if !strings.Contains(string(out), "rollout.temperature is 0.7 on rank 1 and 1 on rank 0") {
		t.Errorf("output does not name rollout.temperature:\n%s", out)
	}
}

// TestMPITrain is tests (b) and (c): 20 steps at -np 2 end with the same
// weights on both ranks (the run checks it), within 1e-4 relative of
// -np 1 and of the same config without a launcher, and bit-identical on a
// rerun; a rank killed mid-step ends the
// job within 30 s naming the rank, leaves only intact checkpoints, and a
// restart ends with the uninterrupted run's weights.
func TestMPITrain(t *testing.T) {
	mpitest.Mpirun(t)
	if testing.Short() {
		t.Skip("trains five runs under mpirun")
	}
	final := func(dir string) string { return filepath.Join(dir, "checkpoints", "step-000020") }
	one, two, again := t.TempDir(), t.TempDir(), t.TempDir()
	runMPI(t, 1, one)
	out := runMPI(t, 2, two)
	if !strings.Contains(out, "the same on all 2 ranks") {
		t.Errorf("the run did not report matching weights on both ranks:\n%s", out)
	}
	runMPI(t, 2, again)
	if a, b := fileHash(t, final(two)), fileHash(t, final(again)); a != b {
		t.Errorf("two runs at -np 2 end with different weights (%x, %x)", a[:6], b[:6])
	}
	d := relDiff(checkpointWeights(t, final(two)), checkpointWeights(t, final(one)))
	t.Logf("20 steps: -np 2 vs -np 1 weights differ by %.2e relative", d)
	if d > 1e-4 {
		t.Errorf("-np 2 weights differ from -np 1 by %.2e relative, want <= 1e-4", d)
	}
	alone := t.TempDir() // the same config in one process, without a launcher
	if _, err := Train(context.Background(), distConfig(t, alone), io.Discard); err != nil {
		t.Fatal(err)
	}
	d = relDiff(checkpointWeights(t, final(two)), checkpointWeights(t, final(alone)))
	t.Logf("20 steps: -np 2 vs no launcher weights differ by %.2e relative", d)
	if d > 1e-4 {
		t.Errorf("-np 2 weights differ from the run without a launcher by %.2e relative, want <= 1e-4", d)
	}

	killed := t.TempDir()
	killRank(t, killed)
	if out := runMPI(t, 2, killed); !strings.Contains(out, "resuming") {
		t.Errorf("the restart did not resume:\n%s", out)
	}
	if a, b := fileHash(t, final(two)), fileHash(t, final(killed)); a != b {
		t.Errorf("the restarted run ends with other weights than the uninterrupted one (%x, %x)", b[:6], a[:6])
	}
}

// killRank starts 20 steps at -np 2 on dir, SIGKILLs rank 1 once step 7
// is recorded, and checks how the job ends and what it leaves behind.
func killRank(t *testing.T, dir string) {
	t.Helper()
	pids := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := mpiTrain(t, ctx, 2, dir, envRankPIDs+"="+pids)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for !hasStep(filepath.Join(dir, "metrics.jsonl"), 7) {
		if ctx.Err() != nil {
			t.Fatalf("step 7 never came:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	b, err := os.ReadFile(filepath.Join(pids, "rank-1.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	took := time.Since(start)
	t.Logf("job ended %.1fs after rank 1 was killed: %v", took.Seconds(), err)
	if err == nil {
		t.Errorf("the job succeeded though rank 1 was killed:\n%s", out.String())
	}
	if took > 30*time.Second {
		t.Errorf("the job took %v to end after rank 1 died, want <= 30s", took)
	}
	named := false
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "rank 1") {
			named = true
			t.Logf("%s", line)
		}
	}
	if !named {
		t.Errorf("the job's output does not name rank 1:\n%s", out.String())
	}
	if hasStep(filepath.Join(dir, "metrics.jsonl"), 20) {
		t.Errorf("the run finished before rank 1 was killed")
	}
	root := filepath.Join(dir, "checkpoints")
	names, err := checkpoint.List(root)
	if err != nil || len(names) == 0 {
		t.Fatalf("checkpoints %v: %v", names, err)
	}
	for _, n := range names {
		if _, err := checkpoint.Open(filepath.Join(root, n), nil); err != nil {
			t.Errorf("checkpoint %s is not intact: %v", n, err)
		}
	}
}

// hasStep reports whether metrics.jsonl holds the record of step.
func hasStep(path string, step int) bool {
	recs, err := ReadMetrics(path)
	if err != nil {
		return false
	}
	for _, m := range recs {
		if int(m["step"]) == step {
			return true
		}
	}
	return false
}

// fileHash is the SHA-256 of a checkpoint's model.safetensors.
func fileHash(t *testing.T, dir string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}
