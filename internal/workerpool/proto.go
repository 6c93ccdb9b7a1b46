package workerpool

import (
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

// The parent and a worker talk over two pipes that only they hold (the
// worker's file descriptors 3 and 4), never over the worker's standard
// streams, so nothing a program prints can reach the protocol. The parent
// sends a hello (Hello, or a tool's message that starts with one), the
// worker answers Ready, then each Request gets one Reply, which repeats
// the request's Seq.

// Hello is the head of the first frame the parent sends a worker: its
// limits.
type Hello struct {
	MaxOutput int   // the most printed bytes a reply carries
	Memory    int64 // the bytes a program may allocate
	CPUs      []int // the CPUs the worker runs on; empty: those it inherits
}

// Encode writes h to e.
func (h *Hello) Encode(e *frame.Encoder) {
	e.Uint(uint64(h.MaxOutput))
	e.Uint(uint64(h.Memory))
	e.Uint(uint64(len(h.CPUs)))
	for _, c := range h.CPUs {
		e.Uint(uint64(c))
	}
}

// Decode reads h from d.
func (h *Hello) Decode(d *frame.Decoder) {
	h.MaxOutput = int(d.Uint())
	h.Memory = int64(d.Uint())
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		h.CPUs = append(h.CPUs, int(d.Uint()))
	}
}

// Ready is a worker's answer to its hello: an error, or what it loaded
// (a tool's libraries; nothing for some tools) once its limits are set.
type Ready struct {
	Err       string
	Libraries []string
}

// Encode writes r to e.
func (r *Ready) Encode(e *frame.Encoder) {
	e.Str(r.Err)
	e.Uint(uint64(len(r.Libraries)))
	for _, l := range r.Libraries {
		e.Str(l)
	}
}

// Decode reads r from d.
func (r *Ready) Decode(d *frame.Decoder) {
	r.Err = d.Str()
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		r.Libraries = append(r.Libraries, d.Str())
	}
}

// Request asks a worker to run code. Seq numbers the requests of one
// worker (the pool sets it). Session 0 is a fresh interpreter; another
// value names a per-session interpreter that persists between requests.
// Drop lists sessions whose interpreters are no longer needed.
type Request struct {
	Seq     uint64
	Session uint64
	Drop    []uint64
	Code    string
	Timeout time.Duration
}

// Encode writes r to e.
func (r *Request) Encode(e *frame.Encoder) {
	e.Uint(r.Seq)
	e.Uint(r.Session)
	e.Uint(uint64(len(r.Drop)))
	for _, id := range r.Drop {
		e.Uint(id)
	}
	e.Str(r.Code)
	e.Uint(uint64(r.Timeout))
}

// Decode reads r from d.
func (r *Request) Decode(d *frame.Decoder) {
	r.Seq = d.Uint()
	r.Session = d.Uint()
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		r.Drop = append(r.Drop, d.Uint())
	}
	r.Code = d.Str()
	r.Timeout = time.Duration(d.Uint())
}

// Reply is the outcome of one request, whose Seq it repeats. Message is
// the one-line error the policy reads, Err the full text. Retire says the
// worker exits after this reply (something of the program may still run,
// or its memory grew).
type Reply struct {
	Seq       uint64
	Status    envs.Status
	Stdout    string
	Truncated bool
	Message   string
	Err       string
	Retire    bool
}

// Encode writes r to e.
func (r *Reply) Encode(e *frame.Encoder) {
	e.Uint(r.Seq)
	e.Str(string(r.Status))
	e.Str(r.Stdout)
	e.Bool(r.Truncated)
	e.Str(r.Message)
	e.Str(r.Err)
	e.Bool(r.Retire)
}

// Decode reads r from d.
func (r *Reply) Decode(d *frame.Decoder) {
	r.Seq = d.Uint()
	r.Status = envs.Status(d.Str())
	r.Stdout = d.Str()
	r.Truncated = d.Bool()
	r.Message = d.Str()
	r.Err = d.Str()
	r.Retire = d.Bool()
}
