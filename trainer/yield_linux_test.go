package trainer

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// niceOf is the nice value of thread tid.
func niceOf(t *testing.T, tid int) int {
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatal(err)
	}
	return 20 - raw
}

// TestLowerThreadPriority: the update's thread runs updateNice lower
// than the process, and no other thread is touched.
func TestLowerThreadPriority(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	base := niceOf(t, unix.Gettid())
	got := make(chan int)
	go func() {
		if !lowerThreadPriority() {
			t.Error("lowerThreadPriority did not lower the priority")
		}
		got <- niceOf(t, unix.Gettid())
	}()
	if n, want := <-got, min(19, base+updateNice); n != want {
		t.Errorf("the update's thread runs at nice %d, want %d (process at %d)", n, want, base)
	}
	if n := niceOf(t, unix.Gettid()); n != base {
		t.Errorf("the caller's thread went from nice %d to %d", base, n)
	}
}
