package frame

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// list is a test message: a count, then that many strings.
type list []string

func (l *list) Encode(e *Encoder) {
	e.Uint(uint64(len(*l)))
	for _, s := range *l {
		e.Str(s)
	}
}

func (l *list) Decode(d *Decoder) {
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		*l = append(*l, d.Str())
	}
}

func TestRoundTrip(t *testing.T) {
	cases := []list{{}, {""}, {"a", "\xff\x00bytes"}}
	for i, c := range cases {
		var buf bytes.Buffer
		if err := Write(&buf, &c); err != nil {
			t.Fatal(err)
		}
		var got list
		if err := Read(&buf, &got); err != nil || len(got) != len(c) {
			t.Fatalf("case %d: %q, %v; want %q", i, got, err, c)
		}
		for j := range c {
			if got[j] != c[j] {
				t.Errorf("case %d: item %d %q, want %q", i, j, got[j], c[j])
			}
		}
	}
}

func TestMalformed(t *testing.T) {
	cases := []struct {
		name, frame string
		want        error
	}{
		{"clean end", "", io.EOF},
		{"cut head", "\x00\x00", io.ErrUnexpectedEOF},
		{"cut body", "\x00\x00\x00\x05\x01", io.ErrUnexpectedEOF},
		{"too long", "\xff\xff\xff\xff", ErrMalformed},
		{"count past the end", "\x00\x00\x00\x01\x09", ErrMalformed},
		{"string past the end", "\x00\x00\x00\x03\x01\x09a", ErrMalformed},
		{"trailing bytes", "\x00\x00\x00\x02\x00\x00", ErrMalformed},
		{"bad varint", "\x00\x00\x00\x01\x80", ErrMalformed},
	}
	for _, c := range cases {
		var l list
		if err := Read(bytes.NewReader([]byte(c.frame)), &l); !errors.Is(err, c.want) {
			t.Errorf("%s: Read(%q) = %v, want %v", c.name, c.frame, err, c.want)
		}
	}
}
