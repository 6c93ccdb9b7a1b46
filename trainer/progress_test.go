package trainer

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a spinner's goroutine.
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

// TestStepProgress: a GRPO step shows a bar of its trajectories with
// their count, then names the phase that follows, and erases its line
// when stopped; a draw of dynamic sampling starts a bar of its own. A nil
// one (off a terminal) gives the engine no hook.
func TestStepProgress(t *testing.T) {
	var buf lockedBuffer
	p := newStepProgress(&buf, "GRPO step 3/10", 5*time.Millisecond)
	hook := p.hook()
	hook(0, 4)
	hook(2, 4)
	hook(4, 4)
	time.Sleep(20 * time.Millisecond)
	hook(0, 2)
	hook(2, 2)
	p.Stop()
	p.Stop()
	out := buf.String()
	for _, want := range []string{"GRPO step 3/10 rollouts", "4/4", "2/2", "GRPO step 3/10 scoring and update"} {
		if !strings.Contains(out, want) {
			t.Errorf("step output lacks %q: %q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("Stop left the line drawn: %q", out)
	}
	var off *stepProgress
	if off.hook() != nil {
		t.Error("a nil stepProgress gave a hook")
	}
	off.Stop()
}
