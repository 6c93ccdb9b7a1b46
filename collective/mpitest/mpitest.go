// Package mpitest launches tests under mpirun: a test re-runs its own
// test binary as the ranks of a small MPI job on this machine.
package mpitest

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// EnvRequire, set to 1, makes tests that need mpirun fail where it is
// missing instead of skipping (CI installs openmpi-bin and sets it).
const EnvRequire = "ARTIST_REQUIRE_MPI"

// Mpirun returns the path of mpirun, skipping t when it is not installed
// (failing it under ARTIST_REQUIRE_MPI=1).
func Mpirun(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("mpirun")
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("mpirun not found and %s=1: install openmpi-bin", EnvRequire)
		}
		t.Skip("mpirun not found: install openmpi-bin (apt-get install openmpi-bin) to run the MPI tests")
	}
	return p
}

// Command returns mpirun starting np copies of this test binary with
// -test.run=^name$ and the environment env (KEY=VALUE) added, so that the
// test name runs as the ranks (they inherit mpirun's environment). It allows root (containers), more ranks
// than cores, and keeps to shared memory on this machine.
func Command(t testing.TB, ctx context.Context, np int, name string, env ...string) *exec.Cmd {
	t.Helper()
	mpirun := Mpirun(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-np", strconv.Itoa(np), "--oversubscribe", "--bind-to", "none"}
	args = append(args, exe, "-test.run=^"+name+"$", "-test.count=1")
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Env = Env(env...)
	return cmd
}

// Env is os.Environ with what an mpirun on one machine needs, then extra.
func Env(extra ...string) []string {
	env := append(os.Environ(),
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_vader_single_copy_mechanism=none",
		"OMPI_MCA_rmaps_base_oversubscribe=1")
	return append(env, extra...)
}
