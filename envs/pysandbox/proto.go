package pysandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/artist-rl/artist/envs"
)

// The parent and a worker's driver talk over two pipes that only they hold
// (the driver's descriptors 3 and 4), as the Go sandbox's workers do. A
// frame is a 4-byte big-endian body length followed by the body; bodies are
// flat lists of uvarints and length-prefixed byte strings, which carry
// printed bytes exactly. driver.py holds the other end.

// maxFrame bounds a frame body; a larger length means a broken stream.
const maxFrame = 64 << 20

// errFrame marks a malformed frame.
var errFrame = errors.New("pysandbox: malformed frame")

// message is a value carried in one frame.
type message interface {
	encode(e *encoder)
	decode(d *decoder)
}

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

func (h *hello) encode(e *encoder) {
	e.uint(uint64(h.maxOutput))
	e.uint(uint64(h.memory))
	e.uint(uint64(len(h.cpus)))
	for _, c := range h.cpus {
		e.uint(uint64(c))
	}
	e.str(string(h.filter))
	e.uint(uint64(h.pidInsn))
	e.uint(uint64(h.maxSessions))
	e.bool(h.reuse)
}

func (h *hello) decode(d *decoder) {
	h.maxOutput, h.memory = int(d.uint()), int64(d.uint())
	for n := d.uint(); n > 0 && d.err == nil; n-- {
		h.cpus = append(h.cpus, int(d.uint()))
	}
	h.filter, h.pidInsn, h.maxSessions = []byte(d.str()), int(d.uint()), int(d.uint())
	h.reuse = d.bool()
}

// ready is the driver's answer to hello: an error, or the libraries it
// imported ("python 3.11.2", "numpy 1.24.2", ...).
type ready struct {
	err       string
	libraries []string
}

func (r *ready) encode(e *encoder) {
	e.str(r.err)
	e.uint(uint64(len(r.libraries)))
	for _, l := range r.libraries {
		e.str(l)
	}
}

func (r *ready) decode(d *decoder) {
	r.err = d.str()
	for n := d.uint(); n > 0 && d.err == nil; n-- {
		r.libraries = append(r.libraries, d.str())
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

func (r *request) encode(e *encoder) {
	e.uint(r.seq)
	e.uint(r.session)
	e.uint(uint64(len(r.drop)))
	for _, id := range r.drop {
		e.uint(id)
	}
	e.str(r.code)
	e.uint(uint64(r.timeout))
}

func (r *request) decode(d *decoder) {
	r.seq, r.session = d.uint(), d.uint()
	for n := d.uint(); n > 0 && d.err == nil; n-- {
		r.drop = append(r.drop, d.uint())
	}
	r.code, r.timeout = d.str(), time.Duration(d.uint())
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

func (r *reply) encode(e *encoder) {
	e.uint(r.seq)
	e.str(string(r.status))
	e.str(r.stdout)
	e.bool(r.truncated)
	e.str(r.message)
	e.str(r.err)
	e.bool(r.retire)
}

func (r *reply) decode(d *decoder) {
	r.seq = d.uint()
	r.status = envs.Status(d.str())
	r.stdout = d.str()
	r.truncated = d.bool()
	r.message, r.err = d.str(), d.str()
	r.retire = d.bool()
}

// writeMsg sends m as one frame with a single write.
func writeMsg(w io.Writer, m message) error {
	e := encoder{b: make([]byte, 4, 64)}
	m.encode(&e)
	if len(e.b)-4 > maxFrame {
		return fmt.Errorf("pysandbox: frame of %d bytes is too large", len(e.b)-4)
	}
	binary.BigEndian.PutUint32(e.b, uint32(len(e.b)-4))
	_, err := w.Write(e.b)
	return err
}

// readMsg reads one frame into m.
func readMsg(r io.Reader, m message) error {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return fmt.Errorf("%w: length %d", errFrame, n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	d := decoder{b: body}
	m.decode(&d)
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", errFrame, len(d.b))
	}
	return d.err
}

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }

func (e *encoder) bool(v bool) {
	if v {
		e.uint(1)
	} else {
		e.uint(0)
	}
}

// decoder reads what encoder wrote; the first error sticks and later reads
// return zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errFrame
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errFrame
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) bool() bool { return d.uint() != 0 }
