// Package progress draws progress bars of long, otherwise silent work
// (building a library, evaluating, a slow training step) on a terminal,
// with the rate and the time left, and stays silent elsewhere: output
// piped into a log file or a test never holds a bar.
//
// A nil *Bar is valid and does nothing, so callers need not check whether
// one is shown.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v2"
)

// Bar is one progress bar.
type Bar struct {
	mu  sync.Mutex
	pb  *progressbar.ProgressBar
	w   io.Writer
	end bool
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// New returns a bar of total units described by desc, drawn on w when w
// is a terminal, else nil (no bar).
func New(w io.Writer, total int, desc string) *Bar {
	if !IsTerminal(w) {
		return nil
	}
	return Force(w, total, desc)
}

// Stderr is New on standard error, where bars go so that standard output
// keeps only results.
func Stderr(total int, desc string) *Bar { return New(os.Stderr, total, desc) }

// Force returns a bar drawn on w whatever w is (tests use it).
func Force(w io.Writer, total int, desc string) *Bar {
	if total < 1 {
		total = 1
	}
	pb := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(20),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
	)
	return &Bar{pb: pb, w: w}
}

// Set moves the bar to done units.
func (b *Bar) Set(done int) { b.live(func() { b.pb.Set(done) }) }

// Add advances the bar by n units.
func (b *Bar) Add(n int) { b.live(func() { b.pb.Add(n) }) }

// Report moves the bar to done of total units, first growing or
// shrinking it to total; it has the shape of the progress hooks of the
// packages that do long work (func(done, total int)), so b.Report can be
// passed as one.
func (b *Bar) Report(done, total int) {
	b.live(func() {
		if total > 0 && total != b.pb.GetMax() {
			b.pb.ChangeMax(total)
		}
		b.pb.Set(done)
	})
}

// Describe changes the text shown before the bar, from the next redraw.
func (b *Bar) Describe(desc string) { b.live(func() { b.pb.Describe(desc) }) }

// Hide erases the bar's line so that a line can be printed in its place;
// the bar is drawn again, below that line, at its next move.
func (b *Bar) Hide() { b.live(func() { b.pb.Clear() }) }

// live runs f under the bar's lock while the bar has not ended; a nil bar
// does nothing.
func (b *Bar) live(f func()) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.end {
		f()
	}
}

// Done fills the bar and ends its line; later calls do nothing.
func (b *Bar) Done() {
	b.finish(func() {
		b.pb.Finish()
		io.WriteString(b.w, "\n")
	})
}

// Clear erases the bar's line (for work that ends early: an error or an
// interrupt); later calls do nothing.
func (b *Bar) Clear() {
	b.finish(func() { b.pb.Clear() })
}

// finish ends the bar with end, once; a nil bar does nothing.
func (b *Bar) finish(end func()) {
	b.live(func() {
		b.end = true
		end()
	})
}
