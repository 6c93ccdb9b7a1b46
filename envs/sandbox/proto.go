package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/artist-rl/artist/envs"
)

// The parent and a worker talk over two pipes that only they hold (the
// worker's file descriptors 3 and 4), never over the worker's standard
// streams, so nothing an interpreted program prints can reach the protocol.
// A frame is a 4-byte big-endian body length followed by the body; bodies
// are flat lists of uvarints and length-prefixed byte strings, which carry
// printed bytes exactly (invalid UTF-8 included).

// maxFrame bounds a frame body; a larger length means a broken stream.
const maxFrame = 64 << 20

// errFrame marks a malformed frame.
var errFrame = errors.New("sandbox: malformed frame")

// message is a value carried in one frame.
type message interface {
	encode(e *encoder)
	decode(d *decoder)
}

// hello configures a worker; it is the first frame the parent sends.
type hello struct {
	maxOutput int
	memory    int64
	cpus      []int // the CPUs the worker runs on; empty: those it inherits
}

func (h *hello) encode(e *encoder) {
	e.uint(uint64(h.maxOutput))
	e.uint(uint64(h.memory))
	e.uint(uint64(len(h.cpus)))
	for _, c := range h.cpus {
		e.uint(uint64(c))
	}
}

func (h *hello) decode(d *decoder) {
	h.maxOutput = int(d.uint())
	h.memory = int64(d.uint())
	n := d.uint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		h.cpus = append(h.cpus, int(d.uint()))
	}
}

// ready is the worker's answer to hello: empty once its limits are set.
type ready struct{ err string }

func (r *ready) encode(e *encoder) { e.str(r.err) }
func (r *ready) decode(d *decoder) { r.err = d.str() }

// request asks a worker to run code. Session 0 is a fresh interpreter;
// another value names a per-session interpreter that persists between
// requests. Drop lists sessions whose interpreters are no longer needed.
type request struct {
	session uint64
	drop    []uint64
	code    string
	timeout time.Duration
}

func (r *request) encode(e *encoder) {
	e.uint(r.session)
	e.uint(uint64(len(r.drop)))
	for _, id := range r.drop {
		e.uint(id)
	}
	e.str(r.code)
	e.uint(uint64(r.timeout))
}

func (r *request) decode(d *decoder) {
	r.session = d.uint()
	n := d.uint()
	if n > uint64(len(d.b)) { // each id takes at least one byte
		d.err = errFrame
		return
	}
	r.drop = make([]uint64, n)
	for i := range r.drop {
		r.drop[i] = d.uint()
	}
	r.code = d.str()
	r.timeout = time.Duration(d.uint())
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

func (r *reply) encode(e *encoder) {
	e.str(string(r.status))
	e.str(r.stdout)
	e.bool(r.truncated)
	e.str(r.message)
	e.str(r.err)
	e.bool(r.retire)
}

func (r *reply) decode(d *decoder) {
	r.status = envs.Status(d.str())
	r.stdout = d.str()
	r.truncated = d.bool()
	r.message = d.str()
	r.err = d.str()
	r.retire = d.bool()
}

// writeMsg sends m as one frame with a single write.
func writeMsg(w io.Writer, m message) error {
	e := encoder{b: make([]byte, 4, 64)}
	m.encode(&e)
	if len(e.b)-4 > maxFrame {
		return fmt.Errorf("sandbox: frame of %d bytes is too large", len(e.b)-4)
	}
	binary.BigEndian.PutUint32(e.b, uint32(len(e.b)-4))
	_, err := w.Write(e.b)
	return err
}

// readMsg reads one frame into m. It returns io.EOF only when the stream
// ended cleanly before a frame.
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
