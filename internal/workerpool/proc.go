package workerpool

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/artist-rl/artist/internal/frame"
)

// Proc is one worker process as the parent sees it: the command, the
// parent's ends of the two protocol pipes, and the head of what the
// process wrote on standard error.
type Proc struct {
	cmd      *exec.Cmd
	requests *os.File // the parent's end of the worker's fd 3
	replies  *os.File // the parent's end of the worker's fd 4
	stderr   *headBuffer
	exited   chan struct{} // closed once the process has been waited for
	killOnce sync.Once
}

// Start starts cmd with the request pipe as its file descriptor 3, the
// reply pipe as 4 and extra from 5 on, and keeps the first stderrLimit
// bytes it writes on standard error. cmd must put the process in its own
// process group (Setpgid) on Linux, since Kill signals the whole group.
// Start closes the child's ends of the pipes and every file of extra,
// whether or not the process started; its error is unwrapped, for the
// caller to name the worker.
func Start(cmd *exec.Cmd, stderrLimit int, extra ...*os.File) (*Proc, error) {
	defer func() {
		for _, f := range extra {
			f.Close()
		}
	}()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	p := &Proc{cmd: cmd, requests: reqW, replies: repR, stderr: &headBuffer{limit: stderrLimit}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.ExtraFiles = append([]*os.File{reqR, repW}, extra...)
	err = cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Handshake sends hello and reads the worker's answer into ready, giving
// up after timeout or at ctx's deadline, whichever comes first. When the
// exchange fails, the worker is killed and reaped before Handshake returns
// the error, so Stderr holds all the worker wrote.
func (p *Proc) Handshake(ctx context.Context, hello, ready frame.Message, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := p.Exchange(ctx, hello, ready, deadline); err != nil {
		p.Kill()
		return err
	}
	return nil
}

// Exchange writes out and reads one frame into in, giving up at deadline
// or when ctx ends (with an error wrapping os.ErrDeadlineExceeded).
func (p *Proc) Exchange(ctx context.Context, out, in frame.Message, deadline time.Time) error {
	_ = p.requests.SetWriteDeadline(deadline)
	_ = p.replies.SetReadDeadline(deadline)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = p.requests.SetWriteDeadline(time.Unix(1, 0))
		_ = p.replies.SetReadDeadline(time.Unix(1, 0))
	})
	defer func() {
		if !stop() {
			<-fired
		}
	}()
	if err := frame.Write(p.requests, out); err != nil {
		return err
	}
	return frame.Read(p.replies, in)
}

// Kill ends the worker's process group (on Linux; the process elsewhere)
// and waits until the worker is reaped. A worker already reaped is not
// signaled: its id may belong to another process by now. Kill may be
// called any number of times, from any goroutine.
func (p *Proc) Kill() {
	p.killOnce.Do(func() {
		select {
		case <-p.exited:
		default:
			_ = killGroup(p.cmd.Process)
		}
		<-p.exited
		p.requests.Close()
		p.replies.Close()
	})
}

// Reap waits at most d for the worker to exit on its own, then kills it;
// either way the worker has been reaped when Reap returns.
func (p *Proc) Reap(d time.Duration) {
	select {
	case <-p.exited:
	case <-time.After(d):
		p.Kill()
	}
}

// State returns how the worker ended; nil until it has been reaped (Reap
// or Kill returned).
func (p *Proc) State() *os.ProcessState {
	select {
	case <-p.exited:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// Pid returns the worker's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stderr returns the head of what the worker wrote on standard error.
func (p *Proc) Stderr() string { return p.stderr.String() }

// IsDeadline reports whether err is a read or write deadline passing.
func IsDeadline(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// headBuffer keeps the first limit bytes written to it: a crashing
// runtime writes its reason first.
type headBuffer struct {
	mu    sync.Mutex
	limit int
	b     []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.limit - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}
