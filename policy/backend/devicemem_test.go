package backend

import (
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"80000000000", 80e9, false},
		{"80e9", 80e9, false},
		{"80GB", 80e9, false},
		{"80 gb", 80e9, false},
		{"141GiB", 141 << 30, false},
		{"512MiB", 512 << 20, false},
		{"0.5TB", 5e11, false},
		{"64K", 64e3, false},
		{"100B", 100, false},
		{"", 0, true},
		{"GB", 0, true},
		{"-1GB", 0, true},
		{"0", 0, true},
		{"eighty", 0, true},
		{"NaN", 0, true},
		{"1e30", 0, true},
	} {
		got, err := ParseBytes(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "80GB") {
			t.Errorf("ParseBytes(%q): error %q does not show what to write", c.in, err)
		}
	}
}
