package sysmem

import (
	"runtime"
	"testing"
)

func TestPeakRSSGrows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss units are checked on Linux")
	}
	before := PeakRSSMiB()
	if before <= 0 {
		t.Fatalf("PeakRSSMiB = %g, want > 0", before)
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	after := PeakRSSMiB()
	if after < before+32 {
		t.Errorf("peak RSS went from %.1f to %.1f MiB after touching 64 MiB, want at least +32", before, after)
	}
	runtime.KeepAlive(buf)
}
