package trainer

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

func TestComputeDTypeKey(t *testing.T) {
	cases := []struct {
		yaml string
		sets []string
		want string
	}{
		{"", nil, "f32"},
		{"model:\n  compute_dtype: bf16\n", nil, "bf16"},
		{"", []string{"model.compute_dtype=bf16"}, "bf16"},
		{"model:\n  compute_dtype: bf16\n", []string{"model.compute_dtype=f32"}, "f32"},
	}
	for i, c := range cases {
		cfg, err := Parse([]byte(c.yaml), "x.yaml", c.sets)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if cfg.Model.ComputeDType != c.want {
			t.Errorf("case %d: model.compute_dtype %q, want %q", i, cfg.Model.ComputeDType, c.want)
		}
	}
}

// TestComputeDTypeNotResumable: a run's compute dtype changes what it
// trains, so a resume may not change it, and a record from before the key
// existed reads as f32.
func TestComputeDTypeNotResumable(t *testing.T) {
	if why, ok := resumeKeys["model.compute_dtype"]; ok {
		t.Errorf("model.compute_dtype is a resume key (%s): it changes what is trained", why)
	}
	old, err := parseRecorded([]byte("model:\n  hidden_size: 64\n"))
	if err != nil {
		t.Fatal(err)
	}
	if old.Model.ComputeDType != "f32" {
		t.Errorf("a record without the key reads as %q, want f32", old.Model.ComputeDType)
	}
}

// TestComputeDTypeOnCPU: the CPU backends compute in f32 only; bf16 is
// refused naming the backend and both fixes, by setComputeDType and at
// the start of Setup.
func TestComputeDTypeOnCPU(t *testing.T) {
	cases := []struct {
		dtype  string
		errHas []string
	}{
		{"f32", nil},
		{"bf16", []string{"model.compute_dtype bf16", "go", "f32 only", "ARTIST_BACKEND=cuda", "model.compute_dtype: f32"}},
	}
	for _, c := range cases {
		err := setComputeDType(cpu.NewGo(), c.dtype)
		checkErrHas(t, c.dtype, err, c.errHas)
	}
	sel, err := policy.DefaultBackend()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sel.Backend.(interface{ SetComputeDType(string) error }); ok {
		t.Skipf("the default backend %s computes in bf16", sel.Backend.Info().Name)
	}
	cfg := DefaultConfig()
	cfg.RunDir, cfg.Model.ComputeDType = t.TempDir(), "bf16"
	_, err = Setup(context.Background(), cfg, io.Discard)
	checkErrHas(t, "Setup", err, []string{"model.compute_dtype bf16", sel.Backend.Info().Name, "ARTIST_BACKEND=cuda"})
}

// checkErrHas fails unless err holds every string of has (nil err for
// none).
func checkErrHas(t *testing.T, what string, err error, has []string) {
	t.Helper()
	if (err != nil) != (len(has) > 0) {
		t.Fatalf("%s: error %v, want one naming %q", what, err, has)
	}
	for _, s := range has {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: error %q does not name %q", what, err, s)
		}
	}
}
