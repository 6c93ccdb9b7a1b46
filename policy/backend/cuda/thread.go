package cuda

import (
	"errors"
	"runtime"
)

// worker runs every call for one device on one goroutine locked to its OS
// thread. A CUDA context is current per OS thread; a goroutine that
// migrates to a thread without the context crashes the calls it makes,
// so all of them go through this thread, on which the device's primary
// context is made current once.
type worker struct {
	calls chan func()
	done  chan struct{}
}

// errClosed is returned by calls made after the worker stopped.
var errClosed = errors.New("cuda: device closed")

// startWorker starts the thread and runs setup on it (making the context
// current). When setup fails the thread ends, and so does the worker.
func startWorker(setup func() error) (*worker, error) {
	w := &worker{calls: make(chan func()), done: make(chan struct{})}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		defer close(w.done)
		if err := setup(); err != nil {
			ready <- err
			return
		}
		ready <- nil
		for f := range w.calls {
			if f == nil { // stop
				return
			}
			f()
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return w, nil
}

// do runs f on the device's thread and returns its error. Calls from
// distinct goroutines run one at a time, in the order they arrive.
func (w *worker) do(f func() error) error {
	errc := make(chan error, 1)
	select {
	case w.calls <- func() { errc <- f() }:
		return <-errc
	case <-w.done:
		return errClosed
	}
}

// stop runs last on the thread, then ends it; later calls get errClosed.
func (w *worker) stop(last func() error) error {
	err := w.do(last)
	select {
	case w.calls <- nil:
	case <-w.done:
	}
	<-w.done
	return err
}
