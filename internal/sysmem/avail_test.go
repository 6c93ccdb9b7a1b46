package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadCgroupLimit(t *testing.T) {
	for _, c := range []struct {
		text string
		want int64
		ok   bool
	}{
		{"max\n", 0, false},
		{"8589934592\n", 8 << 30, true},
		{"9223372036854771712\n", 0, false}, // v1 unlimited
		{"", 0, false},
	} {
		p := filepath.Join(t.TempDir(), "limit")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		n, ok := readCgroupLimit(p)
		if n != c.want || ok != c.ok {
			t.Errorf("%q: got %d %v, want %d %v", c.text, n, ok, c.want, c.ok)
		}
	}
}

func TestMemAvailable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(p, []byte("MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n"), 0o644)
	n, err := memAvailable(p)
	if err != nil || n != 2048<<10 {
		t.Fatalf("got %d, %v; want %d", n, err, 2048<<10)
	}
	os.WriteFile(p, []byte("MemTotal: 1 kB\n"), 0o644)
	if _, err := memAvailable(p); err == nil {
		t.Fatal("a meminfo without MemAvailable gave no error")
	}
}
