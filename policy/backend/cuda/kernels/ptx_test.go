package kernels

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestPTXCurrent rebuilds the PTX from the sources with
// scripts/build-ptx.sh and fails when the embedded kernels.ptx differs
// (run the script and commit its output). Without clang-19 it skips,
// unless ARTIST_REQUIRE_CLANG=1 makes that a failure.
func TestPTXCurrent(t *testing.T) {
	if _, err := exec.LookPath("clang-19"); err != nil {
		msg := "clang-19 not found: install it (Debian: apt-get install clang-19) to check kernels.ptx against its sources"
		if os.Getenv("ARTIST_REQUIRE_CLANG") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out := filepath.Join(t.TempDir(), "kernels.ptx")
	cmd := exec.Command("bash", filepath.Join("..", "..", "..", "..", "scripts", "build-ptx.sh"), out)
	cmd.Env = append(os.Environ(), "CLANG=clang-19")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build-ptx.sh: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, PTX) {
		g, w := bytes.Split(got, []byte("\n")), bytes.Split(PTX, []byte("\n"))
		i := 0
		for i < len(g) && i < len(w) && bytes.Equal(g[i], w[i]) {
			i++
		}
		t.Fatalf("kernels.ptx is stale from line %d on: run scripts/build-ptx.sh and commit kernels.ptx", i+1)
	}
}

// TestPTXEntries checks that the embedded module's entries are the
// kernels that KernelNames lists.
func TestPTXEntries(t *testing.T) {
	entries := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(`).FindAllSubmatch(PTX, -1) {
		entries[string(m[1])] = true
	}
	for _, k := range KernelNames {
		if !entries[k] {
			t.Errorf("kernels.ptx has no entry %s", k)
		}
		delete(entries, k)
	}
	for k := range entries {
		t.Errorf("kernels.ptx has an entry %s that KernelNames does not list", k)
	}
	if !bytes.Contains(PTX, []byte(".target sm_80")) {
		t.Error("kernels.ptx does not target sm_80")
	}
}
