// Package frame is the wire format between the code tools and their
// worker processes (packages envs/sandbox and envs/pysandbox): a frame is
// a 4-byte big-endian body length followed by the body, a flat list of
// uvarints and length-prefixed byte strings, which carry printed bytes
// exactly (invalid UTF-8 included). The Python driver of envs/pysandbox
// speaks the same format.
package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxBody bounds a frame body; a larger length means a broken stream.
const MaxBody = 64 << 20

// ErrMalformed marks a frame that does not decode.
var ErrMalformed = errors.New("frame: malformed frame")

// Message is a value carried in one frame.
type Message interface {
	Encode(e *Encoder)
	Decode(d *Decoder)
}

// Write sends m as one frame with a single write.
func Write(w io.Writer, m Message) error {
	e := Encoder{b: make([]byte, 4, 64)}
	m.Encode(&e)
	if len(e.b)-4 > MaxBody {
		return fmt.Errorf("frame: body of %d bytes is too large", len(e.b)-4)
	}
	binary.BigEndian.PutUint32(e.b, uint32(len(e.b)-4))
	_, err := w.Write(e.b)
	return err
}

// Read reads one frame into m. It returns io.EOF only when the stream
// ended cleanly before a frame; a body that does not decode in full is
// ErrMalformed.
func Read(r io.Reader, m Message) error {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > MaxBody {
		return fmt.Errorf("%w: length %d", ErrMalformed, n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	d := Decoder{b: body}
	m.Decode(&d)
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(d.b))
	}
	return d.err
}

// Encoder appends the fields of a body.
type Encoder struct{ b []byte }

// Uint appends v as a uvarint.
func (e *Encoder) Uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

// Str appends s with its length.
func (e *Encoder) Str(s string) { e.Uint(uint64(len(s))); e.b = append(e.b, s...) }

// Bool appends v as the uvarint 1 or 0.
func (e *Encoder) Bool(v bool) {
	if v {
		e.Uint(1)
	} else {
		e.Uint(0)
	}
}

// Decoder reads what Encoder wrote. The first error sticks, and later
// reads return zero values.
type Decoder struct {
	b   []byte
	err error
}

// Err is the first error of the reads so far.
func (d *Decoder) Err() error { return d.err }

// Uint reads a uvarint.
func (d *Decoder) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = ErrMalformed
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Count reads the length of a list whose items take at least one byte
// each: a length past the bytes left is ErrMalformed (and 0), so a
// corrupt length cannot make the caller allocate without bound.
func (d *Decoder) Count() int {
	n := d.Uint()
	if n > uint64(len(d.b)) {
		if d.err == nil {
			d.err = ErrMalformed
		}
		return 0
	}
	return int(n)
}

// Str reads a length-prefixed string.
func (d *Decoder) Str() string {
	n := d.Uint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = ErrMalformed
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// Bool reads what Encoder.Bool wrote.
func (d *Decoder) Bool() bool { return d.Uint() != 0 }
