package pysandbox

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/workerpool"
)

// killGrace is how long past a call's timeout the parent waits for the
// driver's answer (the driver kills the runner at the timeout itself)
// before it kills the whole jail.
const killGrace = 500 * time.Millisecond

// startTimeout bounds how long a new jail may take to report ready: its
// interpreter imports numpy and sympy first.
const startTimeout = 30 * time.Second

// newPool returns the pool of n jails built by j and configured by h.
// A worker is bubblewrap, which runs the driver as process 1 of the
// jail's namespaces; killing it kills the jail's process group
// (bubblewrap, the driver and its runners; the kernel also ends every
// process of the jail's PID namespace with the driver).
func newPool(j *jail, h hello, n int) *workerpool.Pool {
	return workerpool.New(workerpool.Config{
		Name:    "pysandbox",
		Workers: n,
		Start: func(ctx context.Context) (*workerpool.Proc, error) {
			p, _, err := startProc(ctx, j, h)
			return p, err
		},
		KillGrace: killGrace,
		Explain:   explain,
	})
}

// startPool starts the first of n jails built by j and configured by h
// and returns the pool of n, seeded with it, and the libraries it
// reported.
func startPool(j *jail, h hello, n int) (*workerpool.Pool, []string, error) {
	first, libs, err := startProc(context.Background(), j, h)
	if err != nil {
		return nil, nil, err
	}
	p := newPool(j, h, n)
	p.Seed(first)
	return p, libs, nil
}

// startProc builds a jail and waits until its driver has loaded the
// libraries and limited itself, at most until ctx ends or startTimeout
// passes. It returns the libraries the driver reported.
func startProc(ctx context.Context, j *jail, h hello) (*workerpool.Proc, []string, error) {
	cmd, filter, err := j.command()
	if err != nil {
		return nil, nil, fmt.Errorf("pysandbox: start worker: %w", err)
	}
	p, err := workerpool.Start(cmd, 8192, filter)
	if err != nil {
		return nil, nil, fmt.Errorf("pysandbox: start worker: %w", err)
	}
	var r ready
	if err := p.Handshake(ctx, &h, &r, startTimeout); err != nil {
		return nil, nil, fmt.Errorf("pysandbox: start worker: %w: %s", err, report(p))
	}
	if r.Err != "" {
		p.Kill()
		return nil, nil, fmt.Errorf("pysandbox: start worker: %s", r.Err)
	}
	return p, r.Libraries, nil
}

// explain says that the jail p stopped answering with err, and how it
// ended.
func explain(p *workerpool.Proc, err error) workerpool.Reply {
	msg := "worker stopped answering"
	return workerpool.Reply{Status: envs.StatusError, Message: msg, Err: fmt.Sprintf("%s: %v\n%s", msg, err, report(p))}
}

// report waits briefly for the jail p to exit and returns how it ended
// and what it wrote on standard error.
func report(p *workerpool.Proc) string {
	p.Reap(time.Second)
	msg := "worker exited"
	if st := p.State(); st != nil {
		msg = "worker " + st.String()
	}
	if s := strings.TrimSpace(p.Stderr()); s != "" {
		msg += ": " + s
	}
	return msg
}
