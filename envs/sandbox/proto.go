package sandbox

import (
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

// The parent and a worker talk over two pipes that only they hold (the
// worker's file descriptors 3 and 4), never over the worker's standard
// streams, so nothing an interpreted program prints can reach the protocol.
// A frame is a 4-byte big-endian body length followed by the body; bodies
// are flat lists of uvarints and length-prefixed byte strings, which carry
// printed bytes exactly (invalid UTF-8 included).

// hello configures a worker; it is the first frame the parent sends.
type hello struct {
	maxOutput int
	memory    int64
	cpus      []int // the CPUs the worker runs on; empty: those it inherits
}

func (h *hello) Encode(e *frame.Encoder) {
	e.Uint(uint64(h.maxOutput))
	e.Uint(uint64(h.memory))
	e.Uint(uint64(len(h.cpus)))
	for _, c := range h.cpus {
		e.Uint(uint64(c))
	}
}

func (h *hello) Decode(d *frame.Decoder) {
	h.maxOutput = int(d.Uint())
	h.memory = int64(d.Uint())
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		h.cpus = append(h.cpus, int(d.Uint()))
	}
}

// ready is the worker's answer to hello: empty once its limits are set.
type ready struct{ err string }

func (r *ready) Encode(e *frame.Encoder) { e.Str(r.err) }
func (r *ready) Decode(d *frame.Decoder) { r.err = d.Str() }

// request asks a worker to run code. Session 0 is a fresh interpreter;
// another value names a per-session interpreter that persists between
// requests. Drop lists sessions whose interpreters are no longer needed.
type request struct {
	session uint64
	drop    []uint64
	code    string
	timeout time.Duration
}

func (r *request) Encode(e *frame.Encoder) {
	e.Uint(r.session)
	e.Uint(uint64(len(r.drop)))
	for _, id := range r.drop {
		e.Uint(id)
	}
	e.Str(r.code)
	e.Uint(uint64(r.timeout))
}

func (r *request) Decode(d *frame.Decoder) {
	r.session = d.Uint()
	n := d.Count()
	if d.Err() != nil {
		return
	}
	r.drop = make([]uint64, n)
	for i := range r.drop {
		r.drop[i] = d.Uint()
	}
	r.code = d.Str()
	r.timeout = time.Duration(d.Uint())
}

// reply is the outcome of one request. Message is the one-line error the
// policy reads, Error the full text. Retire says the worker exits after
// this reply (something of the program may still run, or its memory grew).
type reply struct {
	status    envs.Status
	stdout    string
	truncated bool
	message   string
	err       string
	retire    bool
}

func (r *reply) Encode(e *frame.Encoder) {
	e.Str(string(r.status))
	e.Str(r.stdout)
	e.Bool(r.truncated)
	e.Str(r.message)
	e.Str(r.err)
	e.Bool(r.retire)
}

func (r *reply) Decode(d *frame.Decoder) {
	r.status = envs.Status(d.Str())
	r.stdout = d.Str()
	r.truncated = d.Bool()
	r.message = d.Str()
	r.err = d.Str()
	r.retire = d.Bool()
}
