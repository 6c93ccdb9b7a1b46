package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSilentOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	if b := New(&buf, 10, "eval"); b != nil {
		t.Fatal("a bar on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file is taken for a terminal")
	}
	var nilBar *Bar
	nilBar.Set(3)
	nilBar.Add(1)
	nilBar.Done()
	nilBar.Clear()
	var nilSpin *Spinner
	nilSpin.Stop()
}

func TestBarShowsCountRateAndTimeLeft(t *testing.T) {
	var buf bytes.Buffer
	b := Force(&buf, 4, "math500")
	b.Set(2)
	time.Sleep(120 * time.Millisecond) // past the throttle
	b.Set(3)
	b.Done()
	b.Done()
	out := buf.String()
	for _, want := range []string{"math500", "4/4", "it/s", "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output lacks %q: %q", want, out)
		}
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("Done twice ended the line twice: %q", out)
	}
}

// lockedBuffer is a bytes.Buffer safe for the spinner's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestSpinnerRedrawsAndErases(t *testing.T) {
	var buf lockedBuffer
	s := SpinOn(&buf, "building the library", 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	s.Stop()
	s.Stop()
	out := buf.String()
	if strings.Count(out, "building the library") < 2 || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("spinner output %q: want several redraws and an erased line at the end", out)
	}
}

func TestReportFollowsTheHooksTotal(t *testing.T) {
	var buf bytes.Buffer
	b := Force(&buf, 1, "library")
	b.Report(0, 8) // the hook's total replaces the bar's
	b.Describe("library (draw 2)")
	time.Sleep(120 * time.Millisecond)
	b.Report(3, 8)
	b.Hide()
	erased := buf.Len()
	time.Sleep(120 * time.Millisecond)
	b.Report(8, 8)
	b.Done()
	out := buf.String()
	for _, want := range []string{"3/8", "8/8", "library (draw 2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output lacks %q: %q", want, out)
		}
	}
	if tail := strings.TrimRight(out[:erased], " "); !strings.HasSuffix(tail, "\r") {
		t.Errorf("Hide left the line drawn: %q", out[:erased])
	}
	var nilBar *Bar
	nilBar.Report(1, 2)
	nilBar.Describe("x")
	nilBar.Hide()
}
