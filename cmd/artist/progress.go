package main

import (
	"io"
	"time"

	"github.com/artist-rl/artist/internal/progress"
)

// bar is a progress bar of one benchmark on stderr, drawn only when stderr
// is a terminal.
type bar struct{ b *progress.Bar }

func newBar(stderr io.Writer, total int, desc string) bar {
	return bar{progress.New(stderr, total, desc)}
}

// progress is an evalbench.Options.Progress.
func (b bar) progress(done, total int, _ time.Duration) {
	b.b.Set(done)
	if done == total {
		b.b.Done()
	}
}

// finish ends the bar (erasing it when the work stopped short).
func (b bar) finish() { b.b.Clear() }
