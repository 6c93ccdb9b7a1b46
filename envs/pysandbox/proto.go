package pysandbox

import (
	"github.com/artist-rl/artist/internal/frame"
	"github.com/artist-rl/artist/internal/workerpool"
)

// The parent and a worker's driver speak the protocol of package
// internal/workerpool, as the Go sandbox's workers do, over the driver's
// descriptors 3 and 4, with a hello extended by the runner's settings.
// driver.py holds the other end.

// hello configures a driver; it is the first frame the parent sends.
type hello struct {
	workerpool.Hello
	filter      []byte // the runner seccomp filter
	pidInsn     int    // the filter instruction that takes the runner's pid
	maxSessions int
	reuse       bool // stateless calls share a runner (Runtime.Reuse)
	plain       bool // a plain worker: the standard library only (plain.go)
}

func (h *hello) Encode(e *frame.Encoder) {
	h.Hello.Encode(e)
	e.Str(string(h.filter))
	e.Uint(uint64(h.pidInsn))
	e.Uint(uint64(h.maxSessions))
	e.Bool(h.reuse)
	e.Bool(h.plain)
}

func (h *hello) Decode(d *frame.Decoder) {
	h.Hello.Decode(d)
	h.filter, h.pidInsn, h.maxSessions = []byte(d.Str()), int(d.Uint()), int(d.Uint())
	h.reuse, h.plain = d.Bool(), d.Bool()
}

// ready is the driver's answer to hello: an error, or the libraries it
// imported ("python 3.11.2", "numpy 1.24.2", ...).
type ready = workerpool.Ready

// request asks a driver to run code: session 0 is a fresh runner, another
// value a runner that keeps its globals between requests.
type request = workerpool.Request

// reply is the outcome of one request.
type reply = workerpool.Reply
