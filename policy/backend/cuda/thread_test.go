//go:build linux

package cuda

import (
	"errors"
	"sync"
	"syscall"
	"testing"
)

// TestWorkerOneThread checks that every call, from any goroutine, runs
// on the thread that ran setup, and that calls after stop get errClosed.
func TestWorkerOneThread(t *testing.T) {
	var tid int
	w, err := startWorker(func() error { tid = syscall.Gettid(); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := w.do(func() error {
					if got := syscall.Gettid(); got != tid {
						return errors.New("a call ran on another thread")
					}
					return nil
				}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	stopped := errors.New("last")
	if err := w.stop(func() error { return stopped }); err != stopped {
		t.Errorf("stop: %v, want the last call's error", err)
	}
	if err := w.do(func() error { return nil }); err != errClosed {
		t.Errorf("call after stop: %v, want errClosed", err)
	}
}

func TestWorkerSetupFails(t *testing.T) {
	bad := errors.New("no device")
	if _, err := startWorker(func() error { return bad }); err != bad {
		t.Errorf("startWorker: %v, want setup's error", err)
	}
}
