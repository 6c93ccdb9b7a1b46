package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Spinner shows that work of unknown length goes on: one line, redrawn
// every second, with the description and the time spent. A nil *Spinner
// is valid and does nothing.
type Spinner struct {
	w     io.Writer
	desc  string
	start time.Time
	stop  chan struct{}
	once  sync.Once
	done  sync.WaitGroup
}

// Spin starts a spinner on standard error when it is a terminal, else
// returns nil.
func Spin(desc string) *Spinner {
	if !IsTerminal(os.Stderr) {
		return nil
	}
	return SpinOn(os.Stderr, desc, time.Second)
}

// SpinOn starts a spinner on w whatever w is, redrawn every tick (tests
// use it).
func SpinOn(w io.Writer, desc string, tick time.Duration) *Spinner {
	s := &Spinner{w: w, desc: desc, start: time.Now(), stop: make(chan struct{})}
	s.draw()
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.draw()
			case <-s.stop:
				return
			}
		}
	}()
	return s
}

func (s *Spinner) draw() {
	fmt.Fprintf(s.w, "\r\033[K%s %s", s.desc, time.Since(s.start).Round(time.Second))
}

// Stop ends the spinner and erases its line, so that what is printed next
// starts a clean line; later calls do nothing.
func (s *Spinner) Stop() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		close(s.stop)
		s.done.Wait()
		fmt.Fprint(s.w, "\r\033[K")
	})
}
