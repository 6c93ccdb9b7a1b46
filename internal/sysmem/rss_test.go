package sysmem

import (
	"runtime"
	"testing"
)

// TestPeakRSS touches 128 MiB: the peak must cover it, in MiB.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss units are checked on Linux")
	}
	before := PeakRSSMiB()
	if before <= 0 {
		t.Fatalf("PeakRSSMiB = %g, want > 0", before)
	}
	buf := make([]byte, 128<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	after := PeakRSSMiB()
	if after < 128 || after < before {
		t.Errorf("peak RSS %.1f MiB (%.1f before) after touching 128 MiB, want at least 128 and no less than before", after, before)
	}
	if after > 1<<20 {
		t.Errorf("peak RSS %.1f MiB: the units are wrong", after)
	}
	runtime.KeepAlive(buf)
}
