package policy

// Reading weights frozen in bfloat16 (LoadModel16) straight from a
// safetensors file: a BF16 tensor's bits go into the parameter's bfloat16
// storage as they are, an F32 or F16 tensor is rounded through one
// float32 scratch, so no float32 copy of the frozen weights is made.

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// chunk returns f's read buffer, grown to min(stChunk, total) bytes:
// every read of the file goes through the same one.
func (f *stFile) chunk(total int64) []byte {
	n := int(min(stChunk, total))
	if cap(f.buf) < n {
		f.buf = make([]byte, n)
	}
	return f.buf[:n]
}

// readParam reads the tensor e of f, whose shape is p's, into p. A
// float32 p gets the values widened (read). A p frozen in bfloat16
// (p.half) gets a BF16 tensor's bits unchanged, NaN payloads included,
// and an F32 or F16 tensor's values rounded to nearest-even (roundBF16,
// as Freeze16 rounds them) through *scratch, which grows to the largest
// such tensor and is reused; other dtypes are refused, as read refuses
// them.
func (f *stFile) readParam(p *Param, e stEntry, scratch *[]float32) error {
	switch {
	case p.half == nil:
		return f.read(p.Name, e, p.Data)
	case e.DType == "BF16":
		return f.readBF16(p.Name, e, p.half)
	}
	s := slices.Grow((*scratch)[:0], len(p.half))[:len(p.half)]
	*scratch = s
	if err := f.read(p.Name, e, s); err != nil {
		return err
	}
	roundAll(p.half, s)
	return nil
}

// readBF16 copies the bits of the BF16 tensor e into dst, which has its
// element count, through f's read buffer.
func (f *stFile) readBF16(name string, e stEntry, dst []uint16) error {
	if e.DType != "BF16" {
		return fmt.Errorf("%s: tensor %q has dtype %s: want BF16", f.path, name, e.DType)
	}
	return f.chunks(name, e, func(off int64, b []byte) {
		out := dst[off/2:]
		for i := range len(b) / 2 {
			out[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
	})
}
