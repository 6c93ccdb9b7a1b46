package pysandbox

import (
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

// The parent and a worker's driver talk over two pipes that only they hold
// (the driver's descriptors 3 and 4), as the Go sandbox's workers do. A
// frame is a 4-byte big-endian body length followed by the body; bodies are
// flat lists of uvarints and length-prefixed byte strings, which carry
// printed bytes exactly. driver.py holds the other end.

// hello configures a driver; it is the first frame the parent sends.
type hello struct {
	maxOutput   int
	memory      int64
	cpus        []int
	filter      []byte // the runner seccomp filter
	pidInsn     int    // the filter instruction that takes the runner's pid
	maxSessions int
	reuse       bool // stateless calls share a runner (Runtime.Reuse)
}

func (h *hello) Encode(e *frame.Encoder) {
	e.Uint(uint64(h.maxOutput))
	e.Uint(uint64(h.memory))
	e.Uint(uint64(len(h.cpus)))
	for _, c := range h.cpus {
		e.Uint(uint64(c))
	}
	e.Str(string(h.filter))
	e.Uint(uint64(h.pidInsn))
	e.Uint(uint64(h.maxSessions))
	e.Bool(h.reuse)
}

func (h *hello) Decode(d *frame.Decoder) {
	h.maxOutput, h.memory = int(d.Uint()), int64(d.Uint())
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		h.cpus = append(h.cpus, int(d.Uint()))
	}
	h.filter, h.pidInsn, h.maxSessions = []byte(d.Str()), int(d.Uint()), int(d.Uint())
	h.reuse = d.Bool()
}

// ready is the driver's answer to hello: an error, or the libraries it
// imported ("python 3.11.2", "numpy 1.24.2", ...).
type ready struct {
	err       string
	libraries []string
}

func (r *ready) Encode(e *frame.Encoder) {
	e.Str(r.err)
	e.Uint(uint64(len(r.libraries)))
	for _, l := range r.libraries {
		e.Str(l)
	}
}

func (r *ready) Decode(d *frame.Decoder) {
	r.err = d.Str()
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		r.libraries = append(r.libraries, d.Str())
	}
}

// request asks a driver to run code. Session 0 is a fresh runner; another
// value names a runner that keeps its globals between requests. Drop lists
// sessions whose runners are no longer needed. Seq numbers the requests of
// one worker; the reply repeats it.
type request struct {
	seq     uint64
	session uint64
	drop    []uint64
	code    string
	timeout time.Duration
}

func (r *request) Encode(e *frame.Encoder) {
	e.Uint(r.seq)
	e.Uint(r.session)
	e.Uint(uint64(len(r.drop)))
	for _, id := range r.drop {
		e.Uint(id)
	}
	e.Str(r.code)
	e.Uint(uint64(r.timeout))
}

func (r *request) Decode(d *frame.Decoder) {
	r.seq, r.session = d.Uint(), d.Uint()
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		r.drop = append(r.drop, d.Uint())
	}
	r.code, r.timeout = d.Str(), time.Duration(d.Uint())
}

// reply is the outcome of one request. Retire says the driver exits after
// this reply.
type reply struct {
	seq       uint64
	status    envs.Status
	stdout    string
	truncated bool
	message   string
	err       string
	retire    bool
}

func (r *reply) Encode(e *frame.Encoder) {
	e.Uint(r.seq)
	e.Str(string(r.status))
	e.Str(r.stdout)
	e.Bool(r.truncated)
	e.Str(r.message)
	e.Str(r.err)
	e.Bool(r.retire)
}

func (r *reply) Decode(d *frame.Decoder) {
	r.seq = d.Uint()
	r.status = envs.Status(d.Str())
	r.stdout = d.Str()
	r.truncated = d.Bool()
	r.message, r.err = d.Str(), d.Str()
	r.retire = d.Bool()
}
