package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

func TestLibraryCandidates(t *testing.T) {
	sonames := []string{"libx.so.13", "libx.so.12"}
	cases := []struct {
		name string
		sp   SearchPath
		want []string
	}{
		{"bare names only", SearchPath{}, []string{"libx.so.13", "libx.so.12"}},
		{"libdir first, then the loader", SearchPath{LibDir: "/opt/cuda"},
			[]string{"/opt/cuda/libx.so.13", "/opt/cuda/libx.so.12", "libx.so.13", "libx.so.12"}},
		{"standard folders in order", SearchPath{StandardDirs: []string{"/a", "/b"}},
			[]string{"libx.so.13", "libx.so.12", "/a/libx.so.13", "/a/libx.so.12", "/b/libx.so.13", "/b/libx.so.12"}},
		{"wheels last, cu13 before cublas", SearchPath{LibDir: "/l", StandardDirs: []string{"/s"}, SitePackages: []string{"/p"}},
			[]string{"/l/libx.so.13", "/l/libx.so.12", "libx.so.13", "libx.so.12", "/s/libx.so.13", "/s/libx.so.12",
				"/p/nvidia/cu13/lib/libx.so.13", "/p/nvidia/cu13/lib/libx.so.12",
				"/p/nvidia/cublas/lib/libx.so.13", "/p/nvidia/cublas/lib/libx.so.12"}},
		{"duplicates dropped", SearchPath{LibDir: "/s", StandardDirs: []string{"/s"}},
			[]string{"/s/libx.so.13", "/s/libx.so.12", "libx.so.13", "libx.so.12"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := LibraryCandidates(tc.sp, sonames); !slices.Equal(got, tc.want) {
				t.Errorf("case %d:\n got %q\nwant %q", i, got, tc.want)
			}
		})
	}
}

func TestDefaultSearchPath(t *testing.T) {
	venv := t.TempDir()
	site := filepath.Join(venv, "lib", "python3.12", "site-packages")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(LibDirEnv, " /opt/mycuda ")
	t.Setenv("VIRTUAL_ENV", venv)
	sp := DefaultSearchPath()
	if sp.LibDir != "/opt/mycuda" {
		t.Errorf("LibDir = %q, want the trimmed %s", sp.LibDir, LibDirEnv)
	}
	if !slices.Equal(sp.StandardDirs, StandardDirs) {
		t.Errorf("StandardDirs = %q", sp.StandardDirs)
	}
	if len(sp.SitePackages) == 0 || sp.SitePackages[0] != site {
		t.Errorf("SitePackages = %q, want the virtual environment's %s first", sp.SitePackages, site)
	}
}

// TestLoadFirstSkipsAbsentFiles checks that absent paths are not tried
// and that a file that exists but does not load is named in the error.
func TestLoadFirstSkipsAbsentFiles(t *testing.T) {
	dir := t.TempDir()
	bogus := filepath.Join(dir, "libcuda.so.1")
	if err := os.WriteFile(bogus, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadFirst([]string{filepath.Join(dir, "absent.so"), bogus})
	if err == nil {
		t.Fatal("a text file loaded as a library")
	}
	if msg := err.Error(); !strings.Contains(msg, bogus) || strings.Contains(msg, "absent.so") {
		t.Errorf("error %q should name %s and not the absent file", msg, bogus)
	}
}

func TestHeuristicResultSize(t *testing.T) {
	if n := unsafe.Sizeof(heuristicResult{}); n != 96 {
		t.Errorf("heuristicResult is %d bytes, cublasLtMatmulHeuristicResult_t 96", n)
	}
}

func TestEncodeParams(t *testing.T) {
	cases := []struct {
		in   any
		want uint64
	}{
		{uintptr(0xdeadbeef000), 0xdeadbeef000},
		{int32(-2), 0xfffffffe},
		{uint32(7), 7},
		{int64(-1), ^uint64(0)},
		{uint64(1 << 40), 1 << 40},
		{float32(1), 0x3f800000},
	}
	for i, tc := range cases {
		got, err := encodeParams([]any{tc.in})
		if err != nil || got[0] != tc.want {
			t.Errorf("case %d: %T %v: got %#x, %v, want %#x", i, tc.in, tc.in, got, err, tc.want)
		}
	}
	if _, err := encodeParams([]any{1}); err == nil || !strings.Contains(err.Error(), "int") {
		t.Errorf("an int argument: error %v, want one naming the type", err)
	}
}

// TestExplain checks the one-line messages Open gives for what is missing.
func TestExplain(t *testing.T) {
	cases := []struct {
		err      error
		sentinel error
		fix      string
	}{
		{fmt.Errorf("%w: dlopen failed", ErrNoDriver), ErrNoDriver, "install the NVIDIA driver"},
		{ErrNoDevice, ErrNoDevice, "nvidia-smi"},
		{fmt.Errorf("%w: dlopen failed", ErrNoCuBLASLt), ErrNoCuBLASLt, LibDirEnv},
	}
	for i, tc := range cases {
		got := explain(tc.err)
		if !errors.Is(got, tc.sentinel) || !strings.Contains(got.Error(), tc.fix) || len(got.Error()) > 160 {
			t.Errorf("case %d: %q: want %v with %q, under 160 characters", i, got, tc.sentinel, tc.fix)
		}
	}
}

func TestDeviceOrdinal(t *testing.T) {
	cases := []struct {
		env   map[string]string
		count int
		want  int
		err   bool
	}{
		{nil, 1, 0, false},
		{nil, 8, 0, false},
		{map[string]string{DeviceEnv: "3"}, 8, 3, false},
		{map[string]string{DeviceEnv: "8"}, 8, 0, true},
		{map[string]string{DeviceEnv: "x"}, 8, 0, true},
		{map[string]string{"OMPI_COMM_WORLD_LOCAL_RANK": "5"}, 4, 1, false},
		{map[string]string{"MPI_LOCALRANKID": "2"}, 4, 2, false},
		{map[string]string{"SLURM_LOCALID": "3"}, 1, 0, false}, // one visible: the rank's own
		{map[string]string{"OMPI_COMM_WORLD_LOCAL_RANK": "1", DeviceEnv: "0"}, 2, 0, false},
	}
	for i, tc := range cases {
		got, err := DeviceOrdinal(func(k string) string { return tc.env[k] }, tc.count)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("case %d: %v of %d: got %d, %v; want %d, error %v", i, tc.env, tc.count, got, err, tc.want, tc.err)
		}
	}
}
