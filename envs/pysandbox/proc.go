package pysandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/internal/frame"
)

// startTimeout bounds how long a new jail may take to report ready: its
// interpreter imports numpy and sympy first.
const startTimeout = 30 * time.Second

// proc is one jail as the parent sees it: bubblewrap, which runs the
// driver as process 1 of the jail's namespaces.
type proc struct {
	cmd       *exec.Cmd
	requests  *os.File // the parent's end of the driver's fd 3
	replies   *os.File // the parent's end of the driver's fd 4
	stderr    *headBuffer
	exited    chan struct{} // closed once bubblewrap has been waited for
	killOnce  sync.Once
	libraries []string
}

// startProc builds a jail and waits until its driver has loaded the
// libraries and limited itself, at most until ctx ends or startTimeout
// passes.
func startProc(ctx context.Context, j *jail, h hello) (*proc, error) {
	var files []*os.File // the child's ends, closed once it started
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pysandbox: start worker: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("pysandbox: start worker: %w", err)
	}
	files = append(files, reqR, repW)
	p := &proc{requests: reqW, replies: repR, stderr: &headBuffer{limit: 8192}, exited: make(chan struct{})}
	cmd, filter, err := j.command()
	if err == nil {
		files = append(files, filter)
		cmd.Stderr = p.stderr
		cmd.ExtraFiles = []*os.File{reqR, repW, filter}
		err = cmd.Start()
	}
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, fmt.Errorf("pysandbox: start worker: %w", err)
	}
	p.cmd = cmd
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	if err := p.handshake(ctx, h); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// handshake sends hello and reads ready.
func (p *proc) handshake(ctx context.Context, h hello) error {
	deadline := time.Now().Add(startTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var r ready
	err := p.exchange(ctx, &h, &r, deadline)
	switch {
	case err != nil:
		p.kill()
		return fmt.Errorf("pysandbox: start worker: %w: %s", err, p.report())
	case r.err != "":
		return fmt.Errorf("pysandbox: start worker: %s", r.err)
	}
	p.libraries = r.libraries
	return nil
}

// exchange writes out and reads one frame into in, giving up at deadline
// or when ctx ends (with an error wrapping os.ErrDeadlineExceeded).
func (p *proc) exchange(ctx context.Context, out, in frame.Message, deadline time.Time) error {
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

// kill ends the jail's process group (bubblewrap, the driver and its
// runners; the kernel also ends every process of the jail's PID namespace
// with the driver) and waits until bubblewrap is reaped. A jail already
// reaped is not signaled: its id may belong to another process by now.
func (p *proc) kill() {
	p.killOnce.Do(func() {
		select {
		case <-p.exited:
		default:
			_ = killGroup(p.cmd.Process.Pid)
		}
		<-p.exited
		p.requests.Close()
		p.replies.Close()
	})
}

// report waits briefly for the jail to exit and returns how it ended and
// what it wrote on standard error.
func (p *proc) report() string {
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		p.kill()
	}
	msg := "worker exited"
	if st := p.cmd.ProcessState; st != nil {
		msg = "worker " + st.String()
	}
	if s := strings.TrimSpace(p.stderr.String()); s != "" {
		msg += ": " + s
	}
	return msg
}

// headBuffer keeps the first limit bytes written to it.
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

// isDeadline reports whether err is a read or write deadline passing.
func isDeadline(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
