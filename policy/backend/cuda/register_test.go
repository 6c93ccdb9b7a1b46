package cuda

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

func TestRegistered(t *testing.T) {
	names := backend.Names()
	for _, n := range []string{"cuda", "cudaemu"} {
		if !slices.Contains(names, n) {
			t.Errorf("%q is not registered: %q", n, names)
		}
	}
	if i, j := slices.Index(names, "cuda"), slices.Index(names, "openblas"); j >= 0 && i > j {
		t.Errorf("cuda is tried after openblas: %q", names)
	}
	if names[len(names)-1] != "cudaemu" {
		t.Errorf("cudaemu should be tried last: %q", names)
	}
}

// TestOpenWithoutGPU checks that on a machine without the NVIDIA driver
// (or without a GPU) Open fails at once with a one-line error saying
// what to do, and that the automatic choice passes over cuda saying so.
func TestOpenWithoutGPU(t *testing.T) {
	b, err := Open()
	if err == nil {
		t.Skipf("a GPU is present: %v", b.Info())
	}
	if !errors.Is(err, ErrNoDriver) && !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Open: %v, want ErrNoDriver or ErrNoDevice on a machine without a GPU", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || len(msg) > 160 || !strings.Contains(msg, "install the NVIDIA driver") && !strings.Contains(msg, "nvidia-smi") {
		t.Errorf("Open's error %q should be one short line that says how to fix it", msg)
	}
	t.Setenv(backend.EnvVar, "")
	sel, err := backend.Select()
	if err != nil {
		t.Fatal(err)
	}
	if sel.Backend.Info().Name == "cuda" || !strings.Contains(sel.String(), msg) {
		t.Errorf("selection %q should pass over cuda with %q", sel, msg)
	}
}

// TestOpenNamedLibDir checks that a driver folder that holds no driver
// fails with ErrNoDriver and the fix.
func TestOpenNamedLibDir(t *testing.T) {
	_, err := openWith(SearchPath{LibDir: t.TempDir()})
	if err == nil {
		t.Skip("the loader found a driver")
	}
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), LibDirEnv) {
		t.Errorf("error %q, want ErrNoDriver naming %s", err, LibDirEnv)
	}
}
